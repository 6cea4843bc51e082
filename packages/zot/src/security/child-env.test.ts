// What a child process may see of zot's environment: everything but zot's own secrets, by name
// or by value, unless config.json's env_passthrough names them.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { childEnvironment, runChildEnvironment, SECRET_VARIABLES } from './child-env.js';

test('provider keys and the RPC token are dropped; a copy of one under another name too', () => {
  const env = {
    PATH: '/usr/bin',
    HOME: '/home/u',
    ANTHROPIC_API_KEY: 'sk-ant-secret-1',
    OPENAI_API_KEY: 'sk-openai-secret-2',
    KIMI_API_KEY: 'kimi-secret-3',
    MOONSHOT_API_KEY: 'moonshot-secret-4',
    OLLAMA_API_KEY: 'ollama-secret-5',
    ZOTCORE_RPC_TOKEN: 'rpc',
    COPY_OF_KEY: 'sk-ant-secret-1',
    GITHUB_TOKEN: 'not-zots-token',
    SHORT: 'rpc',
  };
  assert.deepEqual(childEnvironment({ env }), {
    PATH: '/usr/bin',
    HOME: '/home/u',
    GITHUB_TOKEN: 'not-zots-token',
    // too short to be a key: a value that happens to equal a short token is not dropped
    SHORT: 'rpc',
  });
  for (const name of ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'ZOTCORE_RPC_TOKEN']) {
    assert.ok(SECRET_VARIABLES.includes(name), name);
  }
});

test('env_passthrough names what may pass; secrets held elsewhere are matched by value', () => {
  const env = {
    OPENAI_API_KEY: 'sk-openai-secret-2',
    ANTHROPIC_API_KEY: 'sk-ant-secret-1',
    FROM_AUTH: 'stored-in-auth-json',
  };
  assert.deepEqual(
    childEnvironment({ env, passthrough: ['OPENAI_API_KEY'], secrets: ['stored-in-auth-json'] }),
    { OPENAI_API_KEY: 'sk-openai-secret-2' },
  );
});

test('remote tokens named by the run are dropped by name and by value; passthrough names one back', () => {
  const env = {
    ZOT_EXT_TOKEN: 'remote-token-1',
    POLICY_TOKEN: 'remote-token-2',
    COPY: 'remote-token-2',
    X: '1',
  };
  assert.deepEqual(childEnvironment({ env, names: ['ZOT_EXT_TOKEN', 'POLICY_TOKEN'] }), { X: '1' });
  assert.deepEqual(
    childEnvironment({
      env,
      names: ['ZOT_EXT_TOKEN', 'POLICY_TOKEN'],
      passthrough: ['POLICY_TOKEN'],
    }),
    // Only the name passed through: a copy of the value under another name is still dropped.
    { POLICY_TOKEN: 'remote-token-2', X: '1' },
  );
});

test('runChildEnvironment reads env_passthrough from config.json and the keys of auth.json', (t) => {
  const home = mkdtempSync(join(tmpdir(), 'zot-child-env-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const paths = { config: join(home, 'config.json'), auth: join(home, 'auth.json') };
  writeFileSync(
    paths.config,
    JSON.stringify({ env_passthrough: ['ZOTCORE_RPC_TOKEN', 'no-t a name'] }),
  );
  writeFileSync(paths.auth, JSON.stringify({ anthropic: { key: 'sk-ant-from-auth' } }));
  const { scrub, warnings } = runChildEnvironment(paths, { apiKey: 'flag-key-value' });
  const env = scrub({
    ZOTCORE_RPC_TOKEN: 'tok',
    MINE: 'sk-ant-from-auth',
    FLAG_COPY: 'flag-key-value',
    X: '1',
  });
  assert.deepEqual(env, { ZOTCORE_RPC_TOKEN: 'tok', X: '1' });
  assert.deepEqual(warnings, [
    `${paths.config}: "env_passthrough" has entries that are not variable names ("no-t a name"); ignoring them`,
  ]);
  writeFileSync(paths.config, JSON.stringify({ env_passthrough: 'ZOTCORE_RPC_TOKEN' }));
  const wrong = runChildEnvironment(paths);
  assert.deepEqual(
    wrong.scrub({ ZOTCORE_RPC_TOKEN: 'tok' }),
    {},
    'a malformed setting passes nothing',
  );
  assert.match(wrong.warnings[0]!, /"env_passthrough" must be a list of variable names/);
});

test('remote token variables from config.json and from the manifests (added later) are scrubbed, never PATH', (t) => {
  const home = mkdtempSync(join(tmpdir(), 'zot-child-env-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const paths = { config: join(home, 'config.json'), auth: join(home, 'auth.json') };
  writeFileSync(
    paths.config,
    JSON.stringify({
      remote_extensions: {
        team: { token_env: 'TEAM_TOKEN' },
        odd: { token_env: 'PATH' },
        bad: { token_env: 'not a name' },
        broken: null,
      },
    }),
  );
  const children = runChildEnvironment(paths);
  const env = {
    TEAM_TOKEN: 'team-token-value',
    POLICY_TOKEN: 'policy-token-value',
    COPY: 'policy-token-value',
    PATH: '/usr/bin',
  };
  assert.deepEqual(children.scrub(env), {
    POLICY_TOKEN: 'policy-token-value',
    COPY: 'policy-token-value',
    PATH: '/usr/bin',
  });
  children.addTokenNames(['POLICY_TOKEN', 'HOME', 'Path']);
  assert.deepEqual(children.scrub(env), { PATH: '/usr/bin' });
});
