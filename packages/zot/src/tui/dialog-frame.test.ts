// The dialog frame and the text helpers: what stays on screen at narrow and wide widths.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { visibleWidth } from '@mariozechner/pi-tui';
import { cut, footerLine, footerLines, oneLine, renderDialogFrame } from './dialog-frame.js';
import { createTheme, DARK } from './theme.js';
import { renderLines } from './testing/virtual-terminal.js';

const themes = [createTheme(DARK, true), createTheme(DARK, false)];

test('cut keeps text that fits and marks a cut with …, never wider than asked', () => {
  assert.equal(cut('hello', 5), 'hello');
  assert.equal(cut('hello world', 6), 'hello…');
  assert.equal(cut('日本語のテキスト', 7), '日本語…');
  assert.ok(visibleWidth(cut('日本語のテキスト', 7)) <= 7);
  assert.equal(cut('anything', 0), '');
});

test('oneLine folds newlines and tabs and shows control characters escaped', () => {
  assert.equal(oneLine('first\n\tsecond  third'), 'first second third');
  assert.equal(oneLine('red \x1b[31mtext'), 'red \\x1b[31mtext');
});

for (const theme of themes) {
  for (const columns of [60, 200]) {
    test(`a frame at ${columns} columns (${theme.color ? 'colour' : 'NO_COLOR'}) has its title, body, footer and cuts long lines`, async () => {
      const long = 'x'.repeat(300);
      const component = {
        render: (width: number) =>
          renderDialogFrame(
            { title: 'Pick a model', body: ['first line', long], footer: ['esc cancel'] },
            width,
            theme,
          ),
        invalidate: () => {},
      };
      const lines = await renderLines(component, columns);
      assert.equal(lines.length, 6);
      assert.match(lines[0]!, /^╭─ Pick a model ─+╮$/);
      assert.match(lines[1]!, /^│ first line +│$/);
      assert.match(lines[2]!, /^│ x+… │$/);
      assert.match(lines[3]!, /^├─+┤$/);
      assert.match(lines[4]!, /^│ esc cancel +│$/);
      assert.match(lines[5]!, /^╰─+╯$/);
      for (const line of lines) assert.equal(visibleWidth(line), columns);
    });
  }
}

test('a footer keeps its counter whole and cuts the legend before it', async () => {
  const theme = createTheme(DARK, false);
  const line = footerLine(theme, 'up/down move · enter select · esc cancel', '12/41', 24);
  assert.match(line, /^up\/down move · en\S*… +12\/41$/);
  assert.equal(visibleWidth(line), 24);
});

test('a very narrow frame still never exceeds its width', () => {
  const theme = createTheme(DARK, true);
  for (const width of [1, 3, 5, 8]) {
    for (const line of renderDialogFrame(
      { title: 'A long title', body: ['some body text'] },
      width,
      theme,
    )) {
      assert.ok(visibleWidth(line) <= width, `${width}: ${JSON.stringify(line)}`);
    }
  }
});

test('a key legend too wide for one line goes on more, each key whole; the counter stays', () => {
  const theme = createTheme(DARK, false);
  const keys: Array<[string, string]> = [
    ['↑↓', 'move'],
    ['enter', 'select'],
    ['ctrl+r', 'rename'],
    ['ctrl+d', 'delete'],
    ['ctrl+n', 'named'],
    ['esc', 'cancel'],
  ];
  // The /sessions dialog at 60 columns: 56 inside its borders.
  const lines = footerLines(theme, keys, '3/41', 56);
  assert.ok(lines.length > 1);
  for (const line of lines) assert.equal(visibleWidth(line), 56);
  const text = lines.map((line) => line.trimEnd()).join(' · ');
  for (const [key, action] of keys) assert.ok(text.includes(`${key} ${action}`), key);
  assert.ok(!text.includes('…'), 'nothing is cut');
  assert.ok(lines[0]!.endsWith('3/41'));
  // Wide enough, it stays one line.
  assert.equal(footerLines(theme, keys, '3/41', 200).length, 1);
});
