// The fuzz targets (test/fuzz/) for a bounded number of cases inside `npm test`: once from a
// fixed seed (the same inputs on every run) and once from a random seed, which is in the test's
// name and in every failure report, with the command that replays it. `npm run fuzz` runs longer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeFromExtension, MAX_JSON_DEPTH } from '@zot/protocol';
import { checkTool } from '../src/extensions/registrations.js';
import { decodeRpcLine } from '../src/modes/rpc-decode.js';
import { nest } from './fuzz/json-text.js';
import { randomSeed, Rng } from './fuzz/prng.js';
import { formatFailure, runTarget, SHORT_LIMITS } from './fuzz/runner.js';
import { deepToolLine } from './fuzz/schemas.js';
import { TARGETS } from './fuzz/targets.js';

const FIXED_SEED = 20_250_101;
const RANDOM_SEED = randomSeed();
const CASES = 150;

for (const target of TARGETS) {
  for (const [label, seed] of [
    ['fixed seed', FIXED_SEED],
    ['random seed', RANDOM_SEED],
  ] as const) {
    test(`fuzz ${target.name}: ${CASES} cases, ${label} ${seed}`, async () => {
      const run = { seed, count: CASES, limits: SHORT_LIMITS, maxFailures: 3 };
      const failures = await runTarget(target, run);
      assert.equal(failures.length, 0, `\n${failures.map(formatFailure).join('\n\n')}`);
    });
  }
}

test('a tool schema reaches the registration checks only within the depth bound', () => {
  const rng = new Rng(FIXED_SEED);
  const within = decodeFromExtension(deepToolLine(rng, MAX_JSON_DEPTH));
  assert.ok(within.ok, 'a frame exactly at the bound decodes');
  assert.equal(typeof checkTool(within.frame as Parameters<typeof checkTool>[0]), 'object');
  for (const depth of [MAX_JSON_DEPTH + 1, 1000, 20_000]) {
    const past = decodeFromExtension(deepToolLine(rng, depth));
    assert.ok(!past.ok && /deeper than 128/.test(past.error), `depth ${depth} is refused`);
  }
});

test('an RPC request nested past the bound is refused with its id and command', () => {
  const line = `{"type":"prompt","id":7,"message":${nest(20_000, '1', '[', ']')}}`;
  assert.deepEqual(decodeRpcLine(line), {
    ok: false,
    id: 7,
    command: 'prompt',
    error: `JSON nested deeper than ${MAX_JSON_DEPTH} levels`,
  });
  const within = nest(MAX_JSON_DEPTH - 1, '"hi"', '[', ']');
  const decoded = decodeRpcLine(`{"type":"prompt","message":${within}}`);
  assert.equal(decoded.ok, false, 'a message that is not a string is still refused');
  assert.match((decoded as { error: string }).error, /message must be a string/);
});
