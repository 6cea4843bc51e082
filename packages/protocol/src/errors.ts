// Turns a frame that failed its generated check into one readable line for an extension's
// log (or an RPC request into its error response), e.g. `tool_result: /content/0/type must
// be "text" or "image"` or `set_model: /model must be a non-empty string`. Runs on the failure
// path only, walking the plain shapes that src/codegen.ts derives from the TypeBox schemas
// (see src/generated/validators.ts), so TypeBox is never loaded at runtime.
// Contract: pure; never throws; reports the error TypeBox's `Errors().First()` reports, but
// descends into the matching variant of a discriminated union so the path names the culprit.

/** What a schema accepts, as plain data generated from a TypeBox schema. */
export type Shape =
  | { readonly kind: 'boolean' | 'null' | 'unknown' }
  | NumberShape
  | StringShape
  | { readonly kind: 'literal'; readonly value: string | number | boolean }
  | ArrayShape
  | { readonly kind: 'object'; readonly properties: readonly ShapeProperty[] }
  | { readonly kind: 'record'; readonly keyPattern: string; readonly values: Shape }
  | { readonly kind: 'union'; readonly variants: readonly Shape[] };

/** A string, with the length limits (UTF-16 code units) and pattern its schema sets. */
export interface StringShape {
  readonly kind: 'string';
  readonly minLength?: number;
  readonly maxLength?: number;
  /** Source of a regular expression the string must match somewhere, as `new RegExp(p)`. */
  readonly pattern?: string;
}

/** A number or integer, with the inclusive bounds its schema sets. */
export interface NumberShape {
  readonly kind: 'integer' | 'number';
  readonly minimum?: number;
  readonly maximum?: number;
}

/** An array, with the item count limits its schema sets. */
export interface ArrayShape {
  readonly kind: 'array';
  readonly items: Shape;
  readonly minItems?: number;
  readonly maxItems?: number;
}

/** One property of an object shape, in schema order. */
export interface ShapeProperty {
  readonly key: string;
  readonly required: boolean;
  readonly shape: Shape;
}

type UnionShape = Extract<Shape, { kind: 'union' }>;

/** A generated validator: TypeBox's compiled check, and the shape for error messages. */
export interface FrameValidator {
  /** Contract: never throws; true exactly when TypeBox's `Value.Check` is true. */
  readonly check: (value: unknown) => boolean;
  readonly shape: Shape;
}

