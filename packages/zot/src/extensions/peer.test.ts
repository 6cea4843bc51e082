// The peer takes a reply only when its type is the one its request expects.
import assert from 'node:assert/strict';
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
