// Word-level changes between a removed line and the line that replaced it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_TOKENS, wordChanges } from './word-diff.js';

const marked = (text: string, spans: ReadonlyArray<readonly [number, number]>) =>
  spans.map(([start, end]) => text.slice(start, end));

test('the words that changed on each side, and nothing else', () => {
  const before = 'const total = price * count;';
  const after = 'const total = price * quantity + tax;';
  const changes = wordChanges(before, after)!;
  assert.deepEqual(marked(before, changes.removed), ['count']);
  assert.deepEqual(marked(after, changes.added), ['quantity + tax']);
});

test('two changed words with one space between them are one span', () => {
  const changes = wordChanges('let a = old value;', 'let a = new thing;')!;
  assert.deepEqual(marked('let a = old value;', changes.removed), ['old value']);
  assert.deepEqual(marked('let a = new thing;', changes.added), ['new thing']);
});

test('non-ASCII words are whole tokens; offsets are UTF-16 positions in the line', () => {
  const changes = wordChanges('größe = 1 // 日本', 'größe = 2 // 日本')!;
  assert.deepEqual(marked('größe = 1 // 日本', changes.removed), ['1']);
  assert.deepEqual(marked('größe = 2 // 日本', changes.added), ['2']);
});

test('no marks for lines that share nothing but spaces, an empty side, or too many words', () => {
  assert.equal(wordChanges('alpha beta', 'gamma delta'), undefined);
  assert.equal(wordChanges('', 'something'), undefined);
  const long = Array.from({ length: MAX_TOKENS }, (_, i) => `w${i}`).join(' ');
  assert.equal(wordChanges(long, `${long} more`), undefined);
  // Just within the bound it still compares.
  const short = Array.from({ length: 100 }, (_, i) => `w${i}`).join(' ');
  assert.deepEqual(marked(`${short}!`, wordChanges(short, `${short}!`)!.added), ['!']);
});
