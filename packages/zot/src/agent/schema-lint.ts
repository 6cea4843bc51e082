// Registration-time checks that the draft-07 meta-schema cannot make: every `pattern` and
// `patternProperties` key must run on our linear-time regex engine, and every `$ref` must
// resolve inside the schema. A tool that would only fail when the model calls it is rejected
// when it is registered instead. The walk is iterative: schemas come from extensions.
import uriRuntime from 'ajv/dist/runtime/uri.js';
import { safeRegexProblem } from '../util/safe-regex.js';
import { noObjectProblem } from './schema-object.js';
import { children, isObject, schemaGraph, type Json } from './schema-refs.js';

// Keywords that apply a subschema to the same instance (not to a part of it). A cycle of these
// and `$ref`s never reaches the data's end: validation would recurse until the stack runs out.
const IN_PLACE_ONE = ['not', 'if', 'then', 'else'];
const IN_PLACE_LIST = ['allOf', 'anyOf', 'oneOf'];
const IN_PLACE_MAP = ['dependentSchemas', 'dependencies'];

function inPlaceChildren(node: Json, refTargets: Map<Json, Json>): Json[] {
  const out: Json[] = [];
  for (const key of IN_PLACE_ONE) if (isObject(node[key])) out.push(node[key] as Json);
  for (const key of IN_PLACE_LIST) {
    const list = node[key];
    if (Array.isArray(list)) for (const item of list) if (isObject(item)) out.push(item);
  }
  for (const key of IN_PLACE_MAP) {
    const map = node[key];
    if (isObject(map)) for (const item of Object.values(map)) if (isObject(item)) out.push(item);
  }
  const target = refTargets.get(node);
  if (target) out.push(target);
  return out;
}

/** The path of a node on a same-instance cycle, or undefined. Iterative three-colour DFS. */
function inPlaceCycle(nodes: Map<Json, string>, refTargets: Map<Json, Json>): string | undefined {
  const state = new Map<Json, 'open' | 'done'>();
  for (const start of nodes.keys()) {
    if (state.has(start)) continue;
    const stack: Array<{ node: Json; next: Json[] }> = [
      { node: start, next: inPlaceChildren(start, refTargets) },
    ];
    state.set(start, 'open');
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const child = top.next.pop();
      if (child === undefined) {
        state.set(top.node, 'done');
        stack.pop();
        continue;
      }
      const seen = state.get(child);
      if (seen === 'open') return nodes.get(child) ?? '(schema)';
      if (seen === undefined) {
        state.set(child, 'open');
        stack.push({ node: child, next: inPlaceChildren(child, refTargets) });
      }
    }
  }
  return undefined;
}

/** What zot's validator would refuse in one schema object, or undefined. */
function nodeProblem(node: Json, path: string): string | undefined {
  // Ajv refuses draft-04's `id` keyword outright, and every call of the tool would fail.
  if (Object.prototype.hasOwnProperty.call(node, 'id'))
    return `${path || '(schema)'}/id: "id" is draft-04's keyword; draft-07 names it "$id"`;
  const id = node['$id'];
  if (typeof id === 'string' && id !== '') {
    const problem = uriProblem(id);
    if (problem) return `${path || '(schema)'}/$id: ${JSON.stringify(id)} ${problem}`;
  }
  if (typeof node['pattern'] === 'string') {
    const problem = safeRegexProblem(node['pattern']);
    if (problem) return `${path || '(schema)'}/pattern: ${problem}`;
  }
  if (isObject(node['patternProperties'])) {
    for (const key of Object.keys(node['patternProperties'])) {
      const problem = safeRegexProblem(key);
      if (problem) return `${path || '(schema)'}/patternProperties: ${problem}`;
    }
  }
  return undefined;
}

/**
 * Returns the first problem with `schema`'s patterns and references (unresolvable, or a cycle
 * that never reaches the data), or undefined.
 * Contract: never throws; never recurses (depth is bounded by the frame decoder anyway).
 */
export function lintSchema(schema: Json): string | undefined {
  const graph = schemaGraph(schema, nodeProblem);
  if (typeof graph === 'string') return graph;
  const { nodes, refTargets } = graph;
  const cycle = inPlaceCycle(nodes, refTargets);
  if (cycle !== undefined)
    return `${cycle || '(schema)'}: references itself without descending into the data (validation would never end)`;
  const expanded = expandedSize(schema, refTargets);
  if (expanded > MAX_EXPANDED_SIZE)
    return `(schema): its references expand it past ${MAX_EXPANDED_SIZE} subschemas (each argument would be checked against all of them)`;
  const noObject = noObjectProblem(schema, refTargets);
  if (noObject !== undefined) return `no arguments object can match it: ${noObject}`;
  return undefined;
}

/**
 * Most subschemas a schema may stand for once its `$ref`s are followed. References multiply:
 * twenty definitions that each use the next twice stand for a million checks of every value
 * (and Ajv compiles and runs them all), from a schema of a few hundred bytes.
 */
export const MAX_EXPANDED_SIZE = 50_000;

/**
 * The size of `root` with every `$ref` replaced by its target, saturating past the limit. A
 * reference back to a schema being expanded (recursion, which descends into the data) counts one.
 * Iterative post-order walk, memoised: linear in the schema.
 */
function expandedSize(root: Json, refTargets: Map<Json, Json>): number {
  const cap = MAX_EXPANDED_SIZE + 1;
  const kidsOf = (node: Json): Json[] => {
    const kids = children({ node, path: '', resource: node }).map((visit) => visit.node);
    const target = refTargets.get(node);
    return target ? [...kids, target] : kids;
  };
  const done = new Map<Json, number>();
  const open = new Set<Json>([root]);
  const stack: Array<{ node: Json; kids: Json[]; next: number; size: number }> = [
    { node: root, kids: kidsOf(root), next: 0, size: 1 },
  ];
  let size = 0;
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.next < top.kids.length) {
      const kid = top.kids[top.next++]!;
      const known = done.get(kid) ?? (open.has(kid) ? 1 : undefined);
      if (known !== undefined) top.size = Math.min(cap, top.size + known);
      else {
        open.add(kid);
        stack.push({ node: kid, kids: kidsOf(kid), next: 0, size: 1 });
      }
      continue;
    }
    stack.pop();
    open.delete(top.node);
    done.set(top.node, top.size);
    size = top.size;
    const parent = stack[stack.length - 1];
    if (parent) parent.size = Math.min(cap, parent.size + top.size);
  }
  return size;
}

/** Ajv's URI library (CommonJS: the default export is its `exports`). */
const uri = uriRuntime.default;

/** Why Ajv's URI library cannot read `id` as it does when compiling, or undefined. */
function uriProblem(id: string): string | undefined {
  try {
    uri.serialize(uri.parse(id.replace(/#\/?$/, '')));
    uri.resolve('', id);
    return undefined;
  } catch (error) {
    return `is not a URI zot can resolve (${error instanceof Error ? error.message : String(error)})`;
  }
}
