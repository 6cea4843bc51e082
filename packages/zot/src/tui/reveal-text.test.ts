// How a confirmation lays out what will run: what is kept as it is, what becomes a marker or an
// escape, and that wrapping loses nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { revealText } from './reveal-text.js';
import { createTheme, DARK } from './theme.js';

const plain = createTheme(DARK, false);
// NO_COLOR keeps attributes (the gutter is dim): they are taken off to compare text.
const rows = (text: string, width = 80) =>
  revealText(text, width, plain).rows.map((row) => row.replace(/\x1b\[[0-9;]*m/g, ''));

test('indentation stays up to 23 spaces; longer runs, and 8 or more inside a line, are counted', () => {
  const script = "python3 - <<'EOF'\nif x:\n        print(1)\n" + ' '.repeat(30) + 'hidden()\nEOF';
  assert.deepEqual(rows(script), [
    "1 │ python3 - <<'EOF'",
    '2 │ if x:',
    '3 │         print(1)',
    '4 │ «30 spaces»hidden()',
    '5 │ EOF',
  ]);
  assert.deepEqual(rows(`a       b${' '.repeat(8)}c`), ['a       b«8 spaces»c']);
  assert.deepEqual(
    rows(`\x1b${' '.repeat(10)}x`),
    ['\\x1b«10 spaces»x'],
    'after an escape it is no indentation',
  );
});

test('wrapped rows hold every character once, in order; a marker or an escape is not split', () => {
  const text = `${'a'.repeat(25)}\u202e${'b'.repeat(10)}${' '.repeat(40)}c`;
  const out = rows(text, 12);
  assert.ok(out.every((row) => row.length <= 12));
  assert.equal(out.join(''), `${'a'.repeat(25)}\\u202e${'b'.repeat(10)}«40 spaces»c`);
  assert.ok(
    out.includes('\\u202e') || out.some((row) => row.includes('\\u202e')),
    'the escape is whole',
  );
  assert.ok(out.some((row) => row.includes('«40 spaces»')));
});

test('lines are counted without trailing empty ones; one line has no gutter', () => {
  assert.equal(revealText('ls\n\n\n', 80, plain).lines, 1);
  assert.deepEqual(rows('ls\n\n\n'), ['ls']);
  assert.equal(revealText('a\r\nb', 80, plain).lines, 2);
  assert.deepEqual(rows('a\rb'), ['a\\rb'], 'a lone CR is shown, not obeyed');
});
