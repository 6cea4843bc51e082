// pi-tui stops the UI on a line wider than the terminal; zot's root cuts it instead.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Text, TUI, visibleWidth } from '@mariozechner/pi-tui';
import { FittedFrame, fitLine, fitsWidth, leadingSame } from './fitted-frame.js';
import { memoizeFrames } from './frame-memo.js';
import { chatFrame, GrowingBlock } from './testing/chat-frame.js';
import { VirtualTerminal } from './testing/virtual-terminal.js';

for (const memo of [false, true]) {
  test(`a line wider than the terminal is cut to its width, not a crash (memo ${memo})`, async () => {
    const terminal = new VirtualTerminal({ columns: 40, rows: 4 });
    const tui = new TUI(terminal);
    if (memo) assert.equal(memoizeFrames(tui), true);
    const frame = new FittedFrame();
    tui.addChild(frame);
    frame.addChild({
      render: () => [`\x1b[1m${'x'.repeat(30)}日本語${'y'.repeat(30)}\x1b[22m`],
      invalidate() {},
    });
    frame.addChild(new Text('short', 0, 0));
    const render = (tui as unknown as { doRender(): void }).doRender.bind(tui);
    render();
    await terminal.flush();
    assert.equal(terminal.screen()[0], `${'x'.repeat(30)}日本語${'y'.repeat(4)}`);
    terminal.resize(60, 4);
    render();
    await terminal.flush();
    assert.equal(terminal.screen()[0], `${'x'.repeat(30)}日本語${'y'.repeat(24)}`);
    assert.equal(terminal.screen()[1], 'short');
    tui.stop();
    terminal.dispose();
  });
}

test("the cheap width check agrees with pi-tui's measure on every kind of line", () => {
  const lines = [
    'plain ascii',
    `\x1b[1m${'x'.repeat(39)}\x1b[22m`,
    `${'x'.repeat(38)}日本`,
    'tab\there',
    '😀'.repeat(20),
    'e\u0301'.repeat(30),
    // Sequences pi-tui does not skip count as text: the check must not skip them either.
    `\x1b[5A${'z'.repeat(36)}`,
    `\x1b]8;;unterminated ${'w'.repeat(30)}`,
    `\x1b_G${'k'.repeat(38)}`,
    `\x1bX${'q'.repeat(39)}`,
    `\x1b]8;;https://example.com\x07${'l'.repeat(40)}\x1b]8;;\x07`,
  ];
  for (const line of lines) {
    for (const width of [10, 39, 40, 41, 80]) {
      assert.equal(
        fitsWidth(line, width),
        visibleWidth(line) <= width,
        JSON.stringify([line, width]),
      );
      assert.ok(visibleWidth(fitLine(line, width)) <= width || line.includes('\x1b_G'));
    }
  }
});

test('a child that returns the same lines is not measured again; a nested frame is not copied', () => {
  const frame = new FittedFrame();
  const inner = new FittedFrame();
  let calls = 0;
  const lines = ['a', 'b'];
  inner.addChild({ render: () => (calls++, lines), invalidate() {} });
  frame.addChild(inner);
  frame.addChild({ render: () => ['c'], invalidate() {} });
  assert.deepEqual(frame.render(10), ['a', 'b', 'c']);
  const first = frame.render(10);
  assert.notEqual(frame.render(10), first, 'pi-tui gets an array of its own every frame');
  assert.equal(calls, 3);
});

test('the leading lines a frame vouches for are the very strings of the frame before it', () => {
  const { root: frame, log, tick } = chatFrame();
  const blocks: GrowingBlock[] = [];
  let previous = frame.render(40);
  let vouched = 0;
  const check = (width = 40) => {
    const lines = frame.render(width);
    const same = leadingSame(lines, previous);
    for (let i = 0; i < same; i++) assert.equal(lines[i], previous[i], `line ${i} of ${same}`);
    previous = lines;
    return same;
  };
  for (let step = 0; step < 60; step++) {
    tick();
    const live = blocks.at(-1);
    if (step % 6 === 0) {
      if (live) log.settle(live);
      const block = new GrowingBlock(`block ${step}`);
      blocks.push(block);
      log.add(block);
    } else live!.text += `\nmore ${step}`;
    vouched = Math.max(vouched, check());
  }
  assert.ok(vouched > 10, `a growing transcript vouches for its settled lines (${vouched})`);
  // A change above the end (an early block drawn again), a removal and a new width: whatever the
  // frame vouches for still holds.
  log.changed(blocks[1]!);
  blocks[1]!.text = 'changed early';
  check();
  log.remove(blocks[2]!);
  check();
  assert.equal(check(30), 0, 'a new width vouches for nothing');
  assert.equal(leadingSame(frame.render(30), ['unrelated']), 0, 'nor does an unknown frame');
});
