import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkExtensionName, EXTENSION_NAME_PATTERN } from './names.js';

test('valid names pass', () => {
  for (const name of ['a', 'hello-py', 'weather', 'x.y_z-1', '0', 'a'.repeat(64)]) {
    assert.equal(checkExtensionName(name), undefined, name);
    assert.match(name, EXTENSION_NAME_PATTERN);
  }
});

test('names outside the rule are refused with the rule in the message', () => {
  const bad = [
    '',
    '.',
    '..',
    '../x',
    'a/b',
    'a\\b',
    'A',
    'Hello',
    '-x',
    '_x',
    '.x',
    'a b',
    'a..b',
    'é',
  ];
  for (const name of [...bad, 'a'.repeat(65), 'x\n']) {
    const error = checkExtensionName(name);
    assert.ok(error, `expected ${JSON.stringify(name)} to be refused`);
    assert.match(error, /\^\[a-z0-9\]\[a-z0-9\._-\]\{0,63\}\$/);
    assert.ok(error.includes(JSON.stringify(name)), error);
  }
});

test('a non-string is refused, not thrown on', () => {
  assert.match(checkExtensionName(42 as unknown as string) ?? '', /expected a string/);
});
