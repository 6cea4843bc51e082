// The transcript's column: draws what pi-tui's Container with spacers draws, but renders a
// settled block once per width, so a frame in a long session costs only its live blocks.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Container, Spacer, visibleWidth, type Component } from '@mariozechner/pi-tui';
import { SettledLog } from './settled-log.js';

/** A block whose text can change, counting its renders. */
class Counted implements Component {
  renders = 0;
  constructor(public text: string) {}
  invalidate(): void {}
  render(width: number): string[] {
    this.renders++;
    return this.text.split('\n').map((line) => line.slice(0, width + 5));
  }
}

/** What pi-tui's own Container draws for the same blocks, one blank line between them. */
function reference(blocks: Component[], width: number): string[] {
  const container = new Container();
  blocks.forEach((block, i) => {
    if (i > 0) container.addChild(new Spacer(1));
    container.addChild(block);
  });
  return container.render(width);
}

test('draws the blocks as a container with a blank line between them would', () => {
  const blocks = [new Counted('one\ntwo'), new Counted(''), new Counted('three')];
  const log = new SettledLog();
  blocks.forEach((block, i) => log.add(block, i !== 2));
  assert.deepEqual(log.render(40), reference(blocks, 40));
});

test('a settled block is rendered once per width; a live one every frame', () => {
  const settled = new Counted('settled');
  const live = new Counted('live');
  const log = new SettledLog();
  log.add(settled, true);
  log.add(live);
  for (let frame = 0; frame < 5; frame++) log.render(40);
  assert.equal(settled.renders, 1);
  assert.equal(live.renders, 5);
  log.render(30);
  assert.equal(settled.renders, 2, 'a new width draws it again');
});

test('nothing changed: the very same array; a change: a new one, the old one untouched', () => {
  const log = new SettledLog();
  const first = new Counted('first');
  log.add(first, true);
  const before = log.render(40);
  assert.equal(log.render(40), before);
  const copy = [...before];
  const answer = new Counted('streaming');
  log.add(answer);
  const after = log.render(40);
  assert.notEqual(after, before);
  assert.deepEqual(before, copy, 'an array handed out is never changed');
  answer.text = 'streaming more';
  assert.deepEqual(log.render(40), ['first', '', 'streaming more']);
  // It changes once more and settles before the next frame: that last change is drawn.
  answer.text = 'streaming done';
  log.settle(answer);
  assert.deepEqual(log.render(40), ['first', '', 'streaming done']);
  const settledFrame = log.render(40);
  answer.text = 'changed behind its back';
  assert.equal(log.render(40), settledFrame, 'a settled block is not asked again');
  log.changed(answer);
  assert.deepEqual(log.render(40), ['first', '', 'changed behind its back']);
});

test('redraw and invalidate draw every block again; remove and clear take blocks away', () => {
  const a = new Counted('a');
  const b = new Counted('b');
  const c = new Counted('c');
  const log = new SettledLog();
  for (const block of [a, b, c]) log.add(block, true);
  log.render(40);
  log.redraw();
  log.render(40);
  assert.deepEqual([a.renders, b.renders, c.renders], [2, 2, 2]);
  log.remove(b);
  assert.deepEqual(log.render(40), ['a', '', 'c']);
  log.remove(a);
  assert.deepEqual(log.render(40), ['c'], 'the first block has no blank line before it');
  log.clear();
  assert.deepEqual(log.render(40), []);
});

test('lines wider than the width are cut: the log promises lines that fit', () => {
  const log = new SettledLog();
  log.add(new Counted(`${'x'.repeat(38)}日本`), true);
  log.add(new Counted(`\x1b[1m${'y'.repeat(50)}\x1b[22m`));
  for (const line of log.render(40)) assert.ok(visibleWidth(line) <= 40, JSON.stringify(line));
  assert.equal(log.fitsWidth, true);
});

test('held blocks are not drawn (nor their separators) until released; a peek shows a tail', () => {
  const blocks = [new Counted('top'), new Counted('a\nb\nc'), new Counted('d'), new Counted('new')];
  const log = new SettledLog();
  log.add(blocks[0]!, true);
  log.add(blocks[3]!, true);
  // Inserted before the newest, held: the frame is as if they were not there.
  log.insert(blocks[1]!, true, blocks[3], true);
  log.insert(blocks[2]!, true, blocks[3], true);
  assert.deepEqual(log.render(40), reference([blocks[0]!, blocks[3]!], 40));
  assert.equal(log.measure([blocks[1]!], 40), 4, 'three lines and the blank one before');
  log.peek(blocks[1]!, 2);
  assert.deepEqual(log.render(40), ['top', '', 'b', 'c', '', 'new']);
  log.release([blocks[2]!]);
  assert.deepEqual(log.render(40), ['top', '', 'b', 'c', '', 'd', '', 'new']);
  log.release();
  assert.deepEqual(log.render(40), reference(blocks, 40));
});
