// Walking a JSON Schema's subschemas and resolving its `$ref`s inside it, without recursion
// (schemas come from extensions). Used by the registration checks (schema-lint.ts) and by the
// cost estimate of validation (validation-cost.ts), so it loads nothing heavy.

export type Json = Record<string, unknown>;

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

export const isObject = (value: unknown): value is Json =>
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

export function children(visit: Visit): Visit[] {
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

/**
 * Every schema object of `schema` with its path, and the object each `$ref` resolves to (a
 * reference to a whole meta-schema or to `true`/`false` has none); or the first problem:
 * `inspect`'s for an object (it sees each one before anything else), an `$id` that names two
 * schemas, a reference that does not resolve inside the schema.
 * Contract: never throws; never recurses.
 */
export function schemaGraph(
  schema: Json,
  inspect?: (node: Json, path: string) => string | undefined,
): { nodes: Map<Json, string>; refTargets: Map<Json, Json> } | string {
  const found: Found = { refs: [], anchors: new Map(), ids: new Map(), nodes: new Map() };
  const stack: Visit[] = [{ node: schema, path: '', resource: schema }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const { node, path } = visit;
    const problem = inspect?.(node, path);
    if (problem !== undefined) return problem;
    const id = node['$id'];
    if (typeof id === 'string' && id !== '') {
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
  return { nodes: found.nodes, refTargets };
}

function addAnchor(found: Found, resource: Json, name: string, node: Json): void {
  let names = found.anchors.get(resource);
  if (!names) found.anchors.set(resource, (names = new Map()));
  names.set(name, node);
}
