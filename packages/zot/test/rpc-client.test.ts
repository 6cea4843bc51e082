// @zot/rpc-client against a real `zot rpc` and the scripted fake LLM: prompts as event
// streams, abort mid-stream, confirmations, closing, and zot going away.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { RpcClient, RpcClosedError, type RpcEvent, type RpcEventOf } from '@zot/rpc-client';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { ZotRpc } from './support/rpc-client.js';
import { cleanEnv, makeSandbox, ZOT_BIN } from './support/zot.js';

let llm: FakeLlm;
const box = makeSandbox();
before(async () => {
  llm = await startFakeLlm();
});
after(async () => {
  await llm.close();
  box.cleanup();
});

const start = (args: string[] = []) =>
  ZotRpc.start([...fakeLlmFlags(llm.url), ...args], { home: box.home, cwd: box.project });

const textOf = (events: RpcEvent[]) =>
  events.flatMap((event) => (event.type === 'text_delta' ? [event.delta] : [])).join('');

test('prompt(): each stream yields its own prompt, from its user_message to its done', async (t) => {
  const zot = start();
  t.after(() => zot.close());
  llm.script({ text: ['first ', 'answer'] }, { text: 'second answer' });
  // Both sent at once: the second waits in zot's queue, and its stream starts after the first.
  const first = zot.client.prompt('one');
  const second = zot.client.prompt('two');
  const [one, two] = await Promise.all([first.events(), second.events()]);
  assert.equal(textOf(one), 'first answer');
  assert.equal(textOf(two), 'second answer');
  for (const [events, prompt, id] of [
    [one, 'one', first.id],
    [two, 'two', second.id],
  ] as const) {
    const user = events.find((e): e is RpcEventOf<'user_message'> => e.type === 'user_message');
    assert.deepEqual(user?.content, [{ type: 'text', text: prompt }]);
    assert.deepEqual(events.at(-1), { type: 'done', id });
    assert.equal(events.filter((e) => e.type === 'done').length, 1);
  }
  assert.equal((await first.response).success, true);
  // Typed responses: the state's fields, as the schema says.
  const state = await zot.client.request('get_state');
  assert.equal(state.success && state.data.message_count, 4);
});

test('abort() mid-stream: the stream ends with turn_end aborted and done', async (t) => {
  const zot = start();
  t.after(() => zot.close());
  llm.script({ text: ['partial ', 'never'], hang: true });
  const seen: string[] = [];
  for await (const event of zot.client.prompt('go on forever')) {
    seen.push(event.type === 'turn_end' ? `turn_end:${event.stop}` : event.type);
    if (event.type === 'text_delta') {
      const aborted = await zot.client.abort();
      assert.equal(aborted.success, true);
    }
  }
  assert.ok(seen.includes('text_delta'), seen.join(' '));
  // The idle state comes last before done.
  assert.deepEqual(
    seen.filter((type) => type !== 'state').slice(-2),
    ['turn_end:aborted', 'done'],
    seen.join(' '),
  );
  assert.equal(seen.at(-1), 'done');
});

test('command(): the stream ends with command_done, also when the command compacted', async (t) => {
  const zot = start();
  t.after(() => zot.close());
  // Nothing to compact yet: the compaction fails and ends with its done; the command's
  // command_done comes after that and ends the stream.
  const compact = zot.client.command('/compact');
  const events = await compact.events();
  const types = events.map((event) => event.type);
  assert.ok(types.indexOf('done') >= 0 && types.indexOf('done') < types.length - 1, types.join());
  // One error event: the compaction's (the command's result does not repeat it).
  const errors = events.filter((e): e is RpcEventOf<'error'> => e.type === 'error');
  assert.deepEqual(
    errors.map((error) => [error.kind, error.message]),
    [['failed', 'nothing to compact yet']],
  );
  assert.deepEqual(events.at(-1), {
    type: 'command_done',
    id: compact.id,
    name: 'compact',
    action: 'error',
  });
  // The request's id ends the command; the compaction's done carries none.
  const done = events.find((e): e is RpcEventOf<'done'> => e.type === 'done');
  assert.equal(done?.id, undefined);
});