interface ShapeError {
  problem: 'required' | 'mismatch' | 'union';
  shape: Shape;
  path: string;
  value: unknown;
  /** For a union: the first error of each variant (all defined, since none matched). */
  variants?: Array<ShapeError | undefined>;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// JSON Pointer escaping, as TypeBox writes error paths.
function pointer(path: string, key: string | number): string {
  return `${path}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

const regexps = new Map<string, RegExp>();

// The compiled pattern; one per source, since `test` on a non-global RegExp is stateless.
function regexp(source: string): RegExp {
  let compiled = regexps.get(source);
  if (compiled === undefined) regexps.set(source, (compiled = new RegExp(source)));
  return compiled;
}

// True when `value` is a string within the shape's length limits and matching its pattern.
function matchesString(shape: StringShape, value: unknown): boolean {
  return (
    typeof value === 'string' &&
    (shape.minLength === undefined || value.length >= shape.minLength) &&
    (shape.maxLength === undefined || value.length <= shape.maxLength) &&
    (shape.pattern === undefined || regexp(shape.pattern).test(value))
  );
}

// True when `value` is a number of the shape's kind within its bounds.
function matchesNumber(shape: NumberShape, value: unknown): boolean {
  return (
    (shape.kind === 'integer' ? Number.isInteger(value) : Number.isFinite(value)) &&
    (shape.minimum === undefined || (value as number) >= shape.minimum) &&
    (shape.maximum === undefined || (value as number) <= shape.maximum)
  );
}

// True when `value` has the JSON type (and constraints) of a non-composite shape.
function matchesScalar(shape: Shape, value: unknown): boolean {
  switch (shape.kind) {
    case 'string':
      return matchesString(shape, value);
    case 'integer':
    case 'number':
      return matchesNumber(shape, value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'literal':
      return value === shape.value;
    default:
      return true;
  }
}

// The first error in TypeBox's order: an object's missing required keys first, then its
// properties in schema order; array items and record members in order; a union fails when
// every variant does.
function firstError(shape: Shape, path: string, value: unknown): ShapeError | undefined {
  switch (shape.kind) {
    case 'array': {
      // The count first, as TypeBox checks it before the items.
      if (
        !Array.isArray(value) ||
        (shape.minItems !== undefined && value.length < shape.minItems) ||
        (shape.maxItems !== undefined && value.length > shape.maxItems)
      )
        return { problem: 'mismatch', shape, path, value };
      for (let i = 0; i < value.length; i++) {
        const error = firstError(shape.items, pointer(path, i), value[i]);
        if (error !== undefined) return error;
      }
      return undefined;
    }
    case 'object': {
      if (!isPlainObject(value)) return { problem: 'mismatch', shape, path, value };
      for (const p of shape.properties) {
        if (p.required && !Object.hasOwn(value, p.key)) {
          return {
            problem: 'required',
            shape: p.shape,
            path: pointer(path, p.key),
            value: undefined,
          };
        }
      }
      for (const p of shape.properties) {
        const member = value[p.key];
        if (!p.required && member === undefined) continue;
        const error = firstError(p.shape, pointer(path, p.key), member);
        if (error !== undefined) return error;
      }
      return undefined;
    }
    case 'record': {
      if (!isPlainObject(value)) return { problem: 'mismatch', shape, path, value };
      const keys = regexp(shape.keyPattern);
      for (const [key, member] of Object.entries(value)) {
        if (!keys.test(key)) continue;
        const error = firstError(shape.values, pointer(path, key), member);
        if (error !== undefined) return error;
      }
      return undefined;
    }
    case 'union': {
      const variants = shape.variants.map((variant) => firstError(variant, path, value));
      if (variants.includes(undefined)) return undefined;
      return { problem: 'union', shape, path, value, variants };
    }
    default:
      return matchesScalar(shape, value) ? undefined : { problem: 'mismatch', shape, path, value };
  }
}

function describeValues(values: readonly unknown[]): string {
  const parts = values.map((v) => JSON.stringify(v));
  return parts.length > 2 ? `one of ${parts.join(', ')}` : parts.join(' or ');
}

// `a string`, `a non-empty string`, `a string of 2 to 8 characters matching "^/"`.
function describeString(shape: StringShape): string {
  const { minLength: min = 0, maxLength: max, pattern } = shape;
  let text = min === 1 && max === undefined ? 'a non-empty string' : 'a string';
  if (max !== undefined) {
    text += min > 0 ? ` of ${min} to ${max} characters` : ` of at most ${max} characters`;
  } else if (min > 1) text += ` of at least ${min} characters`;
  return pattern === undefined ? text : `${text} matching ${JSON.stringify(pattern)}`;
}

// ` of 1 to 20 items`, ` from 1 to 3600000`: the bounds a number or count must keep.
function describeRange(min: number | undefined, max: number | undefined, unit = ''): string {
  // (The packed SDK's import check reads a quote right after the word "from" as a specifier.)
  if (min !== undefined && max !== undefined)
    return unit ? ` of ${min} to ${max}${unit}` : ` from ${min} to ${max}`;
  if (max !== undefined) return ` of at most ${max}${unit}`;
  if (min !== undefined) return ` of at least ${min}${unit}`;
  return '';
}

/** Human phrase for what a shape accepts: `a string`, `"a" or "b"`, `an array or null`. */
export function describeShape(shape: Shape): string {
  switch (shape.kind) {
    case 'string':
      return describeString(shape);
    case 'integer':
      return `an integer${describeRange(shape.minimum, shape.maximum)}`;
    case 'number':
      return `a number${describeRange(shape.minimum, shape.maximum)}`;
    case 'boolean':
      return 'a boolean';
    case 'null':
      return 'null';
    case 'array':
      return `an array${describeRange(shape.minItems, shape.maxItems, ' items')}`;
    case 'object':
    case 'record':
      return 'an object';
    case 'literal':
      return JSON.stringify(shape.value);
    case 'union': {
      if (shape.variants.every((v) => v.kind === 'literal')) {
        return describeValues(shape.variants.map((v) => (v.kind === 'literal' ? v.value : v)));
      }
      return shape.variants.map(describeShape).join(' or ');
    }
    default:
      return 'any value';
  }
}

interface Discriminator {
  key: string;
  values: unknown[];
}
const discriminators = new WeakMap<UnionShape, Discriminator | null>();

// The property whose literal value differs in every variant (`type` for content blocks,
// `event` for event frames), or null when the union is not discriminated.
function discriminatorOf(union: UnionShape): Discriminator | null {
  const cached = discriminators.get(union);
  if (cached !== undefined) return cached;
  let found: Discriminator | null = null;
  const objects = union.variants.flatMap((v) => (v.kind === 'object' ? [v] : []));
  if (objects.length === union.variants.length && objects.length > 0) {
    for (const { key } of objects[0]!.properties) {
      const values = objects.map((v) => {
        const property = v.properties.find((p) => p.key === key);
        return property?.shape.kind === 'literal' ? property.shape.value : undefined;
      });
      if (!values.includes(undefined) && new Set(values).size === values.length) {
        found = { key, values };
        break;
      }
    }
  }
  discriminators.set(union, found);
  return found;
}

// The error inside the only array (or object or record) variant of a union, when the value
// is an array (or object); undefined when no single variant has the value's shape.
function sameShapeVariant(error: ShapeError, union: UnionShape): ShapeError | undefined {
  const value = error.value;
  const kinds = Array.isArray(value) ? ['array'] : isPlainObject(value) ? ['object', 'record'] : [];
  const matches = union.variants.flatMap((v, i) => (kinds.includes(v.kind) ? [i] : []));
  return matches.length === 1 ? error.variants?.[matches[0]!] : undefined;
}

// Message for one error, without the frame-type prefix.
function describeError(error: ShapeError): string {
  const path = error.path === '' ? 'frame' : error.path;
  const shape = error.shape;
  if (error.problem === 'required') return `${path} is required`;
  if (error.problem === 'mismatch' || shape.kind !== 'union') {
    return `${path} must be ${describeShape(shape)}`;
  }
  const disc = discriminatorOf(shape);
  if (disc === null) {
    // `T[] | null` given an array: report what is wrong inside the array.
    const inner = sameShapeVariant(error, shape);
    return inner !== undefined ? describeError(inner) : `${path} must be ${describeShape(shape)}`;
  }
  if (!isPlainObject(error.value)) return `${path} must be an object`;
  const index = disc.values.indexOf(error.value[disc.key]);
  const inner = index >= 0 ? error.variants?.[index] : undefined;
  if (inner !== undefined) return describeError(inner);
  return `${error.path}/${disc.key} must be ${describeValues(disc.values)}`;
}

/** True when `value` conforms to `shape` (the slow, failure-path twin of a generated check). */
export function conformsToShape(shape: Shape, value: unknown): boolean {
  return firstError(shape, '', value) === undefined;
}

/** `"<frame type>: <path> <problem>"` for the first validation error of a frame. */
export function formatFrameError(frameType: string, shape: Shape, value: unknown): string {
  const error = firstError(shape, '', value);
  if (error === undefined) return `${frameType}: invalid frame`;
  return `${frameType}: ${describeError(error)}`;
}
