// Fuzz target for the estimate that decides which argument checks run on the event loop
// (agent/validation-cost.ts): on random small schemas (combinators, nested `$ref`s that recurse
// through the data) and random arguments, the estimate is never below the number of times a
// validator would apply a subschema to a value. Counted by a naive interpreter that applies
// every subschema that could apply (more than Ajv does), so an estimate below it is a bug.
import { validationCost } from '../../src/agent/validation-cost.js';
import type { Rng } from './prng.js';
import type { FuzzTarget } from './targets.js';

type Json = Record<string, unknown>;

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`contract broken: ${message}`);
}

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const REFS = ['#', '#/definitions/d', '#/definitions/e', '#/properties/a'];

function schema(rng: Rng, depth: number): Json {
  const leaf = (): Json =>
    rng.pick<Json>([
      { type: 'string' },
      { const: 1 },
      { enum: [1, 'a', null] },
      {},
      { minimum: 0 },
    ]);
  if (depth <= 0) return rng.chance(0.3) ? { $ref: rng.pick(REFS) } : leaf();
  const sub = () => schema(rng, depth - 1);
  const list = () => Array.from({ length: rng.range(1, 4) }, sub);
  return rng.pick<() => Json>([
    leaf,
    () => ({ $ref: rng.pick(REFS) }),
    () => ({ anyOf: list() }),
    () => ({ allOf: list() }),
    () => ({ oneOf: list() }),
    () => ({ not: sub() }),
    () => ({ if: sub(), then: sub(), else: sub() }),
    () => ({ type: 'object', properties: { a: sub(), b: sub() } }),
    () => ({ patternProperties: { '^a': sub() }, additionalProperties: sub() }),
    () => ({ propertyNames: sub(), dependencies: { a: sub(), b: ['a'] } }),
    () => ({ items: sub(), contains: sub() }),
    () => ({ items: list(), additionalItems: sub() }),
    () => ({ uniqueItems: true, items: { anyOf: list() } }),
  ])();
}

function data(rng: Rng, depth: number): unknown {
  if (depth <= 0 || rng.chance(0.3)) return rng.pick<unknown>([1, 'a', 'abc', null, true]);
  const size = rng.range(0, 4);
  if (rng.chance(0.5)) return Array.from({ length: size }, () => data(rng, depth - 1));
  return Object.fromEntries(
    Array.from({ length: size }, () => [rng.pick(['a', 'b', 'c', 'ab']), data(rng, depth - 1)]),
  );
}

/** The schema a `$ref` of REFS names inside `root`, if any. */
function target(root: Json, ref: string): Json | undefined {
  if (ref === '#') return root;
  const [, where, name] = ref.split('/');
  const map = root[where!];
  const found = isObject(map) ? map[name!] : undefined;
  return isObject(found) ? found : undefined;
}

const HERE = ['allOf', 'anyOf', 'oneOf'];
const HERE_ONE = ['not', 'if', 'then', 'else'];
const DOWN_ONE = ['additionalProperties', 'additionalItems', 'contains', 'propertyNames'];

/**
 * How many times `node` and its subschemas are applied to `value` and its parts, applying each
 * one everywhere it could apply; stops counting past `limit`.
 */
function applications(root: Json, node: unknown, value: unknown, limit: number): number {
  let count = 0;
  const visit = (schema: unknown, at: unknown): void => {
    if (!isObject(schema) || count > limit) return;
    count++;
    for (const key of HERE) {
      const list = schema[key];
      if (Array.isArray(list)) for (const item of list) visit(item, at);
    }
    for (const key of HERE_ONE) visit(schema[key], at);
    const dependencies = schema['dependencies'];
    if (isObject(dependencies))
      for (const item of Object.values(dependencies)) if (isObject(item)) visit(item, at);
    if (typeof schema['$ref'] === 'string') visit(target(root, schema['$ref']), at);
    if (at === null || typeof at !== 'object') return;
    const down: unknown[] = DOWN_ONE.map((key) => schema[key]);
    const items = schema['items'];
    down.push(...(Array.isArray(items) ? items : [items]));
    for (const key of ['properties', 'patternProperties']) {
      const map = schema[key];
      if (isObject(map)) down.push(...Object.values(map));
    }
    for (const [name, child] of Object.entries(at)) {
      for (const sub of down) visit(sub, child);
      if (!Array.isArray(at)) visit(schema['propertyNames'], name);
    }
  };
  visit(node, value);
  return count;
}

interface CostInput {
  schema: Json;
  args: unknown;
}

export const validationCosts: FuzzTarget<CostInput> = {
  name: 'cost',
  generate(rng) {
    const root = schema(rng, rng.range(1, 4));
    if (rng.chance(0.6)) root['definitions'] = { d: schema(rng, 2), e: schema(rng, 1) };
    const args = { a: data(rng, rng.range(1, 6)), b: data(rng, 2) };
    return { schema: root, args };
  },
  check({ schema, args }) {
    const cost = validationCost(schema, args);
    assert(cost >= 0, `the estimate ${cost} is a count`);
    if (!Number.isFinite(cost)) return; // sent to the worker: nothing to bound
    const count = applications(schema, schema, args, cost);
    assert(count <= cost, `the estimate ${cost} is below ${count} subschema applications`);
  },
  show: (input) => JSON.stringify(input),
};
