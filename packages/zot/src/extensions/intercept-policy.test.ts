// Design D24: each way an interceptor can fail, under "intercept_failure" allow and block.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FrameFromHost } from '@zot/protocol';
import { fakeHost, type FakeExtension } from './fake-extension.fixture.js';
import type { InterceptFailureKind } from './intercept.js';
import type { SupervisorClock } from './restart-budget.js';
import { extensionTimeouts } from './timeouts.js';

const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** Restarts never come due: the test decides when time passes (here: never). */
const frozenClock: SupervisorClock = {
  now: () => 0,
  setTimeout: () => ({}),
  clearTimeout: () => undefined,
};

type Answer = (
  frame: Extract<FrameFromHost, { type: 'event_intercept' }>,
  fake: FakeExtension,
) => void;

/** How the guard misbehaves, and what (if anything) happens before the intercepted call. */
const FAILURES: Record<
  InterceptFailureKind,
  {
    answer: Answer;
    before?: (fake: FakeExtension) => Promise<void>;
    restart?: string;
    /** The intercepted arguments, when not the usual ones. */
    args?: Record<string, unknown>;
  }
> = {
  crash: { answer: (_frame, fake) => void fake.exit(7) },
  timeout: { answer: () => undefined },
  malformed: {
    answer: (frame, fake) =>
      fake.send({ type: 'event_intercept_response', id: frame.id, block: 'yes' } as never),
  },
  not_running: { answer: () => undefined, before: (fake) => fake.exit(3), restart: 'never' },
  restarting: { answer: () => undefined, before: (fake) => fake.exit(3) },
  // An answer that says it could not decide is no allow.
  error: {
    answer: (frame, fake) =>
      fake.send({ type: 'event_intercept_response', id: frame.id, error: 'cannot read it' }),
  },
  // A question past the protocol's bounds is never sent (the extension would drop it).
  unsendable: { answer: () => undefined, args: nestedArgs(200) },
};

