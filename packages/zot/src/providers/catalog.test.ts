import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  builtinModel,
  costUsd,
  defaultBaseUrl,
  listModels,
  PROVIDER_NAMES,
  providerDefaults,
  resolveModel,
  UNKNOWN_MODEL_LIMITS,
  unknownModel,
} from './catalog.js';
import { parseModelsJson } from './models-json.js';

// Behaviour of the catalog, not its data: lookups, defaults, copies, overrides and the price
// arithmetic. The table itself (ids, limits, list prices) is data, checked by review.

test('each provider resolves its default model from the catalog, with the provider api', () => {
  for (const provider of PROVIDER_NAMES) {
    const defaults = providerDefaults(provider);
    assert.equal(defaultBaseUrl(provider), defaults.baseUrl);
    assert.match(defaults.baseUrl, /^https?:\/\/[^/]+/);
    const listed = listModels(provider);
    for (const entry of listed) {
      assert.equal(entry.provider, provider);
      assert.equal(entry.api, defaults.api, `${provider}/${entry.id} speaks the provider's api`);
      assert.deepEqual(resolveModel(provider, entry.id), { model: entry, known: true });
      assert.deepEqual(builtinModel(provider, entry.id), entry);
    }
    assert.equal(new Set(listed.map((m) => m.id)).size, listed.length, 'ids are unique');
    if (defaults.defaultModel === undefined) {
      // Only a server of one's own knows what it serves (zot asks it).
      assert.equal(defaults.local, true, `${provider} has a default model`);
      continue;
    }
    const { model, known } = resolveModel(provider, undefined);
    assert.equal(known, true, `${provider}: default ${defaults.defaultModel} is in the catalog`);
    assert.equal(model.id, defaults.defaultModel);
  }
});

test('the local servers are OpenAI-compatible, on this machine, at their usual ports', () => {
  const local = PROVIDER_NAMES.filter((provider) => providerDefaults(provider).local);
  assert.deepEqual(
    local.map((provider) => [provider, defaultBaseUrl(provider)]),
    [
      ['ollama', 'http://127.0.0.1:11434/v1'],
      ['lmstudio', 'http://127.0.0.1:1234/v1'],
      ['vllm', 'http://127.0.0.1:8000/v1'],
      ['llamacpp', 'http://127.0.0.1:8080/v1'],
    ],
  );
  for (const provider of local) assert.equal(providerDefaults(provider).api, 'openai-chat');
  assert.deepEqual(providerDefaults('openai').baseUrlEnv, [
    'ZOT_OPENAI_BASE_URL',
    'OPENAI_BASE_URL',
  ]);
});

test('lookups hand out copies: changing one changes no later lookup', () => {
  const first = resolveModel('anthropic', undefined).model;
  const pristine = structuredClone(first);
  first.prices.input = 999;
  first.maxTokens = 1;
  listModels('anthropic')[0]!.prices.output = 999;
  providerDefaults('anthropic').baseUrl = 'http://changed';
  assert.deepEqual(resolveModel('anthropic', undefined).model, pristine);
  assert.notEqual(defaultBaseUrl('anthropic'), 'http://changed');
});

test('unknown ids get default limits, no price and the provider api', () => {
  const { model, known } = resolveModel('kimi', 'kimi-next');
  assert.equal(known, false);
  assert.deepEqual(model, {
    id: 'kimi-next',
    name: 'kimi-next',
    provider: 'kimi',
    api: providerDefaults('kimi').api,
    reasoning: false,
    ...UNKNOWN_MODEL_LIMITS,
    prices: { input: 0, output: 0, cache_read: 0, cache_write: 0 },
  });
  assert.equal(builtinModel('kimi', 'kimi-next'), undefined);
  assert.equal(costUsd(model, { input: 1e6, output: 1e6, cache_read: 1e6, cache_write: 1e6 }), 0);
});

