// pi-tui stops the UI on a line wider than the terminal; zot's root cuts it instead.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Text, TUI } from '@mariozechner/pi-tui';
import { FittedFrame } from './fitted-frame.js';
import { memoizeFrames } from './frame-memo.js';
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
