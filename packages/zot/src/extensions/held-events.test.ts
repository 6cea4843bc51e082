// The pause/resume contract the process, WebSocket and HTTP transports rely on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HeldEvents } from './held-events.js';

test('events run at once while reading; paused, they wait and run in order on resume', () => {
  const events = new HeldEvents();
  const seen: string[] = [];
  const source: string[] = [];
  const pause = () => source.push('pause');
  const resume = () => source.push('resume');
  events.deliver(() => seen.push('a'));
  events.setReading(false, pause, resume);
  events.deliver(() => seen.push('b'));
  events.deliver(() => seen.push('c'));
  assert.deepEqual(seen, ['a']);
  assert.equal(events.runsNow, false);
  events.setReading(true, pause, resume);
  assert.deepEqual(seen, ['a', 'b', 'c']);
  assert.deepEqual(source, ['pause', 'resume']);
  assert.equal(events.runsNow, true);
});

test('a handler that pauses while held events drain stops the drain; the source stays paused', () => {
  const events = new HeldEvents();
  const seen: string[] = [];
  const source: string[] = [];
  const pause = () => source.push('pause');
  const resume = () => source.push('resume');
  events.setReading(false, pause, resume);
  events.deliver(() => {
    seen.push('b');
    events.setReading(false, pause, resume);
  });
  events.deliver(() => seen.push('c'));
  events.setReading(true, pause, resume);
  assert.deepEqual(seen, ['b']);
  assert.deepEqual(source, ['pause', 'pause']);
  // A resume from inside a handler lets the outer drain carry on, once.
  events.deliver(() => seen.push('d'));
  events.setReading(true, pause, resume);
  assert.deepEqual(seen, ['b', 'c', 'd']);
  assert.deepEqual(source, ['pause', 'pause', 'resume']);
  events.setReading(false, pause, resume);
  events.deliver(() => seen.push('dropped'));
  events.clear();
  events.setReading(true, pause, resume);
  assert.deepEqual(seen, ['b', 'c', 'd']);
});
