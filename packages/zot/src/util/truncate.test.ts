import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  formatBytes,
  headBytes,
  splitLines,
  tailBytes,
  truncateHead,
  truncateLine,
  truncateTail,
} from './truncate.js';

test('splitLines: a final newline ends the last line', () => {
  assert.deepEqual(splitLines(''), []);
  assert.deepEqual(splitLines('a\nb\n'), ['a', 'b']);
  assert.deepEqual(splitLines('a\nb'), ['a', 'b']);
  assert.deepEqual(splitLines('a\n\n'), ['a', '']);
});

test('truncateTail keeps the last whole lines within the line limit', () => {
  const result = truncateTail('1\n2\n3\n4\n5\n', { maxLines: 2, maxBytes: 1000 });
  assert.equal(result.text, '4\n5');
  assert.equal(result.truncated, true);
  assert.equal(result.totalLines, 5);
  assert.equal(result.shownLines, 2);
});

test('truncateTail cuts at line boundaries within the byte limit', () => {
  // "bbbb\ncccc" is 9 bytes; adding "aaaa\n" would make 14.
  const result = truncateTail('aaaa\nbbbb\ncccc', { maxLines: 100, maxBytes: 12 });
  assert.equal(result.text, 'bbbb\ncccc');
  assert.equal(result.shownLines, 2);
  assert.equal(result.partialLine, false);
});

test('truncateTail keeps the tail of a single over-long last line', () => {
  const result = truncateTail(`head\n${'x'.repeat(50)}end`, { maxLines: 10, maxBytes: 10 });
  assert.equal(result.text, 'xxxxxxxend');
  assert.equal(result.partialLine, true);
  assert.equal(result.shownLines, 1);
});

test('truncateHead keeps the first lines', () => {
  const result = truncateHead('1\n2\n3\n', { maxLines: 2, maxBytes: 100 });
  assert.equal(result.text, '1\n2');
  assert.equal(result.truncated, true);
  assert.equal(truncateHead('1\n2\n', { maxLines: 2, maxBytes: 100 }).truncated, false);
});

test('byte cuts never split a UTF-8 character', () => {
  assert.equal(tailBytes('aé', 2), 'é');
  assert.equal(tailBytes('aé', 1), '');
  assert.equal(headBytes('éa', 1), '');
  assert.equal(headBytes('éa', 2), 'é');
});

test('truncateLine respects surrogate pairs and reports cuts', () => {
  assert.deepEqual(truncateLine('abc', 3), { text: 'abc', cut: false });
  assert.deepEqual(truncateLine('abcd', 3), { text: 'abc', cut: true });
  assert.deepEqual(truncateLine('a😀b', 2), { text: 'a', cut: true });
});

test('formatBytes', () => {
  assert.equal(formatBytes(10), '10 B');
  assert.equal(formatBytes(50 * 1024), '50 KB');
  assert.equal(formatBytes(5 * 1024 * 1024), '5 MB');
});
