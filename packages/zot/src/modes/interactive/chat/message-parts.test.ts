// Counts as the chat shows them, written without Intl (whose first use costs a resume its
// number formats).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { groupedCount } from './message-parts.js';

test('groupedCount puts a comma between each group of three digits', () => {
  assert.equal(groupedCount(0), '0');
  assert.equal(groupedCount(999), '999');
  assert.equal(groupedCount(1000), '1,000');
  assert.equal(groupedCount(3921), '3,921');
  assert.equal(groupedCount(1_234_567), '1,234,567');
  for (const n of [1, 12, 123, 4567, 89_012, 345_678, 9_012_345, 2 ** 31])
    assert.equal(groupedCount(n), n.toLocaleString('en-US'));
});
