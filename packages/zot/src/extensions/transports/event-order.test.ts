// Events from the HTTP transport's two carriers put back in order, within bounds: whatever a
// server sends ahead of a gap is held only so far.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventOrder, MAX_HELD_EVENTS } from './event-order.js';
import type { EventItem } from './sse-reader.js';

const line = (text: string): EventItem[] => [{ kind: 'line', text }];

test('an event ahead of a gap waits for it; the gap filled, both go in order, once', () => {
  const delivered: string[] = [];
  const order = new EventOrder((items) => {
    for (const item of items) if (item.kind === 'line') delivered.push(item.text);
  });
  assert.equal(order.accept(2, line('two'), 'stream', true), 'held');
  assert.equal(order.accept(1, line('one'), 'answer', true), 'delivered');
  assert.deepEqual(delivered, ['one', 'two']);
  assert.equal(order.accept(2, line('two again'), 'stream', true), 'duplicate');
  assert.equal(order.lastId, 2);
  assert.equal(order.answerRead(), undefined);
});

test('a stream event past a gap no answer can fill is a loss, named', () => {
  const order = new EventOrder(() => {});
  assert.deepEqual(order.accept(3, line('three'), 'stream', false), {
    lost: 'events 1 to 2 never arrived',
  });
  assert.equal(order.accept(3, line('three'), 'stream', true), 'held');
  assert.equal(order.answerRead(), 'events 1 to 2 never arrived');
});

test('empty events ahead of a gap weigh no bytes, yet only so many are held', () => {
  const order = new EventOrder(() => assert.fail('nothing can be delivered past the gap'));
  for (let id = 2; id < 2 + MAX_HELD_EVENTS; id++)
    assert.equal(order.accept(id, line(''), 'stream', true), 'held');
  const past = order.accept(2 + MAX_HELD_EVENTS, line(''), 'stream', true);
  assert.deepEqual(past, {
    lost: `events 1 to ${1 + MAX_HELD_EVENTS} never arrived (over ${MAX_HELD_EVENTS} events held waiting)`,
  });
});
