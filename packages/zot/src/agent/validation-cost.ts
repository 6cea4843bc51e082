// How much validating some arguments against a schema can cost, at most, measured cheaply, so
// that only work known to be small runs on the event loop (validate.ts); the rest goes to the
// validation worker (validation-pool.ts).
//
// Validation time is the data's size times the schema's: Ajv checks a value against each
// subschema that applies where the value sits, and an `anyOf` of 500 branches checks each of
// 99,000 items 500 times (about 30 s). Compiling a schema costs time too (a 48 KiB schema of 500
// branches took seconds). So a call validates on the event loop only when
// - the schema is small (SMALL_SCHEMA_VALUES JSON values at most): it compiles in milliseconds;
// - and an upper bound of the work, (subschemas that can apply to one value) × (the values of
//   the arguments, plus their characters over CHARS_PER_VALUE when a keyword scans strings),
//   is at most INLINE_COST: a few milliseconds even when every check fails and Ajv builds an
//   error for each (about 1 µs per unit on an idle machine).
// Anything else, or anything this module cannot bound (a schema it cannot resolve), goes to the
// worker, where a deadline bounds it instead.
import type { JsonSchema } from '../providers/types.js';
import { MAX_TOOL_ARGS_DEPTH } from '@zot/protocol/bounds';
import { isObject, schemaGraph, type Json } from './schema-refs.js';

export const INLINE_LIMITS = {
  /** JSON values in a schema compiled on the event loop (30 described properties are ~150). */
  schemaValues: 256,
  /** Units of work validated on the event loop; see the file's comment. */
  cost: 20_000,
  /** Characters that count as one value for keywords that read a whole string (RE2: ~25x). */
  charsPerValue: 16,
} as const;

// Keywords whose subschemas apply to the parts of the value (one level down) ...
const DOWN_ONE = [
  'additionalProperties',
  'additionalItems',
  'items',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
];
const DOWN_MAP = ['properties', 'patternProperties'];
const DOWN_LIST = ['items', 'prefixItems'];
// ... to the value itself ...
const HERE_ONE = ['not', 'if', 'then', 'else'];
const HERE_LIST = ['allOf', 'anyOf', 'oneOf'];
const HERE_MAP = ['dependentSchemas', 'dependencies'];
// ... or to nothing until a `$ref` names them.
const NOT_APPLIED = ['definitions', '$defs'];
const SCHEMA_KEYWORDS = new Set([
  ...DOWN_ONE,
  ...DOWN_MAP,
  ...DOWN_LIST,
  ...HERE_ONE,
  ...HERE_LIST,
  ...HERE_MAP,
  ...NOT_APPLIED,
]);
/** Keywords whose cost grows with the length of a string (or a value's size: hashing). */
const SCANS = new Set([
  'pattern',
  'patternProperties',
  'propertyNames',
  'minLength',
  'maxLength',
  'format',
  'enum',
  'const',
  'uniqueItems',
]);

/** JSON values in `value`, counted up to `cap` (then cap + 1). Iterative. */
export function countJsonValues(value: unknown, cap = Infinity): number {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && count <= cap) {
    const item = stack.pop();
    count++;
    if (item !== null && typeof item === 'object')
      for (const child of Object.values(item)) stack.push(child);
  }
  return Math.min(count, cap + 1);
}

export interface ArgsSize {
  /** Objects, arrays and scalars, the root included. */
  values: number;
  /** Characters of strings and object keys. */
  chars: number;
  /** Nesting: a scalar is 0, `{}` is 1. */
  depth: number;
}

