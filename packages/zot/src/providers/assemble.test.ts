import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ARGS_REFUSED_KEY,
  MAX_JSON_DEPTH,
  MAX_TOOL_ARGS_DEPTH,
  MAX_TOOL_ARGS_VALUES,
} from '@zot/protocol/bounds';
import { parseJson, parseToolArgs } from './assemble.js';

const nested = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

test('tool arguments past the bounds for tool arguments become a marker naming the bound', () => {
  // Deep values would overflow the stack in JSON.stringify and in validation later on; values
  // past the argument bounds would make frames, events and session lines past theirs.
  for (const levels of [100_000, MAX_JSON_DEPTH, MAX_TOOL_ARGS_DEPTH + 1])
    assert.deepEqual(parseToolArgs(nested(levels)), {
      [ARGS_REFUSED_KEY]: `nested deeper than ${MAX_TOOL_ARGS_DEPTH} levels`,
    });
  assert.equal(Object.keys(parseToolArgs(nested(MAX_TOOL_ARGS_DEPTH)))[0], 'a');
  const wide = `{"items":[${'0,'.repeat(MAX_TOOL_ARGS_VALUES)}0]}`;
  assert.deepEqual(parseToolArgs(wide), {
    [ARGS_REFUSED_KEY]: `made of more than ${MAX_TOOL_ARGS_VALUES} values`,
  });
  assert.deepEqual(parseToolArgs(nested(3)), { a: { a: { a: 1 } } });
  assert.deepEqual(parseToolArgs('not json'), { __invalid_json__: 'not json' });
});

test('an SSE payload nested past the bound is dropped like one that is not JSON', () => {
  assert.equal(parseJson(nested(100_000)), undefined);
  assert.deepEqual(parseJson('{"type":"ping"}'), { type: 'ping' });
});
