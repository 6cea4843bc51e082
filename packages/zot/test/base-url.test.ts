// Where requests go: --base-url, the model's models.json entry, ANTHROPIC_BASE_URL /
// OPENAI_BASE_URL, the provider's API; and invalid base URLs are refused with names.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { makeSandbox, runZot } from './support/zot.js';

let right: FakeLlm;
let wrong: FakeLlm;
const box = makeSandbox();
before(async () => {
  [right, wrong] = await Promise.all([startFakeLlm(), startFakeLlm()]);
});
after(async () => {
  await Promise.all([right.close(), wrong.close()]);
  box.cleanup();
});

const modelsJson = join(box.home, 'models.json');
// Anthropic unless a test says otherwise (a run with --provider saves it as the default).
const run = (args: string[], env: Record<string, string> = {}) =>
  runZot(
    [...args, '--no-session', ...(args.includes('--provider') ? [] : ['--provider', 'anthropic'])],
    {
      home: box.home,
      cwd: box.project,
      env,
    },
  );

test('--base-url that is not an http(s) URL is a usage error naming the flag and value', async () => {
  for (const value of ['notaurl', 'localhost:8000', 'ftp://host', 'http://[::']) {
    const result = await run(['-p', 'hi', '--api-key', 'k', '--base-url', value]);
    assert.equal(result.code, 2, `${value}: ${result.stderr}`);
    assert.ok(
      result.stderr.includes(`--base-url expects an http:// or https:// URL`) &&
        result.stderr.includes(`got "${value}"`),
      result.stderr,
    );
    assert.equal(result.stdout, '');
  }
});

test('ANTHROPIC_BASE_URL and OPENAI_BASE_URL are read; the flag beats them', async () => {
  right.script({ text: 'from env' });
  const env = await run(['-p', 'hi', '--provider', 'anthropic', '--api-key', 'k'], {
    ANTHROPIC_BASE_URL: right.url,
  });
  assert.equal(env.code, 0, env.stderr);
  assert.equal(env.stdout, 'from env\n');

  // An unknown model on a server of your own speaks Chat Completions and needs no key, as with
  // --base-url.
  right.script({ text: 'from openai env' });
  const openai = await run(['-p', 'hi', '--provider', 'openai', '--model', 'my-local'], {
    OPENAI_BASE_URL: `${right.url}/v1`,
  });
  assert.equal(openai.code, 0, openai.stderr);
  assert.equal(openai.stdout, 'from openai env\n');
  assert.equal(right.requests.at(-1)!.format, 'openai-chat');

  const before = wrong.requests.length;
  right.script({ text: 'from flag' });
  const flag = await run(['-p', 'hi', '--api-key', 'k', '--base-url', right.url], {
    ANTHROPIC_BASE_URL: wrong.url,
  });
  assert.equal(flag.code, 0, flag.stderr);
  assert.equal(flag.stdout, 'from flag\n');
  assert.equal(wrong.requests.length, before, 'the variable was not used');
});

test("a models.json entry's baseUrl beats the provider-wide variable", async (t) => {
  t.after(() => rmSync(modelsJson, { force: true }));
  writeFileSync(
    modelsJson,
    JSON.stringify([{ provider: 'anthropic', id: 'mine', baseUrl: right.url }]),
  );
  const before = wrong.requests.length;
  right.script({ text: 'from the entry' });
  const result = await run(['-p', 'hi', '--model', 'mine', '--api-key', 'k'], {
    ANTHROPIC_BASE_URL: wrong.url,
  });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, 'from the entry\n');
  assert.equal(wrong.requests.length, before);
});

test('an invalid base URL in the environment or in models.json is an error naming it', async (t) => {
  const env = await run(['-p', 'hi', '--api-key', 'k'], { ANTHROPIC_BASE_URL: 'nope' });
  assert.equal(env.code, 2, env.stderr);
  assert.match(
    env.stderr,
    /ANTHROPIC_BASE_URL expects an http:\/\/ or https:\/\/ URL .*got "nope"/,
  );

  t.after(() => rmSync(modelsJson, { force: true }));
  writeFileSync(
    modelsJson,
    JSON.stringify([{ provider: 'anthropic', id: 'mine', baseUrl: 'http://[::' }]),
  );
  const requests = right.requests.length + wrong.requests.length;
  for (const args of [['-p', 'hi', '--model', 'mine', '--api-key', 'k'], ['--list-models']]) {
    const result = await run(args);
    assert.equal(result.code, 1, result.stderr);
    assert.ok(
      result.stderr.includes(
        `${modelsJson}: entry 0: field "baseUrl" must be an http:// or https:// URL`,
      ),
      result.stderr,
    );
    assert.match(result.stderr, /got "http:\/\/\[::"/);
  }
  assert.equal(right.requests.length + wrong.requests.length, requests, 'no request was made');
});

test('ZOT_OPENAI_BASE_URL is read before OPENAI_BASE_URL, which other tools may have set', async () => {
  const before = wrong.requests.length;
  right.script({ text: 'from zot variable' });
  const result = await run(['-p', 'hi', '--provider', 'openai', '--model', 'my-local'], {
    ZOT_OPENAI_BASE_URL: right.url,
    OPENAI_BASE_URL: wrong.url,
  });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, 'from zot variable\n');
  assert.equal(wrong.requests.length, before);
});

test('zot --help documents the variables and the order', async () => {
  const help = await runZot(['--help'], { home: box.home });
  assert.match(help.stdout, /ANTHROPIC_BASE_URL, ZOT_OPENAI_BASE_URL, OPENAI_BASE_URL/);
  assert.match(
    help.stdout,
    /Order: --base-url, the model's baseUrl in models\.json, then\s+ZOT_OPENAI_BASE_URL \(zot's own\), OPENAI_BASE_URL/,
  );
});
