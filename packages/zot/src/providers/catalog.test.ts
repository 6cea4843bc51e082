import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  costUsd,
  defaultBaseUrl,
  listModels,
  providerDefaults,
  providerNeedsKey,
  resolveModel,
} from './catalog.js';
import { parseModelsJson } from './models-json.js';

test('the catalog has a default model per provider with the right api', () => {
  assert.equal(resolveModel('anthropic', undefined).model.id, 'claude-sonnet-4-5');
  assert.equal(resolveModel('openai', undefined).model.api, 'openai-responses');
  assert.equal(resolveModel('kimi', undefined).model.id, 'kimi-k2-0905-preview');
  const ollama = resolveModel('ollama', undefined);
  assert.equal(ollama.model.id, 'llama3.1');
  assert.equal(ollama.model.api, 'openai-chat');
  assert.equal(ollama.model.prices.input, 0);
  for (const id of ['claude-opus-4-1', 'claude-haiku-4-5']) {
    assert.equal(resolveModel('anthropic', id).known, true, id);
  }
  for (const id of ['gpt-5-mini', 'gpt-4.1', 'o4-mini'])
    assert.equal(resolveModel('openai', id).known, true);
  assert.ok(listModels('ollama').some((m) => m.id === 'qwen2.5-coder'));
});

test('provider defaults: base URLs and which providers need a key', () => {
  assert.equal(defaultBaseUrl('anthropic'), 'https://api.anthropic.com');
  assert.equal(defaultBaseUrl('openai'), 'https://api.openai.com/v1');
  assert.equal(defaultBaseUrl('ollama'), 'http://localhost:11434/v1');
  assert.equal(defaultBaseUrl('kimi'), 'https://api.moonshot.ai/v1');
  assert.equal(providerNeedsKey('ollama'), false);
  assert.equal(providerNeedsKey('anthropic'), true);
  assert.equal(providerDefaults('openai').keyEnv, 'OPENAI_API_KEY');
});

test('unknown ids get default limits, no price and the provider api', () => {
  const { model, known } = resolveModel('kimi', 'kimi-next');
  assert.equal(known, false);
  assert.deepEqual(model, {
    id: 'kimi-next',
    name: 'kimi-next',
    provider: 'kimi',
    api: 'openai-chat',
    reasoning: false,
    contextWindow: 128000,
    maxTokens: 8192,
    prices: { input: 0, output: 0, cache_read: 0, cache_write: 0 },
  });
});

test('costUsd prices each kind of token per million', () => {
  const { model } = resolveModel('anthropic', 'claude-sonnet-4-5');
  const usage = { input: 1_000_000, output: 100_000, cache_read: 2_000_000, cache_write: 400_000 };
  assert.ok(Math.abs(costUsd(model, usage) - (3 + 1.5 + 0.6 + 1.5)) < 1e-9);
});

test('models.json: overrides field by field, adds new models, mutating nothing built in', () => {
  const text = JSON.stringify({
    models: [
      { provider: 'anthropic', id: 'claude-sonnet-4-5', maxTokens: 32000, prices: { input: 2 } },
      {
        provider: 'ollama',
        id: 'mistral-small',
        name: 'Mistral Small',
        contextWindow: 32000,
        baseUrl: 'http://gpu-box:11434',
      },
    ],
  });
  const { models, errors } = parseModelsJson(text, '/home/u/.zot/models.json');
  assert.deepEqual(errors, []);
  const sonnet = resolveModel('anthropic', 'claude-sonnet-4-5', models).model;
  assert.equal(sonnet.maxTokens, 32000);
  assert.equal(sonnet.contextWindow, 200000);
  assert.deepEqual(sonnet.prices, { input: 2, output: 15, cache_read: 0.3, cache_write: 3.75 });
  assert.equal(resolveModel('anthropic', 'claude-sonnet-4-5').model.prices.input, 3);
  const mistral = resolveModel('ollama', 'mistral-small', models);
  assert.equal(mistral.known, true);
  assert.equal(mistral.model.baseUrl, 'http://gpu-box:11434');
  assert.equal(mistral.model.maxTokens, 8192);
  assert.deepEqual(
    listModels('ollama', models).map((m) => m.id),
    ['llama3.1', 'qwen2.5-coder', 'mistral-small'],
  );
  assert.equal(listModels('anthropic', models).length, listModels('anthropic').length);
});

test('models.json: bad entries are reported by file, index and field; the others load', () => {
  const path = '/z/models.json';
  const text = JSON.stringify([
    { provider: 'nope', id: 'x' },
    { provider: 'openai', id: 'gpt-x', contextWindow: 'big' },
    { provider: 'openai', id: 'gpt-ok', reasoning: true, api: 'openai-chat', max_tokens: 5 },
    'just a string',
    { provider: 'kimi', id: '' },
    { provider: 'kimi', id: 'k', prices: { input: -1 } },
    { provider: 'kimi', id: 'k2', api: 'grpc', baseUrl: 'ftp://x' },
    { provider: 'openai', id: 'o', baseUrl: 'http://[::' },
  ]);
  const { models, errors, fatal } = parseModelsJson(text, path);
  assert.deepEqual(
    models.map((m) => [m.id, m.api, m.reasoning]),
    [['gpt-ok', 'openai-chat', true]],
  );
  const expected = [
    /^\/z\/models\.json: entry 0: field "provider" must be one of anthropic, openai, kimi, ollama \(got "nope"\)$/,
    /^\/z\/models\.json: entry 1: field "contextWindow" must be a positive integer \(got "big"\)$/,
    /^\/z\/models\.json: entry 2: unknown field "max_tokens" ignored/,
    /^\/z\/models\.json: entry 3: must be an object/,
    /^\/z\/models\.json: entry 4: field "id" must be a non-empty string/,
    /^\/z\/models\.json: entry 5: field "prices\.input" must be a number >= 0/,
    /^\/z\/models\.json: entry 6: field "api" must be one of/,
  ];
  assert.equal(errors.length, expected.length, errors.join('\n'));
  expected.forEach((pattern, i) => assert.match(errors[i] ?? '', pattern));
  // A base URL the URL parser refuses is fatal (the caller stops), not a skipped entry.
  assert.deepEqual(fatal, [
    '/z/models.json: entry 6: field "baseUrl" must be an http:// or https:// URL, e.g. http://localhost:8000/v1 (got "ftp://x")',
    '/z/models.json: entry 7: field "baseUrl" must be an http:// or https:// URL, e.g. http://localhost:8000/v1 (got "http://[::")',
  ]);
});

test('models.json: invalid JSON and a wrong top-level shape name the file', () => {
  const bad = parseModelsJson('{ oops', 'models.json');
  assert.equal(bad.models.length, 0);
  assert.match(bad.errors[0] ?? '', /^models\.json: invalid JSON: /);
  const shape = parseModelsJson('{"model": []}', 'models.json');
  assert.match(shape.errors[0] ?? '', /^models\.json: expected a JSON array/);
});
