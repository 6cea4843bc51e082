// The frame memo must draw exactly what pi-tui draws without it, and must notice if pi-tui's
// private methods it relies on go away in an upgrade.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Text, TUI } from '@mariozechner/pi-tui';
import { memoizeFrames } from './frame-memo.js';
import { VirtualTerminal } from './testing/virtual-terminal.js';

async function draw(memo: boolean): Promise<{ screen: string[]; bytes: number }> {
  const terminal = new VirtualTerminal({ columns: 40, rows: 6, scrollback: 100 });
  const tui = new TUI(terminal);
  assert.equal(memo ? memoizeFrames(tui) : true, true, 'pi-tui still has the patched methods');
  const texts: Text[] = [];
  for (let i = 0; i < 20; i++) {
    const text = new Text(`line ${i} \x1b[1mbold\x1b[22m`, 0, 0);
    texts.push(text);
    tui.addChild(text);
  }
  // Not started: no timer draws in between, so both runs write exactly the same frames.
  const render = (tui as unknown as { doRender(): void }).doRender.bind(tui);
  render();
  for (let frame = 0; frame < 10; frame++) {
    texts.at(-1)!.setText(`last line, frame ${frame}`);
    render();
  }
  await terminal.flush();
  const result = { screen: terminal.allLines(), bytes: terminal.bytesWritten };
  tui.stop();
  terminal.dispose();
  return result;
}

test('with the memo the terminal receives the same bytes and shows the same lines', async () => {
  const plain = await draw(false);
  const memo = await draw(true);
  assert.deepEqual(memo.screen, plain.screen);
  assert.equal(memo.bytes, plain.bytes);
  assert.match(memo.screen.join('\n'), /last line, frame 9/);
});

test('a line wider than the terminal is cut to its width, not a crash', async () => {
  const terminal = new VirtualTerminal({ columns: 40, rows: 4 });
  const tui = new TUI(terminal);
  memoizeFrames(tui);
  tui.addChild({
    render: () => [`\x1b[1m${'x'.repeat(30)}日本語${'y'.repeat(30)}\x1b[22m`],
    invalidate() {},
  });
  const render = (tui as unknown as { doRender(): void }).doRender.bind(tui);
  render();
  terminal.resize(60, 4);
  render();
  await terminal.flush();
  assert.equal(terminal.screen()[0], `${'x'.repeat(30)}日本語${'y'.repeat(24)}`);
  tui.stop();
  terminal.dispose();
});
