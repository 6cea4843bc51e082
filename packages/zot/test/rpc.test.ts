import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { ZotRpc } from './support/rpc-client.js';
import { hangGuard } from './support/timing.js';
import { makeSandbox } from './support/zot.js';

let llm: FakeLlm;
const box = makeSandbox();
before(async () => {
  llm = await startFakeLlm();
});
after(async () => {
  await llm.close();
  box.cleanup();
});

const start = (env: Record<string, string> = {}) =>
  ZotRpc.start(['--base-url', llm.url, '--api-key', 'k'], {
    home: box.home,
    cwd: box.project,
    env,
  });

test('token: a wrong or missing hello gets success:false and the server exits', async () => {
  const client = start({ ZOTCORE_RPC_TOKEN: 'secret' });
  client.send({ id: 'p', type: 'ping' });
  const response = await client.waitFor((line) => line.type === 'response');
  assert.equal(response.success, false);
  assert.equal(response.id, 'p');
  assert.match(String(response.error), /unauthorized/);
  assert.equal((await client.exited).code, 1);

  const good = start({ ZOTCORE_RPC_TOKEN: 'secret' });
  const hello = await good.request('hello', { token: 'secret' });
  assert.equal(hello.success, true);
  assert.deepEqual(Object.keys(hello.data as object).sort(), [
    'model',
    'protocol_version',
    'provider',
    'version',
  ]);
  assert.equal((await good.request('ping')).success, true);
  assert.equal((await good.close()).code, 0);
});

test('malformed lines get error responses and the server keeps serving', async () => {
  const client = start();
  client.sendRaw('this is not json\n');
  client.sendRaw('[1,2]\n');
  client.sendRaw('{"id":"u","type":"teleport"}\n');
  client.sendRaw('{"id":"m","type":"prompt","message":42}\n');
  client.sendRaw('{"id":7,"type":"set_model"}\n');
  const responses = await client.waitFor(
    () => client.lines.filter((l) => l.type === 'response').length >= 5,
  );
  void responses;
  const errors = client.lines
    .filter((l) => l.type === 'response')
    .map((l) => [l.id, l.command, l.success, l.error]);
  assert.match(String(errors[0]![3]), /invalid JSON/);
  assert.match(String(errors[1]![3]), /must be a JSON object/);
  assert.deepEqual(errors[2]!.slice(0, 3), ['u', 'teleport', false]);
  assert.match(String(errors[2]![3]), /unknown command "teleport"/);
  assert.deepEqual(errors[3]!.slice(0, 3), ['m', 'prompt', false]);
  assert.match(String(errors[3]![3]), /\/message/);
  assert.deepEqual(errors[4]!.slice(0, 3), [7, 'set_model', false]);
  const pong = await client.request('ping');
  assert.deepEqual(pong.data, { pong: true });
  await client.close();
});

test('prompt, queueing, state, messages, models, set_model, clear', async () => {
  const client = start();
  llm.script({ text: 'first answer' }, { text: 'second answer' });
  const first = await client.request('prompt', { message: 'one' });
  assert.deepEqual(first.data, { started: true });
  const second = await client.request('prompt', { message: 'two' });
  assert.equal(second.success, true);
  const lines = await client.doneCount(2);
  const texts = lines
    .filter((l) => l.type === 'assistant_message')
    .map((l) => (l.content as Array<{ text: string }>)[0]!.text);
  assert.deepEqual(texts, ['first answer', 'second answer']);
  // The second prompt started only after the first finished.
  const firstDone = lines.findIndex((l) => l.type === 'done');
  const secondUser = lines.findIndex(
    (l, i) =>
      l.type === 'user_message' &&
      i > 0 &&
      lines.slice(0, i).some((x) => x.type === 'user_message'),
  );
  assert.ok(secondUser > firstDone);

  const state = await client.request('get_state');
  const data = state.data as Record<string, unknown>;
  assert.equal(data.message_count, 4);
  assert.equal(data.busy, false);
  assert.equal(data.session_file, null);
  assert.equal((data.usage as { input: number }).input > 0, true);

  const messages = await client.request('get_messages');
  assert.deepEqual(
    (messages.data as { messages: Array<{ role: string }> }).messages.map((m) => m.role),
    ['user', 'assistant', 'user', 'assistant'],
  );
  const models = await client.request('get_models');
  const ids = (models.data as { models: Array<{ id: string; context_window: number }> }).models.map(
    (m) => m.id,
  );
  assert.ok(ids.includes('claude-sonnet-4-5'));
  const switched = await client.request('set_model', { model: 'claude-haiku-4-5' });
  assert.deepEqual(switched.data, { model: 'claude-haiku-4-5', provider: 'anthropic' });
  assert.equal((await client.request('clear')).success, true);
  assert.equal(
    ((await client.request('get_state')).data as { message_count: number }).message_count,
    0,
  );
  await client.close();
});

