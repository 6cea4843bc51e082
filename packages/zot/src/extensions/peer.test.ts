// The peer takes a reply only when its type is the one its request expects.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { getEventListeners } from 'node:events';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { FrameFromHost } from '@zot/protocol';
import { Peer, RequestError } from './peer.js';

function peer() {
  const sent: FrameFromHost[] = [];
  // Its clock is Date.now(), which the tests that mock timers drive (performance.now is not mocked).
  const clock = () => Date.now();
  return { sent, peer: new Peer((frame) => void sent.push(frame), undefined, undefined, clock) };
}

test('a reply of the wrong type is refused and the request keeps waiting for its own', async () => {
  const { sent, peer: p } = peer();
  const call = p.request({ type: 'tool_call', name: 't', args: {} }, 'tool t', 60_000);
  const id = (sent[0] as { id: string }).id;
  assert.deepEqual(p.resolve({ type: 'command_response', id, action: 'noop' }), {
    expected: 'tool_result',
  });
  assert.equal(p.fail(id, 'event_intercept_response', 'malformed'), false);
  assert.equal(p.pendingCount, 1);
  assert.equal(p.resolve({ type: 'tool_result', id, content: [] }), 'resolved');
  const reply = await call;
  assert.equal(reply.type, 'tool_result');
  assert.equal(p.resolve({ type: 'tool_result', id, content: [] }), 'unknown', 'late');
});

test('each request names its reply type; a malformed reply of that type fails it at once', async () => {
  const { sent, peer: p } = peer();
  const command = p.request({ type: 'command_invoked', name: 'c', args: '' }, '/c', 60_000);
  const intercept = p.request(
    { type: 'event_intercept', event: 'turn_start', step: 1 },
    'intercept',
    60_000,
  );
  const [commandId, interceptId] = sent.map((frame) => (frame as { id: string }).id);
  assert.notEqual(commandId, interceptId);
  assert.deepEqual(p.resolve({ type: 'event_intercept_response', id: commandId! }), {
    expected: 'command_response',
  });
  assert.equal(p.fail(interceptId!, 'event_intercept_response', 'bad block'), true);
  await assert.rejects(intercept, (error: RequestError) => error.reason === 'invalid');
  assert.equal(p.resolve({ type: 'command_response', id: commandId!, action: 'noop' }), 'resolved');
  assert.equal((await command).action, 'noop');
});

test('close fails every pending request and refuses new ones', async () => {
  const { peer: p } = peer();
  const call = p.request({ type: 'tool_call', name: 't' }, 'tool t', 60_000);
  p.close('gone');
  await assert.rejects(call, (error: RequestError) => error.reason === 'closed');
  await assert.rejects(
    p.request({ type: 'tool_call', name: 't' }, 'tool t', 60_000),
    (error: RequestError) => error.reason === 'closed',
  );
});

test('a paused deadline stops its clock, runs on from where it stopped, and pauses within a budget', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const { sent, peer: p } = peer();
  const call = p.request({ type: 'tool_call', name: 't' }, 'tool t', 1_000);
  let failed: RequestError | undefined;
  call.catch((error: RequestError) => (failed = error));
  const id = (sent[0] as { id: string }).id;
  t.mock.timers.tick(400);
  assert.equal(p.pause(id, 5_000), true);
  assert.equal(p.pause(id, 5_000), false, 'already paused');
  t.mock.timers.tick(3_000);
  assert.equal(p.resume(id), true);
  assert.equal(p.resume(id), false, 'already running');
  t.mock.timers.tick(599);
  await Promise.resolve();
  assert.equal(failed, undefined, '600 ms were left when it paused');
  // 3 s of the 5 s budget are spent: this pause lasts 2 s, then the clock runs on by itself.
  assert.equal(p.pause(id, 5_000), true);
  t.mock.timers.tick(2_000);
  assert.equal(p.pendingCount, 1);
  assert.equal(p.pause(id, 5_000), false, 'the budget is spent');
  t.mock.timers.tick(1);
  await assert.rejects(call, (error: RequestError) => error.reason === 'timeout');
  assert.equal(p.pause(id, 5_000), false, 'no such request');
});

test('requests sharing one signal: an abort fails those still waiting, in order, and tells the other side of each', async () => {
  const sent: FrameFromHost[] = [];
  const abandoned: string[] = [];
  const p = new Peer(
    (frame) => void sent.push(frame),
    () => undefined,
    (frame, reason) => void abandoned.push(`${frame.id} ${reason}`),
  );
  const controller = new AbortController();
  const calls = [0, 1, 2, 3].map((i) =>
    p.request(
      { type: 'tool_call', name: 't', args: { i } },
      `tool t${i}`,
      60_000,
      controller.signal,
    ),
  );
  const settled: string[] = [];
  calls.forEach((call, i) =>
    call.then(
      () => settled.push(`${i} ok`),
      (error: RequestError) => settled.push(`${i} ${error.reason}`),
    ),
  );
  const ids = sent.map((frame) => (frame as { id: string }).id);
  assert.equal(p.resolve({ type: 'tool_result', id: ids[1]!, content: [] }), 'resolved');
  // One listener on the signal, however many requests wait on it.
  assert.equal(getEventListeners(controller.signal, 'abort').length, 1);
  controller.abort();
  await Promise.allSettled(calls);
  assert.deepEqual(settled, ['1 ok', '0 aborted', '2 aborted', '3 aborted']);
  assert.deepEqual(abandoned, [`${ids[0]} aborted`, `${ids[2]} aborted`, `${ids[3]} aborted`]);
  assert.equal(p.pendingCount, 0);
  // A request on a signal already aborted fails at once, and sends nothing.
  await assert.rejects(
    p.request({ type: 'tool_call', name: 't', args: {} }, 'tool t', 60_000, controller.signal),
    (error: RequestError) => error.reason === 'aborted',
  );
  assert.equal(sent.length, 4);
});

