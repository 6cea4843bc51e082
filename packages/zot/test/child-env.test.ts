// zot's own secrets stay out of the processes it starts: a real bash tool call and a real
// extension (under `zot` and under `zot ext test`) each run `env`, and the provider keys, the
// RPC token, remote extensions' tokens (named in a user manifest or config.json) and copies of
// them are absent, while a variable env_passthrough names is present.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { extensionProgram } from './support/ext-fixtures.js';
import { FAST_TIMEOUTS } from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { hangGuard } from './support/timing.js';
import { makeSandbox, runZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

/** Secrets zot uses, each a value that must not appear in a child's `env`. */
const SECRETS = {
  ANTHROPIC_API_KEY: 'sk-ant-CANARY-anthropic',
  KIMI_API_KEY: 'CANARY-kimi-key',
  MOONSHOT_API_KEY: 'CANARY-moonshot-key',
  OLLAMA_API_KEY: 'CANARY-ollama-key',
  ZOTCORE_RPC_TOKEN: 'CANARY-rpc-token',
  // remote extensions' tokens: a user manifest's token_env, config.json's remote_extensions
  POLICY_TOKEN: 'CANARY-policy-remote-token',
  TEAM_REMOTE_TOKEN: 'CANARY-team-remote-token',
  // the same values under names zot does not know
  COPY_OF_ANTHROPIC: 'sk-ant-CANARY-anthropic',
  COPY_OF_STORED: 'CANARY-stored-in-auth-json',
  COPY_OF_POLICY: 'CANARY-policy-remote-token',
};
/** Passed on: env_passthrough names it. */
const PASSED = { OPENAI_API_KEY: 'sk-CANARY-openai-passed' };
const UNRELATED = { SOME_OTHER_TOKEN: 'not-a-zot-secret' };

function setup(t: { after(fn: () => void): void }) {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  writeFileSync(
    join(box.home, 'config.json'),
    JSON.stringify({
      env_passthrough: ['OPENAI_API_KEY'],
      remote_extensions: { teamsvc: { token_env: 'TEAM_REMOTE_TOKEN' } },
    }),
  );
  // A remote extension of the user's, its token in POLICY_TOKEN (nothing listens there: it
  // fails to connect, which changes nothing here).
  const policy = join(box.home, 'extensions', 'policy');
  mkdirSync(policy, { recursive: true });
  writeFileSync(
    join(policy, 'extension.json'),
    JSON.stringify({
      name: 'policy',
      transport: { type: 'websocket', url: 'ws://127.0.0.1:1/policy', token_env: 'POLICY_TOKEN' },
    }),
  );
  writeFileSync(
    join(box.home, 'auth.json'),
    JSON.stringify({ kimi: { key: 'CANARY-stored-in-auth-json' } }),
    { mode: 0o600 },
  );
  const env = { ...SECRETS, ...PASSED, ...UNRELATED };
  return { box, env };
}

/** The variables of an `env` listing. */
function variables(listing: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const line of listing.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) found.set(line.slice(0, eq), line.slice(eq + 1));
  }
  return found;
}

/** Every string inside a JSON value (a tool result's text, wherever the format puts it). */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
}

function assertScrubbed(listing: string, where: string): void {
  const seen = variables(listing);
  assert.ok(seen.has('PATH'), `${where}: the listing is an env listing`);
  for (const [name, value] of Object.entries(SECRETS)) {
    assert.ok(!seen.has(name), `${where}: ${name} is absent`);
    assert.ok(!listing.includes(value), `${where}: the value of ${name} is absent`);
  }
  assert.equal(seen.get('OPENAI_API_KEY'), PASSED.OPENAI_API_KEY, `${where}: passthrough`);
  assert.equal(seen.get('SOME_OTHER_TOKEN'), UNRELATED.SOME_OTHER_TOKEN, `${where}: the rest`);
}

/** An extension that writes what `env` shows it to $ZOT_TEST_ENV_DUMP at start. */
function writeEnvExtension(parent: string, name: string): string {
  const dir = join(parent, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'extension.json'),
    JSON.stringify({ name, version: '1.0.0', exec: 'node', args: ['ext.mjs'] }),
  );
  const dump =
    "import { execFileSync as runEnv } from 'node:child_process';\n" +
    "import { writeFileSync as dumpEnv } from 'node:fs';\n" +
    "dumpEnv(process.env.ZOT_TEST_ENV_DUMP, runEnv('env', { encoding: 'utf8' }));\n";
  writeFileSync(join(dir, 'ext.mjs'), dump + extensionProgram({ name, tools: [{ name: 'noop' }] }));
  return dir;
}

test("a bash tool call sees none of zot's secrets, and what env_passthrough names", async (t) => {
  const { box, env } = setup(t);
  llm.script({ toolCalls: [{ name: 'bash', args: { command: 'env' } }] }, { text: 'listed' });
  const from = llm.requests.length;
  const result = await runZot([...fakeLlmFlags(llm.url), '-p', 'list the environment'], {
    home: box.home,
    cwd: box.project,
    env,
  });
  assert.equal(result.code, 0, result.stderr);
  const second = llm.requests[from + 1];
  assert.ok(second, 'the tool result went back to the model');
  const results = (second.body.messages as Array<{ content: unknown }>)
    .flatMap((message) => (Array.isArray(message.content) ? message.content : []))
    .filter((block: { type?: string }) => block.type === 'tool_result');
  assertScrubbed(stringsIn(results.at(-1)).join('\n'), 'bash');
});

test('an extension, started by zot and by `zot ext test`, sees none of them either', async (t) => {
  const { box, env } = setup(t);
  writeEnvExtension(join(box.home, 'extensions'), 'envdump');
  const dump = join(box.project, 'env-under-zot.txt');
  llm.script({ text: 'ok' });
  const result = await runZot([...fakeLlmFlags(llm.url), '-p', 'hi'], {
    home: box.home,
    cwd: box.project,
    env: { ...env, ZOT_TEST_ENV_DUMP: dump },
  });
  assert.equal(result.code, 0, result.stderr);
  assert.ok(existsSync(dump), `the extension ran: ${result.stderr}`);
  assertScrubbed(readFileSync(dump, 'utf8'), 'extension');

  const kitDump = join(box.project, 'env-under-kit.txt');
  const kit = await runZot(['ext', 'test', join(box.home, 'extensions', 'envdump')], {
    home: box.home,
    cwd: box.project,
    env: { ...env, ...FAST_TIMEOUTS, ZOT_TEST_ENV_DUMP: kitDump },
    timeoutMs: hangGuard(60_000),
  });
  assert.ok(existsSync(kitDump), `the kit started it: ${kit.stdout}${kit.stderr}`);
  assertScrubbed(readFileSync(kitDump, 'utf8'), 'zot ext test');
});
