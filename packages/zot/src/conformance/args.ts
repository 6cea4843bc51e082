// Tool arguments made up from a tool's JSON Schema: one small valid object (required
// properties, types, enums, bounds, trivially satisfiable patterns) and one that the schema
// rejects. Both are confirmed with the host's own argument validator, so what the kit calls
// "valid" is what zot would let through. Schemas come from extensions: the walk is bounded.
import { checkArgs } from '../agent/check-args.js';
import type { JsonSchema } from '../providers/types.js';
import { compileSafeRegex } from '../util/safe-regex.js';

type Json = Record<string, unknown>;
export type Made<T = unknown> =
  | { ok: true; value: T; why?: string }
  | { ok: false; reason: string };

/** Deepest nesting (of properties, items and `$ref`s) the generator follows. */
const MAX_DEPTH = 12;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const FORMAT_SAMPLES: Record<string, string> = {
  'date-time': '2024-01-01T00:00:00Z',
  date: '2024-01-01',
  time: '12:00:00Z',
  email: 'user@example.com',
  'idn-email': 'user@example.com',
  uri: 'https://example.com/',
  'uri-reference': 'https://example.com/',
  iri: 'https://example.com/',
  url: 'https://example.com/',
  uuid: '00000000-0000-4000-8000-000000000000',
  hostname: 'example.com',
  'idn-hostname': 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  duration: 'P1D',
};

// Strings tried against a `pattern`, after the format sample and the plain sample.
const PATTERN_CANDIDATES = [
  'a',
  'abc',
  'example',
  'A',
  'Abc',
  'ABC',
  '0',
  '1',
  '42',
  '123',
  'a1',
  'abc123',
  'x',
  '',
  'a-b',
  'a_b',
  'a.b',
  'foo/bar',
  'user@example.com',
  'https://example.com',
  '2024-01-01',
  'v1.0.0',
  '1.0.0',
  'main',
  'test',
  '#000000',
  '+15555550100',
];

function ok<T>(value: T): Made<T> {
  return { ok: true, value };
}
function no(reason: string): Made<never> {
  return { ok: false, reason };
}

/** JSON pointer inside `root` (`#/definitions/x`), or undefined. */
function resolveRef(root: Json, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let pointer: string;
  try {
    pointer = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  if (pointer === '') return root;
  if (!pointer.startsWith('/')) return undefined;
  let node: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node) && /^\d+$/.test(key)) node = node[Number(key)];
    else if (isObject(node) && Object.prototype.hasOwnProperty.call(node, key)) node = node[key];
    else return undefined;
  }
  return node;
}

/** `schema` with its `allOf` folded in (properties and required merged; first value wins). */
function flatten(schema: Json, root: Json, depth: number): Json {
  const parts = schema.allOf;
  if (!Array.isArray(parts) || depth > MAX_DEPTH) return schema;
  const merged: Json = { ...schema };
  delete merged.allOf;
  for (const raw of parts) {
    let part = raw;
    if (isObject(part) && typeof part.$ref === 'string') part = resolveRef(root, part.$ref);
    if (!isObject(part)) continue;
    const flat = flatten(part, root, depth + 1);
    for (const [key, value] of Object.entries(flat)) {
      if (key === 'properties' && isObject(value)) {
        merged.properties = { ...(isObject(merged.properties) ? merged.properties : {}), ...value };
      } else if (key === 'required' && Array.isArray(value)) {
        const before = Array.isArray(merged.required) ? merged.required : [];
        merged.required = [...new Set([...before, ...value])];
      } else if (!(key in merged)) merged[key] = value;
    }
  }
  return merged;
}

function typeOf(schema: Json): string | undefined {
  const type = schema.type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) {
    const first = type.find((t) => t !== 'null');
    return typeof first === 'string' ? first : type.includes('null') ? 'null' : undefined;
  }
  if (isObject(schema.properties) || Array.isArray(schema.required)) return 'object';
  if (schema.items !== undefined || schema.prefixItems !== undefined) return 'array';
  if (typeof schema.pattern === 'string' || typeof schema.minLength === 'number') return 'string';
  if (typeof schema.minimum === 'number' || typeof schema.maximum === 'number') return 'number';
  return undefined;
}

