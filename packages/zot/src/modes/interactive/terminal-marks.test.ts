// The window title and prompt marks: what reaches the terminal is zot's own escapes around
// text without a control character, sent only on a real terminal.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import xterm from '@xterm/headless';
import type { Terminal } from '@mariozechner/pi-tui';
import { createTheme, DARK } from '../../tui/theme.js';
import { UserMessageBlock } from '../../tui/text-blocks.js';
import {
  PROMPT_MARK,
  safeTitle,
  terminalMarksOn,
  TITLE_MAX,
  WindowTitle,
  windowTitle,
} from './terminal-marks.js';

test('a title keeps no control character, bidirectional override or line break, and is bounded', () => {
  assert.equal(safeTitle('a\x1b]0;evil\x07b'), 'a ]0;evil b');
  assert.equal(safeTitle('x\u009b31my\u202egnp.exe\nz'), 'x 31my gnp.exe z');
  assert.equal(safeTitle('a\u200bb\ufeffc\u{e0041}d'), 'a b c d');
  assert.equal([...safeTitle('é'.repeat(200))].length, TITLE_MAX);
  assert.equal(
    windowTitle({ cwd: '/home/u/my\x07project', session_name: 'deploy\u202e' }),
    'zot · deploy · my project',
  );
  assert.equal(windowTitle({ cwd: '/' }), 'zot · /');
});

test('the title is sent when it changes, pushed and popped around the run; off on a dumb terminal', () => {
  const sent: string[] = [];
  const terminal = {
    write: (data: string) => sent.push(`write ${JSON.stringify(data)}`),
    setTitle: (title: string) => sent.push(`title ${title}`),
  } as unknown as Terminal;
  const title = new WindowTitle(terminal, true);
  title.update({ cwd: '/w/app' });
  title.update({ cwd: '/w/app' });
  title.update({ cwd: '/w/app', session_name: 'fix' });
  title.close();
  assert.deepEqual(sent, [
    'write "\\u001b[22;0t"',
    'title zot · app',
    'title zot · fix · app',
    'write "\\u001b[23;0t"',
  ]);
  const off: string[] = [];
  const quiet = new WindowTitle(
    { write: () => off.push('w'), setTitle: () => off.push('t') } as unknown as Terminal,
    false,
  );
  quiet.update({ cwd: '/w/app' });
  quiet.close();
  assert.deepEqual(off, []);
  assert.equal(terminalMarksOn({ TERM: 'xterm-256color' }, true), true);
  assert.equal(terminalMarksOn({ TERM: 'dumb' }, true), false);
  assert.equal(terminalMarksOn({ TERM: 'xterm-256color', NO_COLOR: '1' }, false), false);
  assert.equal(terminalMarksOn({ TERM: 'xterm-256color', NO_COLOR: '1' }, true), true);
});

test('a prompt mark reaches the terminal as an OSC 133 mark and takes no column', async () => {
  for (const color of [false, true]) {
    for (const columns of [60, 200]) {
      const screen = new xterm.Terminal({ cols: columns, rows: 10, allowProposedApi: true });
      const marks: string[] = [];
      screen.parser.registerOscHandler(133, (data) => {
        marks.push(data);
        return true;
      });
      const text = `a prompt that is long enough to wrap at sixty columns ${'word '.repeat(10)}`;
      const marked = new UserMessageBlock(text, createTheme(DARK, color), PROMPT_MARK);
      const plain = new UserMessageBlock(text, createTheme(DARK, color));
      const lines = marked.render(columns);
      assert.deepEqual(
        lines.slice(1),
        plain.render(columns).slice(1),
        'only the first line carries the mark',
      );
      await new Promise<void>((resolve) => screen.write(lines.join('\r\n'), resolve));
      assert.deepEqual(marks, ['A']);
      const first = screen.buffer.active.getLine(0)!.translateToString(true);
      assert.match(first, /^› a prompt/);
      screen.dispose();
    }
  }
});
