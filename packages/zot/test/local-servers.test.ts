// Local and OpenAI-compatible servers, end to end against the scripted model over real HTTP:
// the named local servers, their model lists, keys only where a server is not on this machine,
// and models.json entries that decide the wire API and never let a model go elsewhere.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { startProxy, type ProxyServer } from './support/proxy-server.js';
import { makeSandbox, runZot } from './support/zot.js';

let llm: FakeLlm;
let proxy: ProxyServer;
const box = makeSandbox();
before(async () => {
  [llm, proxy] = await Promise.all([startFakeLlm(), startProxy()]);
});
after(async () => {
  await Promise.all([llm.close(), proxy.close()]);
  box.cleanup();
});

const modelsJson = join(box.home, 'models.json');
const run = (args: string[], env: Record<string, string> = {}) =>
  runZot([...args, '--no-session'], { home: box.home, cwd: box.project, env });

test('a local server without --model: its first listed model, no key, Chat Completions', async () => {
  llm.serveModels(['served-first', 'served-second']);
  llm.script({ text: 'from vllm' }, { text: 'again' });
  const first = await run(['-p', 'hi', '--provider', 'vllm', '--base-url', llm.url]);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.stdout, 'from vllm\n');
  const request = llm.requests.at(-1)!;
  assert.equal(request.format, 'openai-chat');
  assert.equal(request.body.model, 'served-first');
  assert.equal(request.headers.authorization, undefined, 'no key for a server on this machine');
  assert.match(first.stderr, /using vllm\/served-first, the first model its server lists/);
  assert.match(first.stderr, /zot knows no limits for vllm\/served-first/);

  const second = await run(['-p', 'hi', '--provider', 'vllm', '--base-url', llm.url]);
  assert.equal(second.code, 0, second.stderr);
  assert.equal(second.stderr, '', 'both notes were said once');
});

test('a local server that is not running: the error says so and how to go on (exit 1)', async (t) => {
  const gone = await startFakeLlm();
  await gone.close(); // nothing listens there now
  const result = await run(['-p', 'hi', '--provider', 'llamacpp', '--base-url', gone.url]);
  assert.equal(result.code, 1);
  assert.match(
    result.stderr,
    /llamacpp has no default model, and its server could not be asked for its models \(http:\/\/127\.0\.0\.1:\d+\/v1\/models: .*ECONNREFUSED.*\)\. Is the server running\? Or name the model with --model <id>\./,
  );
  t.diagnostic(result.stderr.trim());
});

test("--list-models asks a local server what it serves, with models.json's limits", async (t) => {
  t.after(() => rmSync(modelsJson, { force: true }));
  writeFileSync(
    modelsJson,
    JSON.stringify([
      { provider: 'lmstudio', id: 'qwen-coder', contextWindow: 32768, maxTokens: 4096 },
      { provider: 'lmstudio', id: 'elsewhere', baseUrl: 'http://127.0.0.1:9/v1' },
    ]),
  );
  llm.serveModels(['qwen-coder', 'gemma\u001b[31m-red', 'phi-4']);
  const result = await run(['--list-models', '--provider', 'lmstudio', '--base-url', llm.url]);
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(result.stdout.trim().split('\n'), [
    'qwen-coder\tcontext 32768\tmax output 4096\t$0/$0 per Mtok',
    'phi-4\tcontext 128000\tmax output 8192\t$0/$0 per Mtok\tdefault limits',
    'elsewhere\tcontext 128000\tmax output 8192\t$0/$0 per Mtok\tin models.json, not listed by the server',
  ]);
  assert.equal(llm.requests.at(-1)!.path, '/v1/models');
});

test('a server not on this machine needs a key; the error names the server and the way out', async () => {
  const before = llm.requests.length + proxy.seen.length;
  const result = await run(
    [
      '-p',
      'hi',
      '--provider',
      'vllm',
      '--model',
      'm',
      '--base-url',
      'http://gpu-box.invalid:8000/v1',
    ],
    { http_proxy: proxy.url },
  );
  assert.equal(result.code, 1);
  assert.match(result.stderr, /no API key for vllm\. Provide one with --api-key, the VLLM_API_KEY/);
  assert.match(
    result.stderr,
    /The server at http:\/\/gpu-box\.invalid:8000\/v1 is not on this machine\./,
  );
  assert.match(
    result.stderr,
    /If that server needs no key, any value will do \(e\.g\. VLLM_API_KEY=none\)/,
  );
  assert.equal(llm.requests.length + proxy.seen.length, before, 'nothing was sent');
});

