import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { sha256Hex, SHA256_TEXT_MAX_BYTES } from './sha256.js';

const reference = (text: string) => createHash('sha256').update(text).digest('hex');

test('sha256Hex gives the digest node:crypto gives, at every padding boundary', () => {
  // 55/56 and 63/64/65 bytes: the length field fits in the last block or needs another one.
  for (let length = 0; length <= 200; length++) {
    const text = 'x'.repeat(length);
    assert.equal(sha256Hex(text), reference(text), `length ${length}`);
  }
  assert.equal(
    sha256Hex('abc'),
    'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
  );
});

test('sha256Hex hashes UTF-8 bytes, as node:crypto hashes a string', () => {
  for (const text of [
    '/home/u/.zot/extensions/weather',
    '/home/ü/プロジェクト/ext',
    '😀 emoji and \u0000 NUL',
    '/'.repeat(5000),
  ])
    assert.equal(sha256Hex(text), reference(text), text.slice(0, 40));
});

test('sha256Hex refuses a text past its bound instead of hashing megabytes slowly', () => {
  assert.throws(() => sha256Hex('a'.repeat(SHA256_TEXT_MAX_BYTES + 1)), /more than it hashes/);
});
