import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseJson, parseToolArgs } from './assemble.js';

const nested = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

test('tool arguments nested past the bound become an invalid-arguments marker, not a value', () => {
  // Deep values would overflow the stack in JSON.stringify and in validation later on.
  const args = parseToolArgs(nested(100_000));
  assert.deepEqual(Object.keys(args), ['__invalid_json__']);
  assert.match(String(args.__invalid_json__), /nested deeper than 128 levels/);
  assert.deepEqual(parseToolArgs(nested(3)), { a: { a: { a: 1 } } });
  assert.deepEqual(parseToolArgs('not json'), { __invalid_json__: 'not json' });
});

test('an SSE payload nested past the bound is dropped like one that is not JSON', () => {
  assert.equal(parseJson(nested(100_000)), undefined);
  assert.deepEqual(parseJson('{"type":"ping"}'), { type: 'ping' });
});
