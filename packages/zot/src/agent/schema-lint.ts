// Registration-time checks that the draft-07 meta-schema cannot make: every `pattern` and
// `patternProperties` key must run on our linear-time regex engine, and every `$ref` must
// resolve inside the schema. A tool that would only fail when the model calls it is rejected
// when it is registered instead. The walk is iterative: schemas come from extensions.
import { safeRegexProblem } from '../util/safe-regex.js';

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
  refs: Array<{ ref: string; path: string; resource: Json }>;
  anchors: Map<Json, Set<string>>;
  ids: Map<string, Json>;
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

function resolves(ref: string, resource: Json, found: Found): boolean {
  const hash = ref.indexOf('#');
  const base = hash === -1 ? ref : ref.slice(0, hash);
  const fragment = hash === -1 ? '' : ref.slice(hash + 1);
  let target: Json | undefined = resource;
  if (base !== '') {
    target = found.ids.get(base);
    if (!target) return KNOWN_REMOTE.has(base) && fragment === '';
  }
  if (fragment === '' || fragment.startsWith('/') || fragment.startsWith('%2F')) {
    const value = resolvePointer(target, fragment);
    return isObject(value) || typeof value === 'boolean';
  }
  return found.anchors.get(target)?.has(fragment) ?? false;
}

/**
 * Returns the first problem with `schema`'s patterns and references, or undefined.
 * Contract: never throws; never recurses (depth is bounded by the frame decoder anyway).
 */
export function lintSchema(schema: Json): string | undefined {
  const found: Found = { refs: [], anchors: new Map(), ids: new Map() };
  const stack: Visit[] = [{ node: schema, path: '', resource: schema }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const { node, path } = visit;
    const id = node['$id'];
    if (typeof id === 'string' && id !== '') {
      if (id.startsWith('#')) addAnchor(found, visit.resource, id.slice(1));
      else {
        const base = id.replace(/#$/, '');
        found.ids.set(base, node);
        visit.resource = node;
      }
    }
    if (typeof node['$anchor'] === 'string') addAnchor(found, visit.resource, node['$anchor']);
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
      found.refs.push({ ref: node['$ref'], path: `${path}/$ref`, resource: visit.resource });
    for (const child of children(visit)) stack.push(child);
  }
  for (const { ref, path, resource } of found.refs) {
    if (!resolves(ref, resource, found))
      return `${path}: cannot resolve ${JSON.stringify(ref)} (only references inside the schema are supported)`;
  }
  return undefined;
}

function addAnchor(found: Found, resource: Json, name: string): void {
  let names = found.anchors.get(resource);
  if (!names) found.anchors.set(resource, (names = new Set()));
  names.add(name);
}
