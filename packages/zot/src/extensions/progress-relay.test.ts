import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PROGRESS_RATE, ProgressRelay } from './progress-relay.js';

function relay() {
  const warnings: string[] = [];
  const logged: string[] = [];
  let now = 0;
  const r = new ProgressRelay(
    (m) => warnings.push(m),
    (m) => logged.push(m),
    () => now,
  );
  return { r, warnings, logged, advance: (ms: number) => (now += ms) };
}

test('a line for a call already answered is dropped, even while its watch has not ended yet', () => {
  const { r, warnings } = relay();
  const got: string[] = [];
  r.watch('7', (text) => got.push(text));
  r.deliver({ type: 'tool_progress', id: '7', text: 'live' });
  // The result was read first (same chunk): the call no longer waits, its watch ends later.
  r.deliver({ type: 'tool_progress', id: '7', text: 'after the end' }, false);
  assert.deepEqual(got, ['live']);
  assert.match(
    warnings[0]!,
    /dropped tool_progress for call 7: no tool call of that id is in flight/,
  );
});

test('lines over the burst wait for the steady rate; the dropped ones are counted when the call ends', () => {
  const { r, logged, advance } = relay();
  const got: string[] = [];
  const unwatch = r.watch('1', (text) => got.push(text));
  for (let i = 0; i < PROGRESS_RATE.burst + 10; i++)
    r.deliver({ type: 'tool_progress', id: '1', text: `l${i}` });
  assert.equal(got.length, PROGRESS_RATE.burst);
  advance(1000);
  for (let i = 0; i < PROGRESS_RATE.perSecond + 5; i++)
    r.deliver({ type: 'tool_progress', id: '1', text: `m${i}` });
  assert.equal(got.length, PROGRESS_RATE.burst + PROGRESS_RATE.perSecond);
  unwatch();
  assert.match(logged[0]!, /tool call 1: dropped 15 tool_progress lines over the rate limit/);
});
