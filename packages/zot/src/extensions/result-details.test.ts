import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EXTENSION_DETAILS_LIMITS as LIMITS } from '../contract/details-limits.js';
import { checkResultDetails } from './result-details.js';

test('a diff is kept as sent; a longer one is cut at a line end and marked', () => {
  assert.deepEqual(checkResultDetails({ kind: 'diff', diff: '-a\n+b\n' }), {
    details: { kind: 'diff', diff: '-a\n+b\n' },
  });
  const line = '+' + 'x'.repeat(99) + '\n';
  const long = line.repeat(Math.ceil(LIMITS.diffChars / line.length) + 5);
  const checked = checkResultDetails({ kind: 'diff', diff: long });
  assert.equal(checked.details?.kind, 'diff');
  const cut = checked.details as { diff: string; truncated?: boolean };
  assert.ok(cut.diff.length <= LIMITS.diffChars);
  assert.ok(cut.diff.endsWith('\n') && long.startsWith(cut.diff));
  assert.equal(cut.truncated, true);
  assert.match(checked.note!, /cut to 100000/);
});

test('a table: cells written out as text, long cells cut with …, extra rows cut and marked', () => {
  const rows = Array.from({ length: LIMITS.rows + 3 }, (_, i) => [`r${i}`, i, i % 2 === 0, null]);
  rows[0]![0] = 'y'.repeat(LIMITS.cellChars + 10);
  const checked = checkResultDetails({ kind: 'table', columns: ['a', 'b', 'c', 'd'], rows });
  const table = checked.details as { columns: string[]; rows: string[][]; truncated?: boolean };
  assert.deepEqual(table.columns, ['a', 'b', 'c', 'd']);
  assert.equal(table.rows.length, LIMITS.rows);
  assert.deepEqual(table.rows[1], ['r1', '1', 'false', '']);
  assert.equal(table.rows[0]![0]!.length, LIMITS.cellChars);
  assert.ok(table.rows[0]![0]!.endsWith('…'));
  assert.equal(table.truncated, true);
});

test('details zot cannot show are left out with the reason, never thrown', () => {
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ kind: 'chart' }, /details of "chart" left out/],
    [{}, /details of no kind left out/],
    [{ kind: 'diff', diff: 5 }, /`diff` is not a string/],
    [{ kind: 'table', columns: [], rows: [] }, /`columns` is not a list of names/],
    [{ kind: 'table', columns: Array(LIMITS.columns + 1).fill('c'), rows: [] }, /21 columns/],
    [{ kind: 'table', columns: ['a'], rows: 'x' }, /`rows` is not a list/],
    [{ kind: 'table', columns: [{}], rows: [] }, /a column name is not text/],
    [
      { kind: 'table', columns: ['a'], rows: [['1', '2']] },
      /row 1 is not a list of at most 1 cells/,
    ],
    [{ kind: 'table', columns: ['a'], rows: [[['nested']]] }, /row 1 has a cell that is not text/],
  ];
  for (const [raw, reason] of cases) {
    const checked = checkResultDetails(raw);
    assert.equal(checked.details, undefined, JSON.stringify(raw));
    assert.match(checked.note!, reason);
  }
});