test('a models.json entry with a baseUrl and no "api" is spoken to with Chat Completions', async (t) => {
  t.after(() => rmSync(modelsJson, { force: true }));
  writeFileSync(
    modelsJson,
    JSON.stringify([{ provider: 'openai', id: 'my-model', baseUrl: `${llm.url}/v1` }]),
  );
  llm.script({ text: 'chat it is' });
  const result = await run(['-p', 'hi', '--provider', 'openai', '--model', 'my-model']);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, 'chat it is\n');
  assert.equal(llm.requests.at(-1)!.path, '/v1/chat/completions');
  assert.equal(result.stderr, '', 'a model described in models.json gets no note');

  // "api" says otherwise: it is kept.
  writeFileSync(
    modelsJson,
    JSON.stringify([
      { provider: 'openai', id: 'my-model', baseUrl: llm.url, api: 'openai-responses' },
    ]),
  );
  llm.script({ text: 'responses' });
  const fixed = await run(['-p', 'hi', '--provider', 'openai', '--model', 'my-model']);
  assert.equal(fixed.code, 0, fixed.stderr);
  assert.equal(llm.requests.at(-1)!.path, '/v1/responses');
});

test('a bad models.json entry for the model asked for: exit 1, naming it, nothing sent anywhere', async (t) => {
  t.after(() => rmSync(modelsJson, { force: true }));
  // Skipped, this entry left `my-model` to OpenAI's own API, with the user's key (through the
  // proxy here, which would see the CONNECT).
  writeFileSync(
    modelsJson,
    JSON.stringify([
      { provider: 'openai', id: 'other', baseUrl: llm.url },
      { provider: 'openai', id: 'my-model', baseUrl: llm.url, api: 'chat' },
    ]),
  );
  const before = llm.requests.length + proxy.seen.length;
  const env = { OPENAI_API_KEY: 'sk-real', https_proxy: proxy.url, http_proxy: proxy.url };
  const result = await run(['-p', 'hi', '--provider', 'openai', '--model', 'my-model'], env);
  assert.equal(result.code, 1, result.stderr);
  assert.match(
    result.stderr,
    /the models\.json entry for openai\/my-model is invalid, so no request is sent for it: .*models\.json: entry 1: field "api" must be one of anthropic-messages, openai-chat, openai-responses \(got "chat"\)\. Fix the entry/,
  );
  // /model to it in a running session is refused the same way; the session goes on.
  const switched = await run(
    ['-p', '/model openai/my-model', '--provider', 'openai', '--model', 'other'],
    env,
  );
  assert.equal(switched.code, 1);
  assert.match(switched.stderr, /the models\.json entry for openai\/my-model is invalid/);
  assert.equal(llm.requests.length + proxy.seen.length, before, 'nothing was sent anywhere');

  // A file that is not a list of models at all: any model may be configured in it.
  writeFileSync(modelsJson, '[{"provider": "openai", "id": "my-model",');
  const broken = await run(['-p', 'hi', '--provider', 'openai', '--model', 'my-model'], env);
  assert.equal(broken.code, 1);
  assert.match(broken.stderr, /models\.json: invalid JSON.*fix it and run again/);
  assert.equal(llm.requests.length + proxy.seen.length, before, 'nothing was sent anywhere');
});

test('flags are for their run: --provider, --model, --base-url and --reasoning save nothing', async (t) => {
  const own = makeSandbox();
  t.after(() => own.cleanup());
  llm.script({ text: 'one' });
  const flagged = await runZot(
    ['-p', 'hi', '--provider', 'vllm', '--model', 'm', '--base-url', llm.url, '--reasoning', 'low'],
    { home: own.home, cwd: own.project },
  );
  assert.equal(flagged.code, 0, flagged.stderr);
  assert.equal(existsSync(join(own.home, 'config.json')), false, 'nothing was saved');
  // /model saves, in print mode as in the TUI; config.json's other settings stay.
  writeFileSync(join(own.home, 'config.json'), JSON.stringify({ theme: 'paper' }));
  const chose = await runZot(['-p', '/model vllm/served-model'], {
    home: own.home,
    cwd: own.project,
  });
  assert.equal(chose.code, 0, chose.stderr);
  assert.deepEqual(JSON.parse(readFileSync(join(own.home, 'config.json'), 'utf8')), {
    theme: 'paper',
    provider: 'vllm',
    model: 'served-model',
  });
});
