// Turns TypeBox validation errors into one readable line for an extension's log,
// e.g. `tool_result: /content/0/type must be "text" or "image"`.
// Contract: pure; never throws for any schema built in this package.
import { Kind, type TSchema } from '@sinclair/typebox';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';

/** Human phrase for what a schema accepts: `a string`, `"a" or "b"`, `an array or null`. */
export function describeSchema(schema: TSchema): string {
  switch (schema[Kind]) {
    case 'String':
      return 'a string';
    case 'Integer':
      return 'an integer';
    case 'Number':
      return 'a number';
    case 'Boolean':
      return 'a boolean';
    case 'Null':
      return 'null';
    case 'Array':
      return 'an array';
    case 'Object':
      return 'an object';
    case 'Literal':
      return JSON.stringify(schema['const']);
    case 'Union': {
      const variants = schema['anyOf'] as TSchema[];
      const parts = variants.map(describeSchema);
      const allLiterals = variants.every((v) => v[Kind] === 'Literal');
      if (allLiterals && parts.length > 2) return `one of ${parts.join(', ')}`;
      return parts.join(' or ');
    }
    default:
      return 'valid';
  }
}

interface Discriminator {
  key: string;
  values: unknown[];
}
const discriminators = new WeakMap<TSchema, Discriminator | null>();

// The property whose literal value differs in every variant (`type` for content blocks,
// `event` for event frames), or null when the union is not discriminated.
function discriminatorOf(union: TSchema): Discriminator | null {
  const cached = discriminators.get(union);
  if (cached !== undefined) return cached;
  const variants = union['anyOf'] as TSchema[];
  let found: Discriminator | null = null;
  if (variants.every((v) => v[Kind] === 'Object')) {
    const first = variants[0]?.['properties'] as Record<string, TSchema> | undefined;
    for (const key of Object.keys(first ?? {})) {
      const literals = variants.map((v) => (v['properties'] as Record<string, TSchema>)[key]);
      if (!literals.every((s) => s !== undefined && s[Kind] === 'Literal')) continue;
      const values = literals.map((s) => s?.['const']);
      if (new Set(values).size === values.length) {
        found = { key, values };
        break;
      }
    }
  }
  discriminators.set(union, found);
  return found;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeValues(values: unknown[]): string {
  const parts = values.map((v) => JSON.stringify(v));
  return parts.length > 2 ? `one of ${parts.join(', ')}` : parts.join(' or ');
}

// First error inside the only array (or object) variant of a union, when the value is an
// array (or object); undefined when no single variant has the value's shape.
function sameShapeVariant(error: ValueError): ValueError | undefined {
  const kind = Array.isArray(error.value)
    ? 'Array'
    : isPlainObject(error.value)
      ? 'Object'
      : undefined;
  if (kind === undefined) return undefined;
  const variants = error.schema['anyOf'] as TSchema[];
  const matches = variants.flatMap((v, i) => (v[Kind] === kind ? [i] : []));
  return matches.length === 1 ? error.errors[matches[0]!]?.First() : undefined;
}

// Message for one error, without the frame-type prefix. Descends into the matching
// variant of a discriminated union so the path points at the real culprit.
function describeError(error: ValueError): string {
  const path = error.path === '' ? 'frame' : error.path;
  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return `${path} is required`;
    case ValueErrorType.Union: {
      const disc = discriminatorOf(error.schema);
      if (disc === null) {
        // `T[] | null` given an array: report what is wrong inside the array.
        const inner = sameShapeVariant(error);
        return inner !== undefined
          ? describeError(inner)
          : `${path} must be ${describeSchema(error.schema)}`;
      }
      if (!isPlainObject(error.value)) return `${path} must be an object`;
      const index = disc.values.indexOf(error.value[disc.key]);
      const inner = index >= 0 ? error.errors[index]?.First() : undefined;
      if (inner !== undefined) return describeError(inner);
      return `${error.path}/${disc.key} must be ${describeValues(disc.values)}`;
    }
    case ValueErrorType.String:
    case ValueErrorType.Integer:
    case ValueErrorType.Number:
    case ValueErrorType.Boolean:
    case ValueErrorType.Null:
    case ValueErrorType.Array:
    case ValueErrorType.Object:
    case ValueErrorType.Literal:
      return `${path} must be ${describeSchema(error.schema)}`;
    default:
      return `${path}: ${error.message}`;
  }
}

/** `"<frame type>: <path> <problem>"` for the first validation error of a frame. */
export function formatValueError(frameType: string, error: ValueError | undefined): string {
  if (error === undefined) return `${frameType}: invalid frame`;
  return `${frameType}: ${describeError(error)}`;
}