test('onConfirm answers confirm_request: allow runs the tool, deny refuses it', async (t) => {
  const zot = start(['--no-yolo']);
  t.after(() => zot.close());
  writeFileSync(join(box.project, 'note.txt'), 'the note\n');
  const asked: string[] = [];
  zot.client.onConfirm((request) => {
    asked.push(request.tool_id);
    return request.tool_id === 'allowed' ? 'allow' : 'deny';
  });
  llm.script(
    {
      toolCalls: [
        { id: 'allowed', name: 'read', args: { path: 'note.txt' } },
        { id: 'denied', name: 'read', args: { path: 'note.txt' } },
      ],
    },
    { text: 'read it' },
  );
  const events = await zot.client.prompt('read the note twice').events();
  assert.deepEqual(asked, ['allowed', 'denied']);
  const results = events.filter((e): e is RpcEventOf<'tool_result'> => e.type === 'tool_result');
  assert.deepEqual(
    results.map((result) => [result.id, result.is_error]),
    [
      ['allowed', false],
      ['denied', true],
    ],
  );
  assert.match(JSON.stringify(results[0]!.content), /the note/);
});

test('a confirm handler that throws denies the call and is reported, not thrown', async (t) => {
  const zot = start(['--no-yolo']);
  t.after(() => zot.close());
  zot.client.onConfirm(() => {
    throw new Error('no one is here');
  });
  llm.script(
    { toolCalls: [{ id: 'x', name: 'read', args: { path: 'note.txt' } }] },
    { text: 'ok' },
  );
  const events = await zot.client.prompt('read').events();
  const result = events.find((e): e is RpcEventOf<'tool_result'> => e.type === 'tool_result');
  assert.equal(result?.is_error, true);
  assert.deepEqual(
    zot.problems.map((problem) => problem.name),
    ['RpcHandlerError'],
  );
  assert.match(zot.problems[0]!.message, /read \(x\); denied: no one is here/);
});

test('close() rejects what is pending at once, and zot exits cleanly', async () => {
  const zot = start();
  const ping = zot.client.request('ping');
  const prompt = zot.client.prompt('hang');
  // The abort goes out before the end of input: the prompt stops before it calls the model.
  const exited = zot.client.close({ abort: true });
  await assert.rejects(ping, (error: Error) => error instanceof RpcClosedError);
  await assert.rejects(prompt.events(), { name: 'RpcClosedError' });
  assert.deepEqual(await exited, { code: 0, signal: null });
  await assert.rejects(zot.client.request('ping'), { name: 'RpcClosedError' });
});

test('zot going away rejects pending requests with how it ended', async () => {
  const zot = start();
  llm.script({ text: ['slow'], hang: true });
  await zot.client.request('ping');
  const prompt = zot.client.prompt('hang');
  await zot.waitFor((line) => line.type === 'text_delta');
  zot.child.kill('SIGKILL');
  await assert.rejects(prompt.events(), (error: Error) => {
    assert.equal(error.name, 'RpcClosedError');
    assert.match(error.message, /zot was killed by SIGKILL/);
    return true;
  });
});

test('RpcClient.spawn finds zot on PATH and runs it in the given directory', async (t) => {
  const bin = join(box.home, '..', 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'zot'), `#!/bin/sh\nexec "${process.execPath}" "${ZOT_BIN}" "$@"\n`);
  chmodSync(join(bin, 'zot'), 0o755);
  const env = cleanEnv(box.home, { PATH: `${bin}:${process.env.PATH}` });
  const client = RpcClient.spawn({ args: fakeLlmFlags(llm.url), cwd: box.project, env });
  t.after(() => client.close());
  const state = await client.request('get_state');
  assert.equal(state.success && state.data.cwd, box.project);
  llm.script({ text: 'spawned' });
  assert.equal(textOf(await client.prompt('hi').events()), 'spawned');
  assert.deepEqual(await client.close(), { code: 0, signal: null });
});
