// /login's check and save, and the key and base URL each provider gets, against a real local
// HTTP server standing in for the provider's model list.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { zotPaths } from '../config/paths.js';
import { parseArgs } from './args.js';
import type { ProviderName } from '../providers/types.js';
import { createProviderAccess, type ConfiguredModels } from './provider-access.js';

/** Answers GET /v1/models: 200 for `good`, 401 for any other key; records what it saw. */
async function modelList(good: string) {
  const seen: Array<{ path: string; auth: string | undefined }> = [];
  const server: Server = createServer((req, res) => {
    const auth = (req.headers['x-api-key'] as string | undefined) ?? req.headers.authorization;
    seen.push({ path: req.url ?? '', auth });
    const ok = auth === good || auth === `Bearer ${good}`;
    res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
    res.end(ok ? '{"data":[]}' : '{"error":{"message":"invalid x-api-key"}}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

function setup(
  argv: string[],
  env: NodeJS.ProcessEnv,
  configured: Partial<ConfiguredModels> = {},
  start: ProviderName = 'anthropic',
) {
  const home = mkdtempSync(join(tmpdir(), 'zot-access-'));
  const paths = zotPaths(home);
  const access = createProviderAccess({
    options: parseArgs(argv),
    paths,
    start,
    configured: { path: paths.models, models: [], rejected: [], ...configured },
    env,
  });
  /** The key calls to `provider`'s default model would get. */
  const keyOf = (provider: ProviderName, id = 'm') => access.apiKey(access.model(provider, id));
  return { access, paths, keyOf, cleanup: () => rmSync(home, { recursive: true, force: true }) };
}

test('login checks the key with one model-list request and saves only a key that works', async (t) => {
  const server = await modelList('sk-good');
  const { access, paths, keyOf, cleanup } = setup([], { ANTHROPIC_BASE_URL: server.url });
  t.after(async () => (cleanup(), await server.close()));

  const rejected = await access.login('anthropic', 'sk-bad');
  assert.deepEqual(rejected, { ok: false, error: 'anthropic rejected the key (HTTP 401)' });
  assert.throws(() => readFileSync(paths.auth), /ENOENT/, 'a rejected key is not saved');
  // A server on this machine needs no key: none, and no error.
  assert.equal(keyOf('anthropic'), undefined);

  const accepted = await access.login('anthropic', '  sk-good \n');
  assert.equal(accepted.ok, true);
  assert.deepEqual(server.seen.at(-1), { path: '/v1/models', auth: 'sk-good' });
  assert.equal(keyOf('anthropic'), 'sk-good');
  assert.equal(statSync(paths.auth).mode & 0o777, 0o600);
  assert.deepEqual(
    access.providers().find((p) => p.provider === 'anthropic'),
    { provider: 'anthropic', needs_key: false, key_source: 'auth.json', ready: true },
  );
  assert.equal(access.logout('anthropic'), true);
  assert.equal(access.logout('anthropic'), false);
});

test('a key saved while an environment variable is set warns that the variable wins', async (t) => {
  const server = await modelList('sk-new');
  const { access, keyOf, cleanup } = setup([], {
    OPENAI_BASE_URL: server.url,
    OPENAI_API_KEY: 'sk-env',
  });
  t.after(async () => (cleanup(), await server.close()));
  const result = await access.login('openai', 'sk-new');
  assert.ok(result.ok);
  assert.equal(server.seen.at(-1)?.auth, 'Bearer sk-new');
  assert.match(result.warning ?? '', /OPENAI_API_KEY is set and is used before the saved key/);
  assert.equal(keyOf('openai'), 'sk-env');
});

test('an unreachable provider: the key is saved with a warning saying it was not checked', async (t) => {
  const server = await modelList('x');
  await server.close(); // nothing listens on that port any more
  const { access, keyOf, cleanup } = setup([], { OPENAI_BASE_URL: server.url });
  t.after(cleanup);
  const result = await access.login('openai', 'sk-unchecked');
  assert.ok(result.ok);
  assert.match(result.warning ?? '', /could not reach openai.*saved without a check/);
  assert.equal(keyOf('openai'), 'sk-unchecked');
});

test('--api-key and --base-url belong to the start provider; others use their own settings', () => {
  const { access, keyOf, cleanup } = setup(
    ['--api-key', 'sk-flag', '--base-url', 'http://127.0.0.1:9/v1'],
    { OPENAI_API_KEY: 'sk-openai' },
  );
  try {
    const current = access.resolve('claude-haiku-4-5', access.models()[0]!)!;
    assert.equal(current.provider, 'anthropic');
    assert.equal(keyOf('anthropic'), 'sk-flag');
    assert.equal(access.baseUrl(current), 'http://127.0.0.1:9/v1');
    const gpt = access.resolve('openai/gpt-5', current)!;
    assert.deepEqual([gpt.provider, gpt.id], ['openai', 'gpt-5']);
    assert.equal(keyOf('openai'), 'sk-openai');
    assert.equal(access.baseUrl(gpt), 'https://api.openai.com/v1');
    // An id with a slash that is not a provider stays an id of the current provider.
    const slashed = access.resolve('org/model', gpt)!;
    assert.deepEqual([slashed.provider, slashed.id], ['openai', 'org/model']);
    assert.equal(access.resolve('  ', gpt), undefined);
  } finally {
    cleanup();
  }
});

test('a key is needed for every server but one on this machine; the error says which server', () => {
  const { keyOf, cleanup } = setup(['--base-url', 'http://gpu-box:8000/v1'], {}, {}, 'vllm');
  try {
    assert.throws(
      () => keyOf('vllm'),
      (error: Error) =>
        /no API key for vllm/.test(error.message) &&
        /server at http:\/\/gpu-box:8000\/v1 is not on this machine/.test(error.message) &&
        /any value will do \(e\.g\. VLLM_API_KEY=none\)/.test(error.message),
    );
    // The other local servers stay where they are: no key.
    for (const provider of ['ollama', 'lmstudio', 'llamacpp'] as const) {
      assert.equal(keyOf(provider), undefined, provider);
    }
    // A hosted API at its own address: the usual message, no talk of placeholders.
    assert.throws(
      () => keyOf('openai'),
      (error: Error) =>
        /no API key for openai/.test(error.message) && !/any value/.test(error.message),
    );
  } finally {
    cleanup();
  }
  for (const url of [
    'http://localhost:1/v1',
    'http://127.8.0.1:1',
    'http://[::1]:1/v1',
    'http://0.0.0.0:1',
  ]) {
    const local = setup([], { OPENAI_BASE_URL: url });
    try {
      assert.equal(local.keyOf('openai'), undefined, url);
      const status = local.access.providers().find((p) => p.provider === 'openai');
      assert.deepEqual(status, { provider: 'openai', needs_key: false, ready: true }, url);
    } finally {
      local.cleanup();
    }
  }
});

test('ZOT_OPENAI_BASE_URL beats OPENAI_BASE_URL; a bad value names its variable', () => {
  const both = setup([], {
    ZOT_OPENAI_BASE_URL: 'http://127.0.0.1:7/v1',
    OPENAI_BASE_URL: 'http://127.0.0.1:8/v1',
  });
  try {
    assert.equal(both.access.providerUrl('openai'), 'http://127.0.0.1:7/v1');
    assert.equal(
      both.access.providerUrl('vllm'),
      'http://127.0.0.1:8000/v1',
      'presets keep their own',
    );
  } finally {
    both.cleanup();
  }
  const bad = setup([], { ZOT_OPENAI_BASE_URL: 'nope', OPENAI_BASE_URL: 'http://127.0.0.1:8/v1' });
  try {
    assert.throws(() => bad.access.providerUrl('openai'), /ZOT_OPENAI_BASE_URL expects an http/);
  } finally {
    bad.cleanup();
  }
});

test('the wire API: Chat Completions for models OpenAI does not list, sent elsewhere; "api" stays', () => {
  const configured = {
    models: [
      { ...base('openai', 'entry-with-url'), baseUrl: 'http://h:1/v1' },
      { ...base('openai', 'fixed'), baseUrl: 'http://h:1/v1', apiFixed: true },
    ],
  };
  const hosted = setup([], {}, configured);
  const moved = setup([], { OPENAI_BASE_URL: 'http://h:2/v1' }, configured);
  try {
    const api = (access: typeof hosted.access, id: string) => access.model('openai', id).api;
    assert.equal(api(hosted.access, 'entry-with-url'), 'openai-chat', "the entry's own server");
    assert.equal(api(hosted.access, 'fixed'), 'openai-responses', 'an "api" given is kept');
    assert.equal(api(hosted.access, 'gpt-6'), 'openai-responses', "OpenAI's API, a newer model");
    assert.equal(api(moved.access, 'my-model'), 'openai-chat');
    assert.equal(api(moved.access, 'gpt-5'), 'openai-responses', "OpenAI's own models keep it");
  } finally {
    hosted.cleanup();
    moved.cleanup();
  }
});

test('a model whose models.json entry was skipped is refused, naming the file and entry', () => {
  const rejected = [
    {
      provider: 'openai' as const,
      id: 'mine',
      message: '/h/models.json: entry 2: field "api" must be one of ...',
    },
  ];
  const { access, cleanup } = setup([], {}, { rejected });
  try {
    const current = access.model('anthropic', 'claude-haiku-4-5');
    assert.throws(
      () => access.resolve('openai/mine', current),
      /the models\.json entry for openai\/mine is invalid, so no request is sent for it: \/h\/models\.json: entry 2: field "api"/,
    );
    // Another provider's model of the same name is not that entry's.
    assert.equal(access.resolve('mine', current)!.provider, 'anthropic');
  } finally {
    cleanup();
  }
});

test('the note about a model zot knows no limits for is given once per model, across runs', () => {
  const first = setup([], {});
  const home = first.paths.home;
  try {
    const unknown = first.access.model('anthropic', 'claude-next');
    const note = first.access.firstCallNote(unknown);
    assert.match(
      note ?? '',
      /^zot knows no limits for anthropic\/claude-next: it assumes context 128000, max output 8192 \(set them in .*models\.json\)\. Said once per model\.$/,
    );
    assert.equal(first.access.firstCallNote(unknown), undefined, 'once per run');
    assert.equal(
      first.access.firstCallNote(first.access.model('anthropic', 'claude-haiku-4-5')),
      undefined,
    );
    // A later run (a new access over the same ZOT_HOME) has nothing to say about it.
    const run = () =>
      createProviderAccess({
        options: parseArgs([]),
        paths: zotPaths(home),
        start: 'anthropic',
        configured: { path: '', models: [], rejected: [] },
        env: {},
      });
    assert.equal(run().firstCallNote(unknown), undefined);
    // A different note for the same model (other limits) is news, and said.
    assert.match(run().firstCallNote({ ...unknown, contextWindow: 1000 }) ?? '', /context 1000/);
  } finally {
    first.cleanup();
  }
});

function base(provider: ProviderName, id: string) {
  return {
    id,
    name: id,
    provider,
    api: 'openai-responses' as const,
    reasoning: false,
    contextWindow: 1000,
    maxTokens: 100,
    prices: { input: 0, output: 0, cache_read: 0, cache_write: 0 },
  };
}
