import assert from 'node:assert/strict';
import { test } from 'node:test';
import { visibleWidth } from '@mariozechner/pi-tui';
import { stripAnsi } from './dialog-frame.js';
import { columnWidths, MAX_COLUMN, tableLines } from './table-view.js';
import { createTheme, DARK } from './theme.js';

const theme = createTheme(DARK, false);

test('columns line up under their header, with a rule below it', () => {
  const lines = tableLines(
    ['file', 'lines'],
    [
      ['alpha.ts', '1200'],
      ['b', '7'],
    ],
    60,
    theme,
  );
  assert.deepEqual(lines.map(stripAnsi), [
    'file      lines',
    '────────  ─────',
    'alpha.ts  1200',
    'b         7',
  ]);
});

test('cells are escaped onto one line, and cut with … to fit the width', () => {
  const lines = tableLines(
    ['name', 'note'],
    [
      ['\u001b[31mred', 'a\nb'],
      ['w'.repeat(100), 'x'.repeat(100)],
    ],
    30,
    theme,
  );
  assert.match(lines[2]!, /\\x1b\[31mred/);
  assert.match(lines[2]!, /a b/);
  for (const line of lines) assert.ok(visibleWidth(line) <= 30, line);
  assert.match(lines[3]!, /…/);
});

test('a column is at most MAX_COLUMN wide; the widest columns give way first', () => {
  assert.deepEqual(columnWidths([['x'.repeat(100), 'y']], 2, 200), [MAX_COLUMN, 1]);
  assert.deepEqual(columnWidths([['x'.repeat(30), 'y'.repeat(10)]], 2, 32), [20, 10]);
});
