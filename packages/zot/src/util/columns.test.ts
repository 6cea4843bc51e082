import assert from 'node:assert/strict';
import { test } from 'node:test';
import { twoColumns } from './columns.js';
import { textWidth } from './text-width.js';

test('text width: wide characters and emoji take two columns, combining marks none', () => {
  assert.equal(textWidth('/help'), 5);
  assert.equal(textWidth('/天気'), 5);
  assert.equal(textWidth('🎲 roll'), 7);
  assert.equal(textWidth('e\u0301'), 1);
  assert.equal(textWidth('👩‍💻'), 2);
  assert.equal(textWidth('ｈｉ'), 4);
});

test('two columns: the second starts at the same terminal column on every line, wide cells too', () => {
  const lines = twoColumns([
    ['/天気 <都市>', 'the weather'],
    ['/help', 'list commands'],
    ['🎲', 'roll'],
  ]);
  // '/天気 <都市>' takes 12 columns: the others are padded to it, counted in columns.
  assert.deepEqual(lines, [
    '  /天気 <都市>  the weather',
    '  /help         list commands',
    '  🎲            roll',
  ]);
});

test('two columns: a first cell past the widest allowed stands on its own line', () => {
  const long = '/x'.repeat(20);
  assert.deepEqual(
    twoColumns(
      [
        ['/a', 'one'],
        [long, 'two'],
      ],
      10,
    ),
    ['  /a  one', `  ${long}`, '      two'],
  );
});
