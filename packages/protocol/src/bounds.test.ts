// jsonLimitProblem: the one check zot runs before it builds a frame, a validator call or a
// session line from untrusted data.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FRAME_LIMITS, jsonLimitProblem, MAX_JSON_DEPTH } from './bounds.js';

const nested = (levels: number): unknown => {
  let value: unknown = {};
  for (let i = 1; i < levels; i++) value = [value];
  return value;
};

test('depth: exactly at the limit passes, one more level is named', () => {
  assert.equal(jsonLimitProblem(nested(10), { maxDepth: 10 }), undefined);
  assert.equal(jsonLimitProblem(nested(11), { maxDepth: 10 }), 'nested deeper than 10 levels');
  assert.equal(jsonLimitProblem('scalar', { maxDepth: 0 }), undefined);
  const frame = { type: 'event_intercept', tool_args: nested(MAX_JSON_DEPTH) };
  assert.match(jsonLimitProblem(frame, FRAME_LIMITS)!, /deeper than 128 levels/);
});

test('values: every object, array and scalar counts, the root included', () => {
  assert.equal(jsonLimitProblem({ a: [1, 2] }, { maxDepth: 5, maxValues: 4 }), undefined);
  assert.equal(
    jsonLimitProblem({ a: [1, 2, 3] }, { maxDepth: 5, maxValues: 4 }),
    'made of more than 4 values',
  );
});

test('bytes: the exact UTF-8 size as JSON decides; the cheap bound never lets a value through', () => {
  const cases: unknown[] = [
    'x'.repeat(100),
    '\u0001'.repeat(100), // each becomes \u0001: six bytes
    'é'.repeat(100),
    '😀'.repeat(50),
    '\ud800'.repeat(30), // lone surrogates are escaped
    { 'k\n': ['a', 1.5e300, -0, true, null, { x: '"\\' }] },
    Array.from({ length: 50 }, (_, i) => ({ [`key${i}`]: 'v'.repeat(i) })),
  ];
  for (const value of cases) {
    const bytes = Buffer.byteLength(JSON.stringify(value));
    assert.equal(jsonLimitProblem(value, { maxDepth: 10, maxBytes: bytes }), undefined);
    assert.equal(
      jsonLimitProblem(value, { maxDepth: 10, maxBytes: bytes - 1 }),
      `larger than ${bytes - 1} bytes as JSON`,
      JSON.stringify(value).slice(0, 40),
    );
  }
  assert.equal(
    jsonLimitProblem('x'.repeat(3 * 1024 * 1024), { maxDepth: 1, maxBytes: 2 * 1024 * 1024 }),
    'larger than 2 MiB as JSON',
  );
});
