// Protocol version negotiation per connection: hello.protocol_version 2 opts in, anything else
// speaks version 1; version-2 frames are never sent to a version-1 extension nor taken from it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { negotiateProtocolVersion, type FrameFromHost } from '@zot/protocol';
import { fakeHost } from './fake-extension.fixture.js';
import { checkSubscription } from './registrations.js';

test('negotiation: 2 and later speak 2; absent, 1 and nonsense speak 1', () => {
  assert.equal(negotiateProtocolVersion(2), 2);
  assert.equal(negotiateProtocolVersion(7), 2);
  for (const asked of [undefined, 1, 0, -2, 1.5, '2', null]) {
    assert.equal(negotiateProtocolVersion(asked), 1, String(asked));
  }
});

test('hello_ack says the version per connection; each extension keeps its own', async (t) => {
  const f = fakeHost({
    old: { commands: ['a'] },
    new: { commands: ['b'], hello: { protocol_version: 2, capabilities: ['commands', 'warp'] } },
  });
  t.after(() => f.cleanup());
  await f.host.start();
  assert.equal((await f.fakes.get('old')!.next('hello_ack')).protocol_version, 1);
  assert.equal((await f.fakes.get('new')!.next('hello_ack')).protocol_version, 2);
  const [old, fresh] = ['old', 'new'].map((n) => f.host.running.find((e) => e.name === n)!);
  assert.equal(old!.protocolVersion, 1);
  assert.equal(fresh!.protocolVersion, 2);
  // An unknown capability is informational: no warning.
  assert.deepEqual(fresh!.warnings, []);
  await f.host.shutdown();
});

test('a version-2 frame is not sent to a version-1 extension (named, logged); it is to a version-2 one', async (t) => {
  const f = fakeHost({ old: {}, new: { hello: { protocol_version: 2 } } });
  t.after(() => f.cleanup());
  await f.host.start();
  const [old, fresh] = ['old', 'new'].map((n) => f.host.running.find((e) => e.name === n)!);
  const cancel = { type: 'cancel', id: 'x1' } as unknown as FrameFromHost;
  const intercept = {
    type: 'event_intercept',
    id: 'x2',
    event: 'tool_result',
  } as unknown as FrameFromHost;
  assert.match(old!.send(cancel) ?? '', /cancel frame is a protocol version 2 frame/);
  assert.match(
    old!.send(intercept) ?? '',
    /event_intercept \(tool_result\) is a protocol version 2/,
  );
  assert.equal(fresh!.send(cancel), undefined);
  await new Promise((resolve) => setImmediate(resolve));
  const oldTypes = f.fakes.get('old')!.received.map((frame) => frame.type);
  assert.ok(!oldTypes.includes('cancel' as never), oldTypes.join());
  assert.ok(f.fakes.get('new')!.received.some((frame) => (frame.type as string) === 'cancel'));
  assert.match(f.log('old'), /not sent: a cancel frame is a protocol version 2 frame/);
  await f.host.shutdown();
});

test('a version-2 frame from a version-1 extension is refused, named and logged', async (t) => {
  const f = fakeHost({ old: {} });
  t.after(() => f.cleanup());
  await f.host.start();
  const fake = f.fakes.get('old')!;
  for (const type of ['tool_progress', 'ui_request', 'unregister_tool'])
    fake.send({ type, id: 'q', name: 'n', text: 't', kind: 'confirm', title: 'T' } as never);
  await new Promise((resolve) => setImmediate(resolve));
  for (const type of ['tool_progress', 'ui_request', 'unregister_tool'])
    assert.match(
      f.log('old'),
      new RegExp(
        `refused a ${type} frame: it is a protocol version 2 frame and this extension's hello did not ask for version 2`,
      ),
    );
  await f.host.shutdown();
});

test('subscribe: a version-1 extension cannot intercept version-2 events (named)', () => {
  const v1 = checkSubscription([], ['tool_result', 'user_prompt', 'tool_call'], 1);
  assert.deepEqual([...v1.accepted.intercept], ['tool_call']);
  assert.deepEqual(v1.problems, [
    'subscribe: intercepting "tool_result" needs protocol version 2 (send "protocol_version": 2 in hello); ignored',
    'subscribe: intercepting "user_prompt" needs protocol version 2 (send "protocol_version": 2 in hello); ignored',
  ]);
});