test('abort stops a hanging prompt; busy requests are refused; images reach the model', async () => {
  const client = start();
  llm.script({ text: ['thinking...'], hang: true });
  await client.request('prompt', {
    message: 'hang',
    images: [{ mime_type: 'image/png', data: 'iVBORw0KGgo=' }],
  });
  await client.waitFor((line) => line.type === 'text_delta');
  const busy = await client.request('clear');
  assert.equal(busy.success, false);
  assert.equal(busy.error, 'agent is busy');
  const from = client.lines.length;
  await client.request('abort');
  await client.waitFor((line) => line.type === 'done', hangGuard(5000), from);
  const after = client.lines.slice(from);
  assert.ok(after.some((l) => l.type === 'turn_end' && l.stop === 'aborted'));
  const content = llm.requests.at(-1)!.body.messages[0].content;
  assert.equal(content[1].type, 'image');
  const messages = await client.request('get_messages');
  const image = (messages.data as { messages: Array<{ content: Array<Record<string, unknown>> }> })
    .messages[0]!.content[1];
  assert.deepEqual(image, { type: 'image', mime_type: 'image/png', bytes: 8 });
  await client.close();
});

test('an abort right behind a prompt (one write) aborts that prompt before it calls the model', async () => {
  const client = start();
  const sent = llm.requests.length;
  // Both lines arrive in one chunk: the abort is handled after the prompt started, not before.
  client.sendRaw('{"id":"p","type":"prompt","message":"never mind"}\n{"id":"a","type":"abort"}\n');
  const done = await client.waitFor((line) => line.type === 'done', hangGuard(10_000));
  assert.equal(done.id, 'p');
  assert.ok(client.lines.some((l) => l.type === 'turn_end' && l.stop === 'aborted'));
  assert.equal(llm.requests.length, sent, 'the model was never called');
  await client.close();
});

test('abort with queue drops the waiting prompts too: none of them reaches the model', async () => {
  const client = start();
  llm.script({ text: ['working...'], hang: true });
  const sent = llm.requests.length;
  await client.request('prompt', { message: 'long one' });
  await client.waitFor((line) => line.type === 'text_delta');
  await client.request('prompt', { message: 'queued 1' });
  await client.request('prompt', { message: 'queued 2' });
  await client.request('prompt', { message: 'steer me', mode: 'steer' });
  const from = client.lines.length;
  const cancelled = await client.request('abort', { queue: true });
  assert.deepEqual(cancelled.data, { dropped: 3 });
  const lines = await client.doneCount(3, from);
  assert.equal(lines.filter((line) => line.type === 'done').length, 3, 'each prompt has its done');
  const queue = client.lines.filter((line) => line.type === 'queue').at(-1);
  assert.deepEqual([queue?.follow_up, queue?.steering], [[], []]);
  assert.equal(llm.requests.length, sent + 1, 'only the running prompt was ever sent');
  const messages = (await client.request('get_messages')).data as {
    messages: Array<{ role: string }>;
  };
  assert.ok(!JSON.stringify(messages).includes('queued 1'));
  // The session goes on.
  llm.script({ text: 'fresh' });
  await client.request('prompt', { message: 'next' });
  await client.waitFor(
    (line) => line.type === 'assistant_message' && JSON.stringify(line).includes('fresh'),
  );
  await client.close();
});

test('compact summarises the transcript and keeps the last exchanges', async () => {
  const client = start();
  llm.script({ text: 'a1' }, { text: 'a2' }, { text: 'a3' }, { text: 'SUMMARY OF A1' });
  for (const message of ['q1', 'q2', 'q3']) await client.request('prompt', { message });
  await client.doneCount(3);
  const from = client.lines.length;
  await client.request('compact');
  const done = await client.waitFor(
    (line) => line.type === 'compact_done',
    hangGuard(10_000),
    from,
  );
  assert.equal(done.summary, 'SUMMARY OF A1');
  const summaryRequest = llm.requests.at(-1)!;
  assert.match(JSON.stringify(summaryRequest.body.messages), /q1/);
  assert.doesNotMatch(JSON.stringify(summaryRequest.body.messages), /q3/);
  const messages = (await client.request('get_messages')).data as {
    messages: Array<{ role: string; content: Array<{ text?: string }> }>;
  };
  assert.equal(messages.messages.length, 5);
  assert.match(messages.messages[0]!.content[0]!.text!, /SUMMARY OF A1/);
  assert.equal(messages.messages[1]!.content[0]!.text, 'q2');
  await client.close();
});