function make(raw: unknown, root: Json, depth: number, path: string): Made {
  if (depth > MAX_DEPTH) return no(`${path}: nested deeper than ${MAX_DEPTH} levels`);
  if (raw === true || raw === undefined) return ok('example');
  if (raw === false) return no(`${path}: the schema \`false\` accepts no value`);
  if (!isObject(raw)) return ok('example');
  if (typeof raw.$ref === 'string') {
    const target = resolveRef(root, raw.$ref);
    if (target === undefined) return no(`${path}: $ref ${JSON.stringify(raw.$ref)} not resolved`);
    return make(target, root, depth + 1, path);
  }
  const schema = flatten(raw, root, depth);
  if ('const' in schema) return ok(schema.const);
  if (Array.isArray(schema.enum)) {
    return schema.enum.length > 0 ? ok(schema.enum[0]) : no(`${path}: empty enum`);
  }
  for (const key of ['anyOf', 'oneOf']) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    const rest = { ...schema };
    delete rest[key];
    let last: Made = no(`${path}: empty ${key}`);
    for (const branch of branches) {
      last = make(isObject(branch) ? { ...rest, ...branch } : branch, root, depth + 1, path);
      if (last.ok) return last;
    }
    return last;
  }
  switch (typeOf(schema)) {
    case 'object':
      return makeObject(schema, root, depth, path);
    case 'array':
      return makeArray(schema, root, depth, path);
    case 'string':
      return makeString(schema, path);
    case 'integer':
      return makeNumber(schema, true, path);
    case 'number':
      return makeNumber(schema, false, path);
    case 'boolean':
      return ok(true);
    case 'null':
      return ok(null);
    default:
      return ok('example');
  }
}

function makeObject(schema: Json, root: Json, depth: number, path: string): Made {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required)
    ? schema.required.filter((name): name is string => typeof name === 'string')
    : [];
  const names = [...required];
  const minProperties = typeof schema.minProperties === 'number' ? schema.minProperties : 0;
  for (const name of Object.keys(properties)) {
    if (names.length >= minProperties) break;
    if (!names.includes(name)) names.push(name);
  }
  const value: Json = {};
  for (const name of names) {
    const sub = name in properties ? properties[name] : schema.additionalProperties;
    const made = make(sub, root, depth + 1, `${path}/${name}`);
    if (!made.ok) return made;
    value[name] = made.value;
  }
  return ok(value);
}

function makeArray(schema: Json, root: Json, depth: number, path: string): Made {
  const min = typeof schema.minItems === 'number' ? Math.min(schema.minItems, 100) : 0;
  const tuple = Array.isArray(schema.prefixItems)
    ? schema.prefixItems
    : Array.isArray(schema.items)
      ? schema.items
      : undefined;
  const value: unknown[] = [];
  for (let i = 0; i < min; i++) {
    const sub = tuple ? (tuple[i] ?? schema.additionalItems) : schema.items;
    const made = make(sub, root, depth + 1, `${path}/${i}`);
    if (!made.ok) return made;
    value.push(made.value);
  }
  return ok(value);
}

function fitLength(text: string, min: number, max: number): string | undefined {
  let out = text;
  if (out.length < min)
    out = out.length === 0 ? 'x'.repeat(min) : out.repeat(Math.ceil(min / out.length));
  if (out.length > max) out = out.slice(0, max);
  return out.length >= min && out.length <= max ? out : undefined;
}

function makeString(schema: Json, path: string): Made {
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  if (min > 10_000) return no(`${path}: minLength ${min} is too long to make up`);
  const format = typeof schema.format === 'string' ? FORMAT_SAMPLES[schema.format] : undefined;
  const candidates = [format ?? 'example'];
  if (typeof schema.pattern === 'string') candidates.push(...PATTERN_CANDIDATES);
  let test: (text: string) => boolean = () => true;
  if (typeof schema.pattern === 'string') {
    try {
      const regex = compileSafeRegex(schema.pattern, 'u');
      test = (text) => regex.test(text);
    } catch {
      return no(`${path}: pattern ${JSON.stringify(schema.pattern)} cannot be compiled`);
    }
  }
  for (const candidate of candidates) {
    const text = fitLength(candidate, min, max);
    if (text !== undefined && test(text)) return ok(text);
  }
  return no(
    `${path}: pattern ${JSON.stringify(schema.pattern)} is not trivially satisfiable ` +
      `(none of ${candidates.length} sample strings match)`,
  );
}

