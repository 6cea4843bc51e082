// The screen-test harness itself: a real pi-tui TUI drawing into a headless xterm.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Markdown, Text, TUI } from '@mariozechner/pi-tui';
import { renderLines, VirtualTerminal } from './virtual-terminal.js';

test('a TUI draws into the virtual terminal, and typed keys reach the focused component', async () => {
  const terminal = new VirtualTerminal({ columns: 40, rows: 10 });
  const tui = new TUI(terminal);
  const text = new Text('hello from the screen', 0, 0);
  tui.addChild(text);
  const typed: string[] = [];
  tui.setFocus({
    render: () => [],
    invalidate: () => {},
    handleInput: (d: string) => typed.push(d),
  });
  tui.start();
  tui.requestRender(true);
  await terminal.until((screen) => screen.some((row) => row.includes('hello from the screen')));
  terminal.type('x');
  assert.deepEqual(typed, ['x']);
  tui.stop();
  terminal.dispose();
});

test('renderLines applies escape sequences and keeps the words', async () => {
  const theme = {
    heading: (s: string) => `\x1b[1m${s}\x1b[22m`,
    link: (s: string) => s,
    linkUrl: (s: string) => s,
    code: (s: string) => s,
    codeBlock: (s: string) => s,
    codeBlockBorder: (s: string) => s,
    quote: (s: string) => s,
    quoteBorder: (s: string) => s,
    hr: (s: string) => s,
    listBullet: (s: string) => s,
    bold: (s: string) => s,
    italic: (s: string) => s,
    strikethrough: (s: string) => s,
    underline: (s: string) => s,
  };
  const lines = await renderLines(new Markdown('# Title\n\nsome *text*', 0, 0, theme), 30);
  assert.ok(lines.some((line) => line.includes('Title')));
  assert.ok(lines.some((line) => line.includes('some text')));
});
