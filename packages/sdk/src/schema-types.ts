// Types computed from a literal JSON Schema, so a tool handler's arguments are typed from the
// schema it registers. Covers what tool schemas use: object (properties, required), string,
// number, integer, boolean, null, array (items), enum and const. Anything else is `unknown`.

/** A JSON Schema, loosely: the fields FromSchema reads, and anything else. */
export interface JsonSchema {
  readonly type?: string | readonly string[];
  readonly properties?: { readonly [key: string]: JsonSchema };
  readonly required?: readonly string[];
  readonly items?: JsonSchema;
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly [keyword: string]: unknown;
}

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type RequiredKeys<S> = S extends { readonly required: readonly (infer R)[] } ? R : never;

type ObjectFrom<P, S> = Simplify<
  { -readonly [K in keyof P & RequiredKeys<S>]: FromSchema<P[K]> } & {
    -readonly [K in Exclude<keyof P, RequiredKeys<S>>]?: FromSchema<P[K]>;
  }
>;

type FromType<T, S> = T extends 'string'
  ? string
  : T extends 'number' | 'integer'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'array'
          ? S extends { readonly items: infer I }
            ? FromSchema<I>[]
            : unknown[]
          : T extends 'object'
            ? S extends { readonly properties: infer P }
              ? ObjectFrom<P, S>
              : Record<string, unknown>
            : unknown;

/** The TypeScript type of values a literal JSON Schema accepts (`unknown` when not inferable). */
export type FromSchema<S> = S extends { readonly enum: readonly (infer E)[] }
  ? E
  : S extends { readonly const: infer C }
    ? C
    : S extends { readonly type: infer T }
      ? T extends readonly (infer U)[]
        ? FromType<U, S>
        : FromType<T, S>
      : unknown;

/** A tool's argument type: FromSchema, or a plain record when the schema is not a literal. */
export type ArgsOf<S> = unknown extends FromSchema<S> ? Record<string, unknown> : FromSchema<S>;
