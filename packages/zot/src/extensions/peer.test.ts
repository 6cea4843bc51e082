// The peer takes a reply only when its type is the one its request expects.
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { test } from 'node:test';
import type { FrameFromHost } from '@zot/protocol';
import { Peer, RequestError } from './peer.js';

function peer() {
  const sent: FrameFromHost[] = [];
  return { sent, peer: new Peer((frame) => void sent.push(frame)) };
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
