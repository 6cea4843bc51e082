import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { shellLine, shellQuote } from './shell-words.js';

const HAS_BASH = spawnSync('bash', ['-c', 'true']).status === 0;

test('plain words stay bare; others are single-quoted', () => {
  assert.equal(
    shellLine(['node', 'index.mjs', '--port=3', 'a b', "it's"]),
    `node index.mjs --port=3 'a b' 'it'\\''s'`,
  );
});

test('a word with a line break, a tab or a control character is one line of ANSI-C quoting', () => {
  assert.equal(shellQuote('print(1)\nimport os'), "$'print(1)\\nimport os'");
  assert.equal(shellQuote("a\tb\\c'd"), "$'a\\tb\\\\c\\'d'");
  assert.equal(shellQuote('x\x1b]52;c;Zm9v\x07y'), "$'x\\x1b]52;c;Zm9v\\x07y'");
  assert.equal(shellQuote('gpj.\u202eexe\u200b'), "$'gpj.\\u202eexe\\u200b'");
  assert.equal(shellQuote('tag\u{e0041}'), "$'tag\\U000e0041'");
  assert.doesNotMatch(shellLine(['sh', '-c', 'a\nb\x9b2J']), /[\n\x1b\x9b]/);
});

test(
  'bash reads every quoted word back as the word itself',
  { skip: !HAS_BASH && 'no bash' },
  () => {
    const words = [
      'print(1)\nimport os',
      "a\tb\\c'd",
      'x\x1b]52;c;Zm9v\x07y',
      'gpj.\u202eexe',
      'tag\u{e0041}',
      'spaces   in',
      "q'uote",
    ];
    const script = `printf '%s\\0' ${shellLine(words)}`;
    const out = execFileSync('bash', ['-c', script], { encoding: 'utf8' });
    assert.deepEqual(out.split('\0').slice(0, -1), words);
  },
);
