import assert from 'node:assert/strict';
import { test } from 'node:test';
import { enumHas, enumKeys, findDuplicate, jsonKey } from './json-key.js';

test('equal keys exactly for values equal as JSON', () => {
  const same: Array<[unknown, unknown]> = [
    [
      { a: 1, b: [1, { c: null }] },
      { b: [1, { c: null }], a: 1 },
    ],
    [1, 1.0],
    [0, -0],
    [JSON.parse('{"__proto__":[1]}'), JSON.parse('{"__proto__":[1]}')],
  ];
  for (const [a, b] of same) assert.equal(jsonKey(a), jsonKey(b), JSON.stringify([a, b]));
  const different: Array<[unknown, unknown]> = [
    ['1', 1],
    [true, 'true'],
    [null, 'null'],
    [
      [1, 2],
      [2, 1],
    ],
    [{ a: 1 }, { a: 1, b: 2 }],
    [{}, JSON.parse('{"__proto__":{}}')],
    [{ a: '1' }, { a: 1 }],
    ['s', 'z'],
  ];
  for (const [a, b] of different) assert.notEqual(jsonKey(a), jsonKey(b), JSON.stringify([a, b]));
});

test('findDuplicate names the first repeat and the item it repeats', () => {
  assert.equal(findDuplicate([]), undefined);
  assert.equal(findDuplicate([1, '1', [1], { a: 1 }]), undefined);
  assert.deepEqual(findDuplicate([{ a: 1, b: 2 }, 3, { b: 2, a: 1 }]), [2, 0]);
  assert.deepEqual(findDuplicate(JSON.parse('[{"valueOf":1},{"toJSON":2},{"toJSON":2}]')), [2, 1]);
});

test('enum membership by key', () => {
  const keys = enumKeys(['a', 1, { x: [1] }, null]);
  assert.ok(enumHas(keys, { x: [1] }) && enumHas(keys, null) && enumHas(keys, 1));
  assert.ok(!enumHas(keys, '1') && !enumHas(keys, { x: [1, 2] }) && !enumHas(keys, 'null'));
});
