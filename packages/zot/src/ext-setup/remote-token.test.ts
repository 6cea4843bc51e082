import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parseRemoteConfig, type RemoteConfig } from './remote-config.js';
import { urlEntry } from './remote-entry.js';
import { resolveRemoteToken } from './remote-token.js';

const root = mkdtempSync(join(tmpdir(), 'zot-remote-token-'));
after(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;
function files(auth: unknown, config: unknown) {
  const dir = join(root, `case-${++counter}`);
  const authPath = `${dir}-auth.json`;
  const configPath = `${dir}-config.json`;
  if (auth !== undefined) writeFileSync(authPath, JSON.stringify(auth));
  if (config !== undefined) writeFileSync(configPath, JSON.stringify(config));
  return { authPath, configPath };
}
const URL = 'wss://policy.example/ext';
const remote = (extra: Partial<RemoteConfig> = {}): RemoteConfig => ({
  type: 'websocket',
  url: URL,
  headers: {},
  ...extra,
});

test('token sources in order: token_env, config.json names a variable, auth.json by URL or name, ZOT_EXT_TOKEN', () => {
  const env = { TEAM_T: 'from-team', OTHER_T: 'from-other', ZOT_EXT_TOKEN: 'from-default' };
  const both = files(
    { extensions: { [URL]: { token: 'from-auth-url' }, policy: { token: 'from-auth-name' } } },
    { remote_extensions: { policy: { token_env: 'OTHER_T' } } },
  );
  const named = remote({ tokenEnv: 'TEAM_T' });
  assert.deepEqual(resolveRemoteToken('policy', named, { env, ...both }), {
    token: 'from-team',
    from: 'TEAM_T',
  });
  assert.deepEqual(resolveRemoteToken('policy', remote(), { env, ...both }), {
    token: 'from-other',
    from: 'OTHER_T (config.json)',
  });
  const authOnly = files({ extensions: { policy: { token: 'from-auth-name' } } }, {});
  const flag = remote({ tokenEnv: 'ZOT_EXT_TOKEN', tokenOptional: true });
  assert.deepEqual(resolveRemoteToken('policy', flag, { env, ...authOnly }), {
    token: 'from-auth-name',
    from: 'auth.json',
  });
  const byUrl = files({ extensions: { [URL]: { token: 'from-auth-url' } } }, undefined);
  assert.equal(resolveRemoteToken('other', flag, { env, ...byUrl }).token, 'from-auth-url');
  assert.deepEqual(resolveRemoteToken('policy', flag, { env, ...files({}, {}) }), {
    token: 'from-default',
    from: 'ZOT_EXT_TOKEN',
  });
  assert.deepEqual(resolveRemoteToken('policy', remote(), { env: {} }), {});
});

test("zot's own secrets are never a token: named as the variable, or equal in value", () => {
  const key = 'sk-ant-provider-key-123456';
  for (const name of ['ANTHROPIC_API_KEY', 'openai_api_key', 'ZOTCORE_RPC_TOKEN']) {
    const parsed = parseRemoteConfig({ type: 'websocket', url: URL, token_env: name });
    assert.equal(typeof parsed, 'string');
    assert.match(parsed as string, /"transport.token_env": \S+ holds one of zot's own secrets/);
  }
  const flagged = urlEntry(URL, 'KIMI_API_KEY');
  assert.equal(flagged.status, 'error');
  assert.match(
    flagged.error!,
    /^--ext-token-env KIMI_API_KEY: KIMI_API_KEY holds one of zot's own secrets/,
  );
  const viaConfig = files(undefined, {
    remote_extensions: { policy: { token_env: 'OPENAI_API_KEY' } },
  });
  const refused = resolveRemoteToken('policy', remote(), {
    env: { OPENAI_API_KEY: key },
    ...viaConfig,
  });
  assert.match(
    refused.problem!,
    /config\.json "remote_extensions" for "policy": OPENAI_API_KEY holds/,
  );
  const copied = resolveRemoteToken('policy', remote({ tokenEnv: 'TEAM_T' }), {
    env: { TEAM_T: key, ANTHROPIC_API_KEY: key },
  });
  assert.match(copied.problem!, /the token from TEAM_T is the same as zot's ANTHROPIC_API_KEY/);
  const stored = files({ anthropic: { key }, extensions: { policy: { token: key } } }, undefined);
  const fromAuth = resolveRemoteToken('policy', remote(), { env: {}, ...stored });
  assert.match(
    fromAuth.problem!,
    /the token from auth\.json is the same as zot's anthropic key in auth\.json/,
  );
  for (const problem of [refused, copied, fromAuth])
    assert.doesNotMatch(JSON.stringify(problem), /sk-ant/);
});

test('a malformed entry is named, never skipped for a weaker source', () => {
  const env = { ZOT_EXT_TOKEN: 'default' };
  const flag = remote({ tokenEnv: 'ZOT_EXT_TOKEN', tokenOptional: true });
  const noVar = files(undefined, { remote_extensions: { policy: { token_env: 'UNSET_T' } } });
  assert.match(
    resolveRemoteToken('policy', flag, { env, ...noVar }).problem!,
    /names UNSET_T, which is not set; export it/,
  );
  const empty = files({ extensions: { policy: { token: '' } } }, undefined);
  assert.match(
    resolveRemoteToken('policy', flag, { env, ...empty }).problem!,
    /auth\.json "extensions" for "policy": "token" must be a non-empty string/,
  );
});

test("a project's manifest gets no token from an entry keyed by name, only by its exact URL", () => {
  const stored = files(
    { extensions: { policy: { token: 'by-name' } } },
    { remote_extensions: { policy: { token_env: 'TEAM_T' } } },
  );
  const env = { TEAM_T: 'team' };
  assert.deepEqual(resolveRemoteToken('policy', remote(), { env, ...stored, byName: false }), {});
  const byUrl = files({ extensions: { [URL]: { token: 'by-url' } } }, undefined);
  assert.equal(
    resolveRemoteToken('policy', remote(), { env, ...byUrl, byName: false }).token,
    'by-url',
  );
});
