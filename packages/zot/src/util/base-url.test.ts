import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiUrl } from './base-url.js';

test('apiUrl adds /v1 once, with or without a trailing /v1 or slashes', () => {
  const want = 'https://api.example.com/v1/messages';
  for (const base of [
    'https://api.example.com',
    'https://api.example.com/',
    'https://api.example.com/v1',
    'https://api.example.com/v1/',
    'https://api.example.com/v1//',
    ' https://api.example.com/V1 ',
  ]) {
    assert.equal(apiUrl(base, 'messages'), want, base);
  }
});

test('apiUrl keeps a path prefix and strips leading slashes from the path', () => {
  assert.equal(
    apiUrl('http://localhost:8080/proxy', '/chat/completions'),
    'http://localhost:8080/proxy/v1/chat/completions',
  );
  assert.equal(
    apiUrl('http://127.0.0.1:1/proxy/v1', 'responses'),
    'http://127.0.0.1:1/proxy/v1/responses',
  );
  // Only a whole trailing `v1` segment counts.
  assert.equal(apiUrl('http://h/apiv1', 'x'), 'http://h/apiv1/v1/x');
});
