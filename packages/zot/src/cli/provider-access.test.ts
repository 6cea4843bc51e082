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
import { createProviderAccess } from './provider-access.js';

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

function setup(argv: string[], env: NodeJS.ProcessEnv) {
  const home = mkdtempSync(join(tmpdir(), 'zot-access-'));
  const paths = zotPaths(home);
  const access = createProviderAccess({
    options: parseArgs(argv),
    paths,
    start: 'anthropic',
    extra: [],
    env,
  });
  return { access, paths, cleanup: () => rmSync(home, { recursive: true, force: true }) };
}

test('login checks the key with one model-list request and saves only a key that works', async (t) => {
  const server = await modelList('sk-good');
  const { access, paths, cleanup } = setup([], { ANTHROPIC_BASE_URL: server.url });
  t.after(async () => (cleanup(), await server.close()));

  const rejected = await access.login('anthropic', 'sk-bad');
  assert.deepEqual(rejected, { ok: false, error: 'anthropic rejected the key (HTTP 401)' });
  assert.throws(() => readFileSync(paths.auth), /ENOENT/, 'a rejected key is not saved');
  // A base URL of one's own may be a local server without keys: none, and no error.
  assert.equal(access.apiKey('anthropic'), undefined);

  const accepted = await access.login('anthropic', '  sk-good \n');
  assert.equal(accepted.ok, true);
  assert.deepEqual(server.seen.at(-1), { path: '/v1/models', auth: 'sk-good' });
  assert.equal(access.apiKey('anthropic'), 'sk-good');
  assert.equal(statSync(paths.auth).mode & 0o777, 0o600);
  assert.deepEqual(
    access.providers().find((p) => p.provider === 'anthropic'),
    { provider: 'anthropic', needs_key: true, key_source: 'auth.json', ready: true },
  );
  assert.equal(access.logout('anthropic'), true);
  assert.equal(access.logout('anthropic'), false);
});

test('a key saved while an environment variable is set warns that the variable wins', async (t) => {
  const server = await modelList('sk-new');
  const { access, cleanup } = setup([], {
    OPENAI_BASE_URL: server.url,
    OPENAI_API_KEY: 'sk-env',
  });
  t.after(async () => (cleanup(), await server.close()));
  const result = await access.login('openai', 'sk-new');
  assert.ok(result.ok);
  assert.equal(server.seen.at(-1)?.auth, 'Bearer sk-new');
  assert.match(result.warning ?? '', /OPENAI_API_KEY is set and is used before the saved key/);
  assert.equal(access.apiKey('openai'), 'sk-env');
});

test('an unreachable provider: the key is saved with a warning saying it was not checked', async (t) => {
  const server = await modelList('x');
  await server.close(); // nothing listens on that port any more
  const { access, cleanup } = setup([], { OPENAI_BASE_URL: server.url });
  t.after(cleanup);
  const result = await access.login('openai', 'sk-unchecked');
  assert.ok(result.ok);
  assert.match(result.warning ?? '', /could not reach openai.*saved without a check/);
  assert.equal(access.apiKey('openai'), 'sk-unchecked');
});

test('--api-key and --base-url belong to the start provider; others use their own settings', () => {
  const { access, cleanup } = setup(
    ['--api-key', 'sk-flag', '--base-url', 'http://127.0.0.1:9/v1'],
    { OPENAI_API_KEY: 'sk-openai' },
  );
  try {
    const current = access.resolve('claude-haiku-4-5', access.models()[0]!)!;
    assert.equal(current.provider, 'anthropic');
    assert.equal(access.apiKey('anthropic'), 'sk-flag');
    assert.equal(access.baseUrl(current), 'http://127.0.0.1:9/v1');
    const gpt = access.resolve('openai/gpt-5', current)!;
    assert.deepEqual([gpt.provider, gpt.id], ['openai', 'gpt-5']);
    assert.equal(access.apiKey('openai'), 'sk-openai');
    assert.equal(access.baseUrl(gpt), 'https://api.openai.com/v1');
    // An id with a slash that is not a provider stays an id of the current provider.
    const slashed = access.resolve('org/model', gpt)!;
    assert.deepEqual([slashed.provider, slashed.id], ['openai', 'org/model']);
    assert.equal(access.resolve('  ', gpt), undefined);
  } finally {
    cleanup();
  }
});
