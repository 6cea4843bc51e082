// Hand-written shape checks for untrusted JSON (session files): a few combinators whose
// TypeScript type is derived from the check itself, so one definition gives both. No TypeBox or
// Ajv, which stay off the start-up path.
// Checks recurse along the shape, never along the data: their depth is that of the definition.
// A composite check passes its parts an empty path and puts its own in front of an error, so
// checking a value that fits builds no strings (a session file holds millions of values).
import { terminalSafe } from './terminal-text.js';

/**
 * Checks `value`; returns undefined when it fits, else what is wrong, prefixed with `path`.
 * Contract: never throws (for values from JSON.parse); extra object properties are allowed.
 */
export interface Shape<T> {
  (value: unknown, path: string): string | undefined;
  /** Phantom: the type of a value that passes. */
  readonly __type?: T;
}
/** A property that may be missing (or undefined). */
export interface OptionalShape<T> extends Shape<T | undefined> {
  readonly optional: true;
}
export type Infer<S> = S extends Shape<infer T> ? T : never;

/** A short, printable rendering of an untrusted value for messages. */
function shown(value: unknown): string {
  const text = typeof value === 'string' ? value : typeof value;
  const clipped = text.length > 40 ? `${text.slice(0, 40)}…` : text;
  return terminalSafe(JSON.stringify(clipped));
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

export function string(options: { minLength?: number; maxLength?: number } = {}): Shape<string> {
  const min = options.minLength ?? 0;
  const max = options.maxLength ?? Infinity;
  return (value, path) =>
    typeof value !== 'string'
      ? `${path}: expected a string`
      : value.length < min
        ? `${path}: must not be empty`
        : value.length > max
          ? `${path}: longer than ${max} characters`
          : undefined;
}

/** `true` and nothing else (a flag that is either set or absent). */
export function isTrue(): Shape<true> {
  return (value, path) => (value === true ? undefined : `${path}: expected true`);
}

export function boolean(): Shape<boolean> {
  return (value, path) =>
    typeof value === 'boolean' ? undefined : `${path}: expected true or false`;
}

export function integer(options: { min?: number } = {}): Shape<number> {
  const min = options.min ?? Number.MIN_SAFE_INTEGER;
  return (value, path) =>
    Number.isSafeInteger(value) && (value as number) >= min
      ? undefined
      : `${path}: expected an integer ≥ ${min}`;
}

export function number(options: { min?: number } = {}): Shape<number> {
  const min = options.min ?? -Infinity;
  return (value, path) =>
    typeof value === 'number' && Number.isFinite(value) && value >= min
      ? undefined
      : `${path}: expected a number ≥ ${min}`;
}

export function literal<L extends string>(expected: L): Shape<L> {
  return (value, path) => (value === expected ? undefined : `${path}: expected "${expected}"`);
}

/** Any JSON value (not inspected). */
export function anyValue(): Shape<unknown> {
  return () => undefined;
}

/** A JSON object whose properties are not inspected. */
export function record(): Shape<Record<string, unknown>> {
  return (value, path) => (isPlainObject(value) ? undefined : `${path}: expected an object`);
}

export function optional<T>(shape: Shape<T>): OptionalShape<T> {
  const check = ((value: unknown, path: string) =>
    value === undefined ? undefined : shape(value, path)) as OptionalShape<T>;
  return Object.assign(check, { optional: true as const });
}

export function array<T>(item: Shape<T>): Shape<T[]> {
  return (value, path) => {
    if (!Array.isArray(value)) return `${path}: expected an array`;
    for (let i = 0; i < value.length; i++) {
      // The path is built only for an error: a check that passes allocates nothing.
      const error = item(value[i], '');
      if (error) return `${path}[${i}]${error}`;
    }
    return undefined;
  };
}

type Props = Record<string, Shape<unknown>>;
type OptionalKeys<P extends Props> = {
  [K in keyof P]: P[K] extends OptionalShape<unknown> ? K : never;
}[keyof P];
type Flatten<T> = { [K in keyof T]: T[K] };
export type ObjectOf<P extends Props> = Flatten<
  { [K in Exclude<keyof P, OptionalKeys<P>>]: Infer<P[K]> } & {
    [K in OptionalKeys<P>]?: Exclude<Infer<P[K]>, undefined>;
  }
>;

export function object<P extends Props>(props: P): Shape<ObjectOf<P>> {
  // Indexed loops: a resumed session is checked in a fresh process, before the JIT has warmed
  // up, and the interpreter pays for every iterator a for-of with destructuring makes.
  const keys = Object.keys(props);
  const shapes = keys.map((key) => props[key]!);
  return (value, path) => {
    if (!isPlainObject(value)) return `${path}: expected an object`;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      // Own properties only: "constructor" or "__proto__" must not come from the prototype.
      const own = Object.hasOwn(value, key) ? value[key] : undefined;
      const error = shapes[i]!(own, '');
      if (error) return `${path}.${key}${error}`;
    }
    return undefined;
  };
}

/** One of several object shapes, chosen by the string property `key` (a discriminated union). */
export function tagged<K extends string, M extends Record<string, Shape<unknown>>>(
  key: K,
  variants: M,
): Shape<Infer<M[keyof M]>> {
  const known = Object.keys(variants).join(', ');
  return (value, path) => {
    if (!isPlainObject(value)) return `${path}: expected an object`;
    const tag = Object.hasOwn(value, key) ? value[key] : undefined;
    if (typeof tag !== 'string' || !Object.hasOwn(variants, tag)) {
      return `${path}.${key}: unknown ${shown(tag)} (expected one of ${known})`;
    }
    return variants[tag]!(value, path);
  };
}
