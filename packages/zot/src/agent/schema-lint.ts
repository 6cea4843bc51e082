// Registration-time checks that the draft-07 meta-schema cannot make: every `pattern` and
// `patternProperties` key must run on our linear-time regex engine, and every `$ref` must
// resolve inside the schema. A tool that would only fail when the model calls it is rejected
// when it is registered instead. The walk is iterative: schemas come from extensions.
import uriRuntime from 'ajv/dist/runtime/uri.js';
import { safeRegexProblem } from '../util/safe-regex.js';
import { noObjectProblem } from './schema-object.js';

type Json = Record<string, unknown>;

const ONE_SCHEMA = [
  'additionalProperties',
  'additionalItems',
  'items',
  'contains',
  'propertyNames',
  'if',
  'then',
  'else',
  'not',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
];
const SCHEMA_MAP = ['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas'];
const SCHEMA_LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];
// Ajv knows these meta-schemas without being told.
const KNOWN_REMOTE = new Set([
  'http://json-schema.org/draft-07/schema',
  'http://json-schema.org/schema',
]);

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

interface Visit {
  node: Json;
  path: string;
  /** The schema resource a `#...` reference at this node is resolved against. */
  resource: Json;
}

interface Found {
  refs: Array<{ ref: string; path: string; owner: Json; resource: Json }>;
  /** Anchor names of each resource, with the schema each names. */
  anchors: Map<Json, Map<string, Json>>;
  ids: Map<string, Json>;
  /** Every schema object, with its path. */
  nodes: Map<Json, string>;
}

const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

function children(visit: Visit): Visit[] {
  const { node, path } = visit;
  const out: Visit[] = [];
  const push = (value: unknown, where: string) => {
    if (isObject(value)) out.push({ node: value, path: where, resource: visit.resource });
  };
  for (const key of ONE_SCHEMA) push(node[key], `${path}/${key}`);
  for (const key of SCHEMA_MAP) {
    const map = node[key];
    if (!isObject(map)) continue;
    for (const [name, value] of Object.entries(map))
      push(value, `${path}/${key}/${escapePointer(name)}`);
  }
  for (const key of SCHEMA_LIST) {
    const list = node[key];
    if (Array.isArray(list)) list.forEach((value, i) => push(value, `${path}/${key}/${i}`));
  }
  const dependencies = node['dependencies'];
  if (isObject(dependencies)) {
    for (const [name, value] of Object.entries(dependencies))
      push(value, `${path}/dependencies/${escapePointer(name)}`);
  }
  return out;
}

/** JSON pointer (`/a/b`, URI-encoded as in a fragment) inside `root`, or undefined. */
function resolvePointer(root: Json, pointer: string): unknown {
  if (pointer === '') return root;
  let decoded: string;
  try {
    decoded = decodeURIComponent(pointer);
  } catch {
    return undefined;
  }
  if (!decoded.startsWith('/')) return undefined;
  let node: unknown = root;
  for (const raw of decoded.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node) && /^(0|[1-9][0-9]*)$/.test(key)) node = node[Number(key)];
    else if (isObject(node) && Object.prototype.hasOwnProperty.call(node, key)) node = node[key];
    else return undefined;
  }
  return node;
}

/** The schema object `ref` points at, `true` when it resolves to no object, or undefined. */
function resolveRef(ref: string, resource: Json, found: Found): Json | true | undefined {
  const hash = ref.indexOf('#');
  const base = hash === -1 ? ref : ref.slice(0, hash);
  const fragment = hash === -1 ? '' : ref.slice(hash + 1);
  let target: Json | undefined = resource;
  if (base !== '') {
    target = found.ids.get(base);
    if (!target) return KNOWN_REMOTE.has(base) && fragment === '' ? true : undefined;
  }
  if (fragment === '' || fragment.startsWith('/') || fragment.startsWith('%2F')) {
    const value = resolvePointer(target, fragment);
    if (isObject(value)) return value;
    return typeof value === 'boolean' ? true : undefined;
  }
  return found.anchors.get(target)?.get(fragment);
}

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

/**
 * Returns the first problem with `schema`'s patterns and references (unresolvable, or a cycle
 * that never reaches the data), or undefined.
 * Contract: never throws; never recurses (depth is bounded by the frame decoder anyway).
 */
export function lintSchema(schema: Json): string | undefined {
  const found: Found = { refs: [], anchors: new Map(), ids: new Map(), nodes: new Map() };
  const stack: Visit[] = [{ node: schema, path: '', resource: schema }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const { node, path } = visit;
    // Ajv refuses draft-04's `id` keyword outright, and every call of the tool would fail.
    if (Object.prototype.hasOwnProperty.call(node, 'id'))
      return `${path || '(schema)'}/id: "id" is draft-04's keyword; draft-07 names it "$id"`;
    const id = node['$id'];
    if (typeof id === 'string' && id !== '') {
      const problem = uriProblem(id);
      if (problem) return `${path || '(schema)'}/$id: ${JSON.stringify(id)} ${problem}`;
      if (id.startsWith('#')) addAnchor(found, visit.resource, id.slice(1), node);
      else {
        const base = id.replace(/#$/, '');
        // Ajv refuses a schema whose `$id` names two schemas: every call would fail.
        if (found.ids.has(base) && found.ids.get(base) !== node)
          return `${path || '(schema)'}/$id: ${JSON.stringify(id)} names two schemas`;
        found.ids.set(base, node);
        visit.resource = node;
      }
    }
    if (typeof node['$anchor'] === 'string')
      addAnchor(found, visit.resource, node['$anchor'], node);
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
    if (typeof node['$ref'] === 'string')
      found.refs.push({
        ref: node['$ref'],
        path: `${path}/$ref`,
        owner: node,
        resource: visit.resource,
      });
    found.nodes.set(node, path);
    for (const child of children(visit)) stack.push(child);
  }
  const refTargets = new Map<Json, Json>();
  for (const { ref, path, owner, resource } of found.refs) {
    const target = resolveRef(ref, resource, found);
    if (target === undefined)
      return `${path}: cannot resolve ${JSON.stringify(ref)} (only references inside the schema are supported)`;
    if (target !== true) refTargets.set(owner, target);
  }
  const cycle = inPlaceCycle(found.nodes, refTargets);
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

function addAnchor(found: Found, resource: Json, name: string, node: Json): void {
  let names = found.anchors.get(resource);
  if (!names) found.anchors.set(resource, (names = new Map()));
  names.set(name, node);
}