/** Contract: never recurses, never throws; linear in the arguments (already bounded). */
export function measureArgs(args: unknown): ArgsSize {
  const size: ArgsSize = { values: 0, chars: 0, depth: 0 };
  const stack: Array<{ value: unknown; depth: number }> = [{ value: args, depth: 0 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    size.values++;
    if (typeof value === 'string') size.chars += value.length;
    if (value === null || typeof value !== 'object') continue;
    size.depth = Math.max(size.depth, depth + 1);
    if (!Array.isArray(value)) for (const key of Object.keys(value)) size.chars += key.length;
    for (const child of Object.values(value)) stack.push({ value: child, depth: depth + 1 });
  }
  return size;
}

interface Node {
  /** This schema's own keyword values (JSON values), itself counted as 1. */
  weight: number;
  here: Json[];
  down: Json[];
}

/** What a small schema costs per value: `perValue[d]` for a value with `d` levels below it. */
interface SchemaCost {
  perValue: number[];
  scans: boolean;
}

/** Where a number stops growing: far past every budget, far from losing precision. */
const SATURATED = 1e15;

/**
 * The schema's cost per value, or undefined when it is large or cannot be bounded.
 * Contract: never throws, never recurses; linear in the (small) schema times the depth bound.
 */
function schemaCost(schema: Json): SchemaCost | undefined {
  if (countJsonValues(schema, INLINE_LIMITS.schemaValues) > INLINE_LIMITS.schemaValues)
    return undefined;
  const references = schemaGraph(schema);
  if (typeof references === 'string') return undefined;
  let scans = false;
  const nodes = new Map<Json, Node>();
  for (const node of references.nodes.keys()) {
    const entry: Node = { weight: 1, here: [], down: [] };
    const add = (value: unknown, into: Json[]) => {
      if (isObject(value)) into.push(value);
      else entry.weight++; // `true`, `false`: one check
    };
    for (const [key, value] of Object.entries(node)) {
      if (SCANS.has(key)) scans = true;
      if (!SCHEMA_KEYWORDS.has(key)) entry.weight += countJsonValues(value);
      else if (NOT_APPLIED.includes(key)) continue;
      else if (HERE_ONE.includes(key)) add(value, entry.here);
      else if (HERE_LIST.includes(key) && Array.isArray(value))
        for (const item of value) add(item, entry.here);
      else if (HERE_MAP.includes(key) && isObject(value)) {
        for (const item of Object.values(value)) {
          if (Array.isArray(item))
            entry.weight += item.length; // property dependencies
          else add(item, entry.here);
        }
      } else if (DOWN_MAP.includes(key) && isObject(value))
        for (const item of Object.values(value)) add(item, entry.down);
      else if (DOWN_LIST.includes(key) && Array.isArray(value))
        for (const item of value) add(item, entry.down);
      else if (DOWN_ONE.includes(key)) add(value, entry.down);
      else entry.weight += countJsonValues(value);
    }
    const target = references.refTargets.get(node);
    if (target) entry.here.push(target);
    nodes.set(node, entry);
  }
  // Every subschema is one of the nodes (schemaGraph walks the same keywords): checked, so
  // that a keyword walked here but not there can never count as free.
  for (const { here, down } of nodes.values())
    if (![...here, ...down].every((child) => nodes.has(child))) return undefined;
  const order = hereOrder(schema, nodes);
  if (!order) return undefined;
  // cost[d] of a node: its weight, what applies to the same value, and what applies one level
  // down with d - 1 levels left. Children of the in-place order come first.
  const perValue: number[] = [];
  let below = new Map<Json, number>();
  // Arguments are at most MAX_TOOL_ARGS_DEPTH levels deep: their values at most that many
  // levels below the root.
  for (let d = 0; d <= MAX_TOOL_ARGS_DEPTH; d++) {
    const level = new Map<Json, number>();
    for (const node of order) {
      const { weight, here, down } = nodes.get(node)!;
      let cost = weight;
      for (const child of here) cost += level.get(child) ?? 0;
      for (const child of down) cost += below.get(child) ?? 0;
      level.set(node, Math.min(cost, SATURATED));
    }
    perValue.push(level.get(schema) ?? SATURATED);
    below = level;
  }
  return { perValue, scans };
}

/**
 * The nodes reachable from `root`, each after every node it applies in place (a post-order of
 * the in-place graph); undefined when that graph has a cycle (validation would not end; such a
 * schema is refused at registration, and Ajv in the worker meets the deadline otherwise).
 */
function hereOrder(root: Json, nodes: Map<Json, Node>): Json[] | undefined {
  const order: Json[] = [];
  const state = new Map<Json, 'open' | 'done'>();
  for (const start of nodes.keys()) {
    if (state.has(start)) continue;
    state.set(start, 'open');
    const stack: Array<{ node: Json; next: Json[] }> = [
      { node: start, next: [...(nodes.get(start)?.here ?? [])] },
    ];
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const child = top.next.pop();
      if (child === undefined) {
        state.set(top.node, 'done');
        order.push(top.node);
        stack.pop();
        continue;
      }
      const seen = state.get(child);
      if (seen === 'open') return undefined;
      if (seen === undefined) {
        state.set(child, 'open');
        stack.push({ node: child, next: [...nodes.get(child)!.here] });
      }
    }
  }
  return nodes.has(root) ? order : undefined;
}

const costs = new WeakMap<JsonSchema, SchemaCost | 'unbounded'>();

/**
 * An upper bound of the work of validating `args` against `schema` (in the units of the file's
 * comment), or Infinity when `schema` is too large to compile on the event loop or cannot be
 * bounded. The schema's side is worked out once per schema object.
 * Contract: never throws; linear in the arguments.
 */
export function validationCost(schema: JsonSchema, args: unknown): number {
  let cost = costs.get(schema);
  if (cost === undefined) {
    cost = schemaCost(schema as Json) ?? 'unbounded';
    costs.set(schema, cost);
  }
  if (cost === 'unbounded') return Infinity;
  const size = measureArgs(args);
  // A scalar has no level below it, `[1]` one: the deepest value lies `depth` levels below the
  // root (or one less when the deepest array or object is empty).
  const below = size.depth;
  if (below >= cost.perValue.length) return Infinity;
  const units = size.values + (cost.scans ? size.chars / INLINE_LIMITS.charsPerValue : 0);
  return cost.perValue[below]! * units;
}

/** Whether validating `args` against `schema` is small enough for the event loop. */
export function validatesInline(schema: JsonSchema, args: unknown): boolean {
  return validationCost(schema, args) <= INLINE_LIMITS.cost;
}
