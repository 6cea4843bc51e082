// Small TypeBox builders shared by the frame definitions.
import {
  Type,
  type SchemaOptions,
  type TLiteral,
  type TNull,
  type TObject,
  type TProperties,
  type TSchema,
  type TUnion,
  type TUnsafe,
} from '@sinclair/typebox';

type Literals<T extends readonly string[]> = { -readonly [K in keyof T]: TLiteral<T[K]> };

/** A union of string literals built from one of the constant lists (keeps the literal types). */
export function literalUnion<const T extends readonly string[]>(
  values: T,
  options?: SchemaOptions,
): TUnion<Literals<T> & TSchema[]> {
  const variants = values.map((value) => Type.Literal(value));
  return Type.Union(variants, options) as unknown as TUnion<Literals<T> & TSchema[]>;
}

/** Any JSON object; typed as a record rather than TypeBox's `{}`. */
export function jsonObject(options?: SchemaOptions): TUnsafe<Record<string, unknown>> {
  return Type.Unsafe<Record<string, unknown>>(Type.Object({}, options));
}

/**
 * `T | null`. Go SDKs encode a nil slice or nil json.RawMessage without `omitempty` as
 * `null`, so fields that Go always emits accept null as "absent" (design D12 tolerance).
 */
export function orNull<T extends TSchema>(schema: T, options?: SchemaOptions): TUnion<[T, TNull]> {
  return Type.Union([schema, Type.Null()], options);
}

/** The PascalCase of a snake_case wire name: `tool_call` -> `ToolCall`. */
export function pascalCase(name: string): string {
  return name.replace(/(?:^|_)([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

/**
 * A frame object: `type` literal first, then the frame's fields; unknown fields allowed. Its
 * title is the wire name's: `tool_call` -> `ToolCallFrame`.
 */
export function frame<const Name extends string, P extends TProperties>(
  name: Name,
  properties: P,
  description: string,
  title = `${pascalCase(name)}Frame`,
): TObject<{ type: TLiteral<Name> } & P> {
  return Type.Object({ type: Type.Literal(name), ...properties }, { title, description });
}
