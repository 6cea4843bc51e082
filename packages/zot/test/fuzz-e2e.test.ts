// End-to-end fuzz (test/fuzz/e2e.ts): a fixture extension writes adversarial lines and frames
// right after the handshake; zot must deliver the marker, answer the prompt and exit cleanly.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runE2eCase } from './fuzz/e2e.js';
import { randomSeed } from './fuzz/prng.js';
import { SHORT_LIMITS } from './fuzz/runner.js';

for (const [label, seed] of [
  ['fixed seed', 20_250_101],
  ['random seed', randomSeed()],
] as const) {
  test(`fuzz e2e: zot survives an extension's adversarial stream, ${label} ${seed}`, async () => {
    const problem = await runE2eCase(seed, SHORT_LIMITS);
    assert.equal(problem, undefined, `\n${problem}`);
  });
}
