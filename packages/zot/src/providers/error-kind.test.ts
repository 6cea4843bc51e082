import assert from 'node:assert/strict';
import { test } from 'node:test';
import { httpErrorKind, reportedErrorKind } from './error-kind.js';

test('HTTP: the status decides auth and rate limits, the body a context overflow', () => {
  assert.equal(httpErrorKind(401, '{"error":{"message":"invalid x-api-key"}}'), 'auth');
  assert.equal(httpErrorKind(403, 'forbidden'), 'auth');
  // A rate limit whose words mention tokens is still a rate limit.
  const tpm = 'Request too large for gpt-4o: Limit 30000 tokens per min, Requested 50000';
  assert.equal(httpErrorKind(429, tpm), 'rate_limit');
  const bodies = [
    // Anthropic
    '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210345 tokens > 200000 maximum"}}',
    // OpenAI
    `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
    // llama.cpp
    '{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}',
    // Ollama and LM Studio phrasings
    'input length exceeds the context window',
    'Trying to keep the first 5000 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens',
  ];
  for (const body of bodies) assert.equal(httpErrorKind(400, body), 'context_overflow', body);
  assert.equal(httpErrorKind(413, bodies[0]!), 'context_overflow');
  // A server error mentioning context is the server's problem, not the conversation's.
  assert.equal(httpErrorKind(500, bodies[1]!), 'provider');
  assert.equal(httpErrorKind(400, '{"error":{"message":"tools.0.name: invalid"}}'), 'provider');
  assert.equal(httpErrorKind(404, 'model not found'), 'provider');
});

test('in-stream errors: by their type, code and words', () => {
  assert.equal(
    reportedErrorKind('rate_limit_error Number of request tokens exceeded'),
    'rate_limit',
  );
  assert.equal(reportedErrorKind('authentication_error invalid x-api-key'), 'auth');
  assert.equal(
    reportedErrorKind('context_length_exceeded response failed: too long'),
    'context_overflow',
  );
  assert.equal(reportedErrorKind('overloaded_error Overloaded'), 'provider');
  assert.equal(reportedErrorKind('server_error boom'), 'provider');
});

test('only the start of a huge body is read', () => {
  const late = `${'x'.repeat(10_000)} maximum context length`;
  assert.equal(httpErrorKind(400, late), 'provider');
});
