// The runtime replaces what used to be fixed at start-up, inside one process: the provider
// (with its own key and base URL), and the session itself (resume a recorded one).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { ZotRpc } from './support/rpc-client.js';
import { makeSandbox, runZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

test('set_model moves between providers: each call uses that provider, key and base URL', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const client = ZotRpc.start(fakeLlmFlags(llm.url), {
    home: box.home,
    cwd: box.project,
    env: { OPENAI_BASE_URL: llm.url, OPENAI_API_KEY: 'sk-openai-env' },
  });
  const switched = await client.request('set_model', { model: 'openai/gpt-5' });
  assert.deepEqual(switched.data, { model: 'gpt-5', provider: 'openai' });
  const state = (await client.request('get_state')).data as Record<string, unknown>;
  assert.equal(state.provider, 'openai');
  assert.deepEqual(
    JSON.parse(readFileSync(join(box.home, 'config.json'), 'utf8')),
    { provider: 'openai', model: 'gpt-5' },
    'the choice is saved for the next run',
  );

  llm.script({ text: 'from openai' });
  client.send({ type: 'prompt', message: 'hi' });
  await client.doneCount(1);
  const toOpenai = llm.requests.at(-1)!;
  assert.equal(toOpenai.format, 'openai-responses');
  assert.equal(toOpenai.headers.authorization, 'Bearer sk-openai-env');
  assert.equal(toOpenai.body.model, 'gpt-5');

  // Back to the start provider: the --api-key and --base-url given for it apply again.
  await client.request('set_model', { model: 'anthropic/claude-haiku-4-5' });
  llm.script({ text: 'from anthropic' });
  client.send({ type: 'prompt', message: 'again' });
  await client.doneCount(2);
  const toAnthropic = llm.requests.at(-1)!;
  assert.equal(toAnthropic.format, 'anthropic');
  assert.equal(toAnthropic.headers['x-api-key'], 'k');
  assert.equal(toAnthropic.headers.authorization, undefined, 'the OpenAI key is not sent');
  // The transcript went along: the second provider saw the first one's answer.
  assert.match(JSON.stringify(toAnthropic.body.messages), /from openai/);
  assert.equal((await client.close()).code, 0);
});

test('a provider without a key: the prompt fails naming it and /login, the session goes on', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const client = ZotRpc.start(fakeLlmFlags(llm.url), { home: box.home, cwd: box.project });
  await client.request('set_model', { model: 'kimi/kimi-k2-0905-preview' });
  const before = llm.requests.length;
  client.send({ type: 'prompt', message: 'hi' });
  await client.doneCount(1);
  const error = client.lines.find((line) => line.type === 'error');
  assert.match(String(error?.message), /no API key for kimi.*\/login/s);
  assert.equal(llm.requests.length, before, 'nothing was sent without a key');
  await client.request('set_model', { model: 'anthropic/claude-haiku-4-5' });
  llm.script({ text: 'fine' });
  client.send({ type: 'prompt', message: 'hi again' });
  await client.doneCount(2);
  assert.ok(client.lines.some((line) => line.type === 'assistant_message'));
  assert.equal((await client.close()).code, 0);
});

test('get_sessions lists recorded sessions newest first; switch_session resumes one in place', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const print = (prompt: string, reply: string, usage: { input: number; output: number }) => {
    llm.script({ text: reply, usage });
    return runZot([...fakeLlmFlags(llm.url), '-p', prompt], { home: box.home, cwd: box.project });
  };
  assert.equal(
    (await print('first topic\nsecond line', 'one', { input: 100, output: 20 })).code,
    0,
  );
  assert.equal((await print('second topic', 'two', { input: 7, output: 3 })).code, 0);

  const client = ZotRpc.start(fakeLlmFlags(llm.url), { home: box.home, cwd: box.project });
  const { sessions } = (await client.request('get_sessions')).data as {
    sessions: Array<Record<string, unknown>>;
  };
  assert.deepEqual(
    sessions.map((s) => [s.first_prompt, s.message_count]),
    [
      ['second topic', 2],
      ['first topic', 2],
    ],
  );
  assert.match(String(sessions[1]!.model), /^anthropic\//);
  assert.ok((sessions[1]!.cost_usd as number) > (sessions[0]!.cost_usd as number));

  const older = String(sessions[1]!.path);
  const resumed = await client.request('switch_session', { path: older });
  assert.deepEqual(resumed.data, { session_file: older, message_count: 2 });
  const state = (await client.request('get_state')).data as {
    usage: { input: number; output: number };
    context: { used: number; window: number };
    session_file: string;
  };
  assert.deepEqual([state.usage.input, state.usage.output], [100, 20]);
  assert.equal(state.context.used, 120, 'the context meter is restored');
  assert.ok(state.context.window > 0);

  llm.script({ text: 'continued' });
  client.send({ type: 'prompt', message: 'go on' });
  await client.doneCount(1);
  assert.match(JSON.stringify(llm.requests.at(-1)!.body.messages), /first topic/);
  const roles = readFileSync(older, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.type === 'message')
    .map((entry) => entry.message.role);
  assert.deepEqual(roles, ['user', 'assistant', 'user', 'assistant'], 'appended to that file');

  const missing = await client.request('switch_session', {
    path: join(box.project, 'nope.jsonl'),
  });
  assert.equal(missing.success, false);
  assert.match(String(missing.error), /nope\.jsonl/);
  assert.equal((await client.close()).code, 0);
});
