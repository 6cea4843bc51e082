// The built-in tools' generated argument validators (tools/generated/arg-validators.ts) decide
// exactly as Ajv compiling the tools' schemas at run time would: same verdict, same message,
// on hand-picked edge cases and on the fuzzers' adversarial values.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Tool } from '../src/agent/tool.js';
import { loadValidator, validateArgs } from '../src/agent/validate.js';
import { validationShape } from '../src/tools/arg-validators.js';
import { builtinTools } from '../src/tools/index.js';
import { createSkillTool } from '../src/tools/skill.js';
import { serialize } from './fuzz/json-text.js';
import { Rng } from './fuzz/prng.js';
import { value, wrongType } from './fuzz/values.js';

const tools: Tool[] = [...builtinTools(), createSkillTool(() => [])];

/** One valid argument object per tool, the seed the mutations start from. */
const VALID: Record<string, Record<string, unknown>> = {
  read: { path: 'a.txt', offset: 2, limit: 10 },
  write: { path: 'a.txt', content: 'x' },
  edit: { path: 'a.txt', edits: [{ oldText: 'a', newText: 'b' }] },
  bash: { command: 'ls', timeout: 1.5 },
  skill: { name: 'deploy' },
};

const EDGE_CASES: unknown[] = [
  null,
  [],
  'a.txt',
  42,
  {},
  JSON.parse('{"__proto__": {"path": "x"}}'),
  { path: 'a', offset: 0 },
  { path: 'a', offset: 1.5 },
  { path: 'a', limit: -1 },
  { path: 'a', content: 1 },
  { path: 'a', edits: [] },
  { path: 'a', edits: [{ oldText: 'a' }] },
  { path: 'a', edits: [{ oldText: 'a', newText: 'b', extra: 1 }, 'x'] },
  { command: 'ls', timeout: 0 },
  { command: 'ls', timeout: -0.5 },
  { command: ['ls'] },
  { name: null, constructor: 'x' },
  { toString: 'x', path: 'a', command: 'ls', name: 'n', content: '' },
];

function verdicts(tool: Tool, args: unknown): [string | undefined, string | undefined] {
  assert.ok(tool.argsValidator, `${tool.name} has a generated validator`);
  const generated = validateArgs(tool.name, tool.parameters, args, tool.argsValidator);
  const runtime = validateArgs(tool.name, tool.parameters, args);
  return [generated, runtime];
}

test('generated validators give the verdict and message Ajv gives at run time', async () => {
  await loadValidator();
  let invalid = 0;
  for (const tool of tools) {
    for (const args of [VALID[tool.name], ...EDGE_CASES]) {
      const [generated, runtime] = verdicts(tool, args);
      assert.equal(generated, runtime, `${tool.name} ${JSON.stringify(args)}`);
      if (generated !== undefined) invalid++;
    }
    assert.equal(verdicts(tool, VALID[tool.name])[0], undefined, `${tool.name}: valid seed`);
  }
  assert.ok(invalid > EDGE_CASES.length, 'the edge cases are mostly invalid');
});

test('generated validators agree with Ajv on the fuzzers adversarial values', async () => {
  await loadValidator();
  const limits = { maxBytes: 256, maxDepth: 8 };
  const rng = new Rng(14);
  let compared = 0;
  let accepted = 0;
  for (let i = 0; i < 3000; i++) {
    const tool = tools[i % tools.length]!;
    const fields = Object.keys(VALID[tool.name]!);
    let args: unknown;
    if (i % 2 === 0) {
      // A valid call with one field replaced by a value of another kind.
      const field = rng.pick(fields);
      const mutated = { ...VALID[tool.name], [field]: '\u0000' };
      const text = serialize(mutated as never).replace(
        '"\\u0000"',
        serialize(wrongType(rng, limits, mutated[field])),
      );
      args = tryParse(text);
    } else args = tryParse(serialize(value(rng, limits, 4, fields)));
    if (args === undefined) continue; // not JSON (NaN, 1e309 ...): a provider never passes it
    const [generated, runtime] = verdicts(tool, args);
    assert.equal(generated, runtime, `${tool.name} ${JSON.stringify(args)}`);
    compared++;
    if (generated === undefined) accepted++;
  }
  assert.ok(compared > 2000, `compared ${compared} values`);
  assert.ok(accepted > 0, 'some values are valid: both sides of the verdict are compared');
});

test('a tool schema depends on its options only in descriptions: one validator serves all', () => {
  const tuned = builtinTools({
    read: { maxLines: 7, maxBytes: 100 },
    bash: { defaultTimeoutSec: 3, maxLines: 5 },
  });
  for (const [index, tool] of builtinTools().entries()) {
    assert.deepEqual(validationShape(tuned[index]!.parameters), validationShape(tool.parameters));
    assert.equal(tuned[index]!.argsValidator, tool.argsValidator);
  }
  // The shape drops annotations only where a schema can stand, never data.
  assert.deepEqual(
    validationShape({
      type: 'object',
      description: 'x',
      properties: { description: { type: 'string', title: 't' } },
      enum: [{ description: 'kept' }],
      anyOf: [{ description: 'y', type: 'object' }],
    }),
    {
      type: 'object',
      properties: { description: { type: 'string' } },
      enum: [{ description: 'kept' }],
      anyOf: [{ type: 'object' }],
    },
  );
});

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