function makeNumber(schema: Json, integer: boolean, path: string): Made {
  const num = (key: string) =>
    typeof schema[key] === 'number' ? (schema[key] as number) : undefined;
  let lo = num('minimum');
  let hi = num('maximum');
  const step = integer ? 1 : 0.5;
  // draft-07 gives exclusive bounds as numbers; draft-04 as booleans beside minimum/maximum.
  const exLo = num('exclusiveMinimum') ?? (schema.exclusiveMinimum === true ? lo : undefined);
  const exHi = num('exclusiveMaximum') ?? (schema.exclusiveMaximum === true ? hi : undefined);
  if (exLo !== undefined)
    lo = Math.max(lo ?? -Infinity, integer ? Math.floor(exLo) + 1 : exLo + step);
  if (exHi !== undefined)
    hi = Math.min(hi ?? Infinity, integer ? Math.ceil(exHi) - 1 : exHi - step);
  if (integer && lo !== undefined) lo = Math.ceil(lo);
  if (integer && hi !== undefined) hi = Math.floor(hi);
  let value = lo !== undefined ? Math.max(lo, Math.min(1, hi ?? 1)) : Math.min(1, hi ?? 1);
  if (lo !== undefined && value < lo) value = lo;
  const multiple = num('multipleOf');
  if (multiple !== undefined && multiple > 0) value = Math.ceil(value / multiple) * multiple;
  if (
    (hi !== undefined && value > hi) ||
    (lo !== undefined && value < lo) ||
    !Number.isFinite(value)
  )
    return no(`${path}: no number fits its bounds`);
  return ok(value);
}

/** `type` names of a property schema, for a value of another type. */
function wrongValue(schema: unknown, root: Json): unknown {
  let sub = schema;
  if (isObject(sub) && typeof sub.$ref === 'string') sub = resolveRef(root, sub.$ref);
  if (!isObject(sub)) return undefined;
  const type = typeOf(sub);
  if (type === 'string') return 12345;
  if (type === 'integer' || type === 'number') return 'not a number';
  if (type === 'boolean') return 'not a boolean';
  if (type === 'array') return 'not an array';
  if (type === 'object') return 'not an object';
  if (Array.isArray(sub.enum)) return 'zot-ext-test: not one of the enum values';
  return undefined;
}

/**
 * Arguments the host would accept for `schema`, or why none could be made.
 * Contract: never throws; a made-up value is returned only when zot's validator accepts it.
 */
export async function validArgs(tool: string, schema: JsonSchema): Promise<Made<Json>> {
  const made = make({ type: 'object', ...schema }, schema, 0, '');
  if (!made.ok) return { ok: false, reason: made.reason.replace(/^\//, '') };
  const problem = await checkArgs({ tool, schema, args: made.value });
  if (problem)
    return no(`made-up arguments ${JSON.stringify(made.value)} were refused: ${problem}`);
  return ok(made.value as Json);
}

/**
 * Arguments that `schema` rejects, made from `valid`: a required property left out, a property
 * of the wrong type, an unknown property where none is allowed, a value outside an enum.
 * Contract: never throws; a value is returned only when zot's validator refuses it.
 */
export async function invalidArgs(
  tool: string,
  schema: JsonSchema,
  valid: Json,
): Promise<Made<Json>> {
  const candidates: Array<[Json, string]> = [];
  const required = Array.isArray(schema.required) ? schema.required : [];
  const first = required.find((name): name is string => typeof name === 'string');
  if (first !== undefined) {
    const rest = { ...valid };
    delete rest[first];
    candidates.push([rest, `missing required property "${first}"`]);
  }
  const properties = isObject(schema.properties) ? schema.properties : {};
  for (const [name, sub] of Object.entries(properties)) {
    const wrong = wrongValue(sub, schema);
    if (wrong !== undefined)
      candidates.push([{ ...valid, [name]: wrong }, `"${name}" of the wrong type`]);
  }
  if (schema.additionalProperties === false) {
    candidates.push([{ ...valid, zot_ext_test_unexpected: true }, 'an unknown property']);
  }
  for (const [value, why] of candidates.slice(0, 20)) {
    if ((await checkArgs({ tool, schema, args: value })) !== undefined)
      return { ok: true, value, why };
  }
  return no('its schema accepts any object: there are no invalid arguments to send');
}