test('costUsd prices each kind of token at its own price per million', () => {
  // Prices a power of ten apart: any kind priced at another kind's price shows in the digits.
  const model = {
    ...unknownModel('openai', 'priced'),
    prices: { input: 1, output: 10, cache_read: 100, cache_write: 1000 },
  };
  const none = { input: 0, output: 0, cache_read: 0, cache_write: 0 };
  assert.equal(costUsd(model, none), 0);
  assert.equal(costUsd(model, { ...none, input: 1_000_000 }), 1);
  assert.equal(costUsd(model, { ...none, output: 1_000_000 }), 10);
  assert.equal(costUsd(model, { ...none, cache_read: 1_000_000 }), 100);
  assert.equal(costUsd(model, { ...none, cache_write: 1_000_000 }), 1000);
  const all = {
    input: 4_000_000,
    output: 3_000_000,
    cache_read: 2_000_000,
    cache_write: 1_000_000,
  };
  assert.equal(costUsd(model, all), 4 + 30 + 200 + 1000);
  assert.ok(
    Math.abs(costUsd(model, { ...none, input: 1 }) - 1e-6) < 1e-18,
    'per token, not per call',
  );
});

test('models.json: overrides field by field, adds new models, mutating nothing built in', () => {
  const builtin = builtinModel('anthropic', 'claude-sonnet-4-5')!;
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
  // The named fields change; every other field, and every other price, stays the built-in one.
  assert.deepEqual(sonnet, {
    ...builtin,
    maxTokens: 32000,
    prices: { ...builtin.prices, input: 2 },
  });
  assert.deepEqual(resolveModel('anthropic', 'claude-sonnet-4-5').model, builtin);
  // The overridden price is the one costUsd charges.
  const input = { input: 1_000_000, output: 0, cache_read: 0, cache_write: 0 };
  assert.equal(costUsd(sonnet, input), 2);
  assert.ok(Math.abs(costUsd(builtin, input) - builtin.prices.input) < 1e-9);

  const mistral = resolveModel('ollama', 'mistral-small', models);
  assert.equal(mistral.known, true);
  assert.equal(mistral.model.baseUrl, 'http://gpu-box:11434');
  assert.equal(mistral.model.maxTokens, UNKNOWN_MODEL_LIMITS.maxTokens);
  assert.equal(mistral.model.api, providerDefaults('ollama').api);
  assert.deepEqual(
    listModels('ollama', models).map((m) => m.id),
    [...listModels('ollama').map((m) => m.id), 'mistral-small'],
    'built-ins first, new models after',
  );
  assert.deepEqual(
    listModels('anthropic', models).map((m) => m.id),
    listModels('anthropic').map((m) => m.id),
    'an override replaces its entry in place',
  );
  // Another provider's entries never leak in.
  assert.equal(resolveModel('kimi', 'mistral-small', models).known, false);
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
  const { models, errors, fatal, rejected } = parseModelsJson(text, path);
  assert.deepEqual(
    models.map((m) => [m.id, m.api, m.reasoning]),
    [['gpt-ok', 'openai-chat', true]],
  );
  // Skipped entries keep what they name, so that a run asking for that model can refuse.
  assert.deepEqual(
    rejected.map((r) => [r.provider, r.id]),
    [
      [undefined, 'x'],
      ['openai', 'gpt-x'],
      [undefined, undefined],
      ['kimi', undefined],
      ['kimi', 'k'],
      ['kimi', 'k2'],
      ['openai', 'o'],
    ],
  );
  assert.match(rejected[1]!.message, /^\/z\/models\.json: entry 1: field "contextWindow" must be/);
  const expected = [
    /^\/z\/models\.json: entry 0: field "provider" must be one of anthropic, openai, kimi, ollama, lmstudio, vllm, llamacpp \(got "nope"\)$/,
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

test('models.json: invalid JSON and a wrong top-level shape are fatal, naming the file', () => {
  // Any model may have been configured in a file that cannot be read: nothing is guessed.
  const bad = parseModelsJson('{ oops', 'models.json');
  assert.equal(bad.models.length, 0);
  assert.match(bad.fatal[0] ?? '', /^models\.json: invalid JSON: /);
  const shape = parseModelsJson('{"model": []}', 'models.json');
  assert.match(shape.fatal[0] ?? '', /^models\.json: expected a JSON array/);
});

test('models.json: an "api" given is marked fixed; none given keeps the provider api unmarked', () => {
  const { models } = parseModelsJson(
    JSON.stringify([
      { provider: 'openai', id: 'fixed', api: 'openai-responses', baseUrl: 'http://h:1/v1' },
      { provider: 'openai', id: 'free', baseUrl: 'http://h:1/v1' },
    ]),
    'm.json',
  );
  assert.deepEqual(
    models.map((m) => [m.id, m.api, m.apiFixed]),
    [
      ['fixed', 'openai-responses', true],
      ['free', 'openai-responses', undefined],
    ],
  );
});