test('a request that settles leaves nothing on its signal: a later abort fails only the new one', async () => {
  const { sent, peer: p } = peer();
  const controller = new AbortController();
  for (let i = 0; i < 200; i++) {
    const call = p.request(
      { type: 'tool_call', name: 't', args: {} },
      'tool t',
      60_000,
      controller.signal,
    );
    p.resolve({ type: 'tool_result', id: (sent[i] as { id: string }).id, content: [] });
    await call;
  }
  const last = p.request(
    { type: 'tool_call', name: 't', args: {} },
    'tool t',
    60_000,
    controller.signal,
  );
  controller.abort();
  await assert.rejects(last, (error: RequestError) => error.reason === 'aborted');
  assert.equal(p.pendingCount, 0);
});

test('requests share one deadline timer: a hundred waiting hold one Timeout, none once they settle', async () => {
  const timeouts = () =>
    process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
  const before = timeouts();
  const { sent, peer: p } = peer();
  const calls = Array.from({ length: 100 }, (_, i) =>
    p.request({ type: 'tool_call', name: 't', args: { i } }, `tool t${i}`, 60_000 + i),
  );
  assert.equal(timeouts() - before, 1);
  for (const frame of sent) p.resolve({ type: 'tool_result', id: (frame as { id: string }).id });
  await Promise.all(calls);
  // The timer may stay armed, unreferenced: it no longer counts as keeping the process alive.
  assert.equal(timeouts() - before, 0);
});

test('deadlines of different lengths each expire on time, the shorter first, whatever the order sent', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const { sent, peer: p } = peer();
  const outcome: string[] = [];
  const track = (name: string, call: Promise<unknown>) =>
    call.then(
      () => outcome.push(`${name} ok`),
      (error: RequestError) => outcome.push(`${name} ${error.reason}`),
    );
  const long = track('long', p.request({ type: 'tool_call', name: 't' }, 'tool long', 1_000));
  t.mock.timers.tick(100);
  const short = track('short', p.request({ type: 'tool_call', name: 't' }, 'tool short', 200));
  const kept = track('kept', p.request({ type: 'tool_call', name: 't' }, 'tool kept', 500));
  t.mock.timers.tick(199);
  await Promise.resolve();
  assert.deepEqual(outcome, []);
  t.mock.timers.tick(1);
  await short;
  assert.deepEqual(outcome, ['short timeout']);
  p.resolve({ type: 'tool_result', id: (sent[2] as { id: string }).id });
  await kept;
  t.mock.timers.tick(699);
  await Promise.resolve();
  assert.deepEqual(outcome, ['short timeout', 'kept ok'], 'long has 1 ms left');
  t.mock.timers.tick(1);
  await long;
  assert.deepEqual(outcome, ['short timeout', 'kept ok', 'long timeout']);
  assert.equal(p.pendingCount, 0);
});

test('a request goes out with its type and id first, and a caller cannot choose its id', async () => {
  const { sent, peer: p } = peer();
  const first = p.request({ type: 'tool_call', name: 't', args: {} }, 'tool t', 60_000);
  const sneaky = { type: 'tool_call', name: 't', args: {}, id: 'mine' } as unknown as {
    type: 'tool_call';
    name: string;
  };
  const second = p.request(sneaky, 'tool t', 60_000);
  assert.deepEqual(Object.keys(sent[0]!), ['type', 'id', 'name', 'args']);
  assert.equal((sent[1] as { id: string }).id, '2');
  p.close('done');
  await Promise.allSettled([first, second]);
});

/** Runs `body` (an ES module using Peer) in a node process of its own; its stdout and status. */
function runAlone(body: string): { stdout: string; status: number | null } {
  const script = `import { Peer } from '@zot/protocol';\n${body}`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: fileURLToPath(new URL('.', import.meta.url)),
    encoding: 'utf8',
    timeout: 60_000, // a hang guard: the process should end in well under a second
  });
  return { stdout: result.stdout, status: result.status };
}

test('a waiting request keeps its process alive until its deadline; a settled one holds nothing', () => {
  const waiting = runAlone(`
    const p = new Peer(() => undefined);
    const started = Date.now();
    p.request({ type: 'tool_call', name: 't' }, 'tool t', 300).catch((error) =>
      console.log(error.reason, Date.now() - started >= 300));
  `);
  assert.deepEqual(waiting, { stdout: 'timeout true\n', status: 0 });
  // The deadline is ten minutes away: the process ends at once all the same.
  const settled = runAlone(`
    const p = new Peer((frame) => void queueMicrotask(() => p.resolve({ type: 'tool_result', id: frame.id })));
    p.request({ type: 'tool_call', name: 't' }, 'tool t', 600_000).then(() => console.log('settled'));
  `);
  assert.deepEqual(settled, { stdout: 'settled\n', status: 0 });
});