function nestedArgs(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

const WHAT: Record<InterceptFailureKind, RegExp> = {
  crash: /^extension guard died \(exited with status 7\)/,
  timeout: /^extension guard did not answer within 40 ms/,
  malformed: /^extension guard sent a malformed answer \(/,
  not_running: /^extension guard is not running \(exited with status 3; not restarted/,
  restarting: /^extension guard is restarting/,
  error: /^extension guard could not decide \(cannot read it\)/,
  unsendable:
    /^extension guard could not be asked \(intercept tool_call: not sent: the event_intercept frame would be nested deeper than 128 levels/,
};

for (const policy of ['allow', 'block'] as const) {
  for (const [kind, how] of Object.entries(FAILURES) as Array<
    [InterceptFailureKind, (typeof FAILURES)[InterceptFailureKind]]
  >) {
    test(`intercept_failure "${policy}": ${kind}`, async (t) => {
      const f = fakeHost(
        {
          guard: {
            manifest: {
              intercept_failure: policy,
              ...(how.restart ? { restart: how.restart } : {}),
            },
            onFrame(frame, fake) {
              if (frame.type === 'hello_ack')
                fake.send({ type: 'subscribe', events: [], intercept: ['tool_call'] });
              if (frame.type === 'event_intercept') how.answer(frame, fake);
            },
          },
        },
        { clock: frozenClock, timeouts: { ...extensionTimeouts({}), interceptMs: 40 } },
      );
      t.after(() => f.cleanup());
      await f.host.start();
      const fake = f.fakes.get('guard')!;
      await settle();
      if (how.before) {
        await how.before(fake);
        await settle();
      }
      // A dead guard is consulted only when its failures block.
      assert.equal(f.host.intercepting('tool_call'), policy === 'block' || !how.before);
      const tool_args = how.args ?? { command: 'rm -rf /' };
      const value = { tool_id: 't1', tool_name: 'bash', tool_args };
      const result = await f.host.intercept('tool_call', value);
      if (policy === 'allow') {
        assert.equal(result.blocked, undefined);
        assert.deepEqual(result.value, value);
        assert.deepEqual(result.records, []);
      } else {
        assert.equal(result.blocked?.extension, 'guard');
        assert.match(result.blocked!.reason, WHAT[kind]);
        assert.match(result.blocked!.reason, /blocked because its "intercept_failure" is "block"$/);
        assert.deepEqual(
          result.records.map((r) => [r.extension, r.action, r.failure, r.before]),
          [['guard', 'block', kind, value.tool_args]],
        );
        assert.match(
          f.log('guard'),
          /intercept tool_call: .*; blocked \("intercept_failure": "block"\)/,
        );
      }
      if (kind === 'unsendable') {
        const fake = f.fakes.get('guard')!;
        assert.ok(!fake.received.some((frame) => frame.type === 'event_intercept'), 'never sent');
        assert.match(f.log('guard'), /not sent: the event_intercept frame would be nested deeper/);
      }
      await f.host.shutdown();
    });
  }
}

test('a rewrite that is not an object is malformed: ignored when allowing, a block when failing closed', async (t) => {
  for (const policy of ['allow', 'block'] as const) {
    const f = fakeHost({
      guard: {
        manifest: { intercept_failure: policy },
        onFrame(frame, fake) {
          if (frame.type === 'hello_ack')
            fake.send({ type: 'subscribe', events: [], intercept: ['tool_call'] });
          if (frame.type === 'event_intercept')
            fake.send({
              type: 'event_intercept_response',
              id: frame.id,
              modified_args: 'rm' as never,
            });
        },
      },
    });
    t.after(() => f.cleanup());
    await f.host.start();
    await settle();
    const value = { tool_id: 't1', tool_name: 'bash', tool_args: { command: 'ls' } };
    const result = await f.host.intercept('tool_call', value);
    if (policy === 'allow') {
      assert.equal(result.blocked, undefined);
      assert.match(f.log('guard'), /modified_args is not a JSON object; ignored/);
    } else {
      assert.match(
        result.blocked!.reason,
        /sent a malformed answer \(modified_args is not a JSON object\)/,
      );
      assert.equal(result.records[0]?.failure, 'malformed');
    }
    await f.host.shutdown();
  }
});

test('rewritten arguments past the bounds for tool arguments are malformed, like any unusable rewrite', async (t) => {
  const wide = { items: Array.from({ length: 100_001 }, (_, i) => i) };
  for (const policy of ['allow', 'block'] as const) {
    const f = fakeHost({
      guard: {
        manifest: { intercept_failure: policy },
        onFrame(frame, fake) {
          if (frame.type === 'hello_ack')
            fake.send({ type: 'subscribe', events: [], intercept: ['tool_call'] });
          if (frame.type === 'event_intercept')
            fake.send({ type: 'event_intercept_response', id: frame.id, modified_args: wide });
        },
      },
    });
    t.after(() => f.cleanup());
    await f.host.start();
    await settle();
    const value = { tool_id: 't1', tool_name: 'bash', tool_args: { command: 'ls' } };
    const result = await f.host.intercept('tool_call', value);
    assert.deepEqual(result.value, value, 'the rewrite is not applied');
    if (policy === 'allow') {
      assert.equal(result.blocked, undefined);
      assert.match(f.log('guard'), /modified_args is made of more than 100000 values; ignored/);
    } else {
      assert.match(result.blocked!.reason, /malformed answer \(modified_args is made of more/);
      assert.equal(result.records[0]?.failure, 'malformed');
    }
    await f.host.shutdown();
  }
});

test('an answer with an error that also blocks is a block, whatever the policy', async (t) => {
  const f = fakeHost({
    guard: {
      onFrame(frame, fake) {
        if (frame.type === 'hello_ack')
          fake.send({ type: 'subscribe', events: [], intercept: ['tool_call'] });
        if (frame.type === 'event_intercept')
          fake.send({
            type: 'event_intercept_response',
            id: frame.id,
            block: true,
            reason: 'guard failed: oops',
            error: 'guard failed: oops',
          });
      },
    },
  });
  t.after(() => f.cleanup());
  await f.host.start();
  await settle();
  const result = await f.host.intercept('tool_call', {
    tool_id: 't1',
    tool_name: 'bash',
    tool_args: { command: 'ls' },
  });
  assert.deepEqual(result.blocked, { extension: 'guard', reason: 'guard failed: oops' });
  await f.host.shutdown();
});
