// Build-time code generation: a table of TypeBox schemas keyed by wire `type` -> a module with
// no runtime imports holding TypeBox's own compiled check per type and the plain shape
// errors.ts walks on the failure path. The protocol's frames give src/generated/validators.ts;
// other packages (zot's RPC requests) pass their own table to generateValidatorTableSource.
// Run by scripts/gen-schema.mjs; not part of the runtime (it loads TypeBox and its compiler).
// Contract: deterministic; throws, naming the schema, on anything the generated module
// could not honour (a TypeBox kind or keyword errors.ts does not know, hoisted helpers).
import { Kind, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { Shape } from './errors.js';
import { FRAME_SCHEMAS_FROM_EXTENSION } from './frames-extension.js';
import { FRAME_SCHEMAS_FROM_HOST } from './frames-host.js';

// Keywords each kind may carry; anything else (exclusiveMinimum, additionalProperties, format ...)
// would be checked by TypeBox but not explained by errors.ts, so it stops the generator.
const ANNOTATIONS = ['title', 'description'];
const KEYWORDS: Record<string, readonly string[]> = {
  String: ['type', 'minLength', 'maxLength', 'pattern'],
  Integer: ['type', 'minimum', 'maximum'],
  Number: ['type', 'minimum', 'maximum'],
  Boolean: ['type'],
  Null: ['type'],
  Unknown: [],
  Literal: ['type', 'const'],
  Array: ['type', 'items', 'minItems', 'maxItems'],
  Object: ['type', 'properties', 'required'],
  Record: ['type', 'patternProperties'],
  Union: ['anyOf'],
};

function unsupported(where: string, what: string): Error {
  return new Error(
    `codegen: ${where}: ${what} is not supported by the generated validators; ` +
      'teach src/codegen.ts and src/errors.ts about it first',
  );
}

function isLength(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

// The string shape, with only the constraints the schema has (so plain strings stay
// `{"kind":"string"}`). Patterns must compile as TypeBox compiles them: `new RegExp(p)`.
function stringShape(schema: TSchema, where: string): Shape {
  const shape: { kind: 'string'; minLength?: number; maxLength?: number; pattern?: string } = {
    kind: 'string',
  };
  for (const key of ['minLength', 'maxLength'] as const) {
    const value: unknown = schema[key];
    if (value === undefined) continue;
    if (!isLength(value)) throw unsupported(where, `${key} ${JSON.stringify(value)}`);
    shape[key] = value;
  }
  const pattern: unknown = schema['pattern'];
  if (pattern !== undefined) {
    if (typeof pattern !== 'string') throw unsupported(where, `pattern ${String(pattern)}`);
    new RegExp(pattern); // throws on a pattern the check could not compile either
    shape.pattern = pattern;
  }
  return shape;
}

// A number's inclusive bounds, only those the schema has.
function numberShape(schema: TSchema, kind: 'integer' | 'number', where: string): Shape {
  const shape: { kind: 'integer' | 'number'; minimum?: number; maximum?: number } = { kind };
  for (const key of ['minimum', 'maximum'] as const) {
    const value: unknown = schema[key];
    if (value === undefined) continue;
    if (!Number.isFinite(value)) throw unsupported(where, `${key} ${JSON.stringify(value)}`);
    shape[key] = value as number;
  }
  return shape;
}

// An array's item shape and count limits, only those the schema has.
function arrayShape(schema: TSchema, where: string): Shape {
  const shape: { kind: 'array'; items: Shape; minItems?: number; maxItems?: number } = {
    kind: 'array',
    items: shapeOf(schema['items'] as TSchema, `${where}/items`),
  };
  for (const key of ['minItems', 'maxItems'] as const) {
    const value: unknown = schema[key];
    if (value === undefined) continue;
    if (!isLength(value)) throw unsupported(where, `${key} ${JSON.stringify(value)}`);
    shape[key] = value;
  }
  return shape;
}

/** The plain shape of a TypeBox schema, for errors.ts. Throws on unsupported schemas. */
export function shapeOf(schema: TSchema, where: string): Shape {
  const kind = String(schema[Kind]);
  const allowed = KEYWORDS[kind];
  if (allowed === undefined) throw unsupported(where, `kind ${kind}`);
  for (const key of Object.keys(schema)) {
    if (!allowed.includes(key) && !ANNOTATIONS.includes(key)) {
      throw unsupported(where, `keyword "${key}" on a ${kind}`);
    }
  }
  switch (kind) {
    case 'String':
      return stringShape(schema, where);
    case 'Literal': {
      const value: unknown = schema['const'];
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
        throw unsupported(where, `literal ${JSON.stringify(value)}`);
      }
      return { kind: 'literal', value };
    }
    case 'Array':
      return arrayShape(schema, where);
    case 'Integer':
      return numberShape(schema, 'integer', where);
    case 'Number':
      return numberShape(schema, 'number', where);
    case 'Object': {
      const required = (schema['required'] ?? []) as string[];
      const properties = Object.entries(schema['properties'] as Record<string, TSchema>);
      return {
        kind: 'object',
        properties: properties.map(([key, property]) => ({
          key,
          required: required.includes(key),
          shape: shapeOf(property, `${where}/${key}`),
        })),
      };
    }
    case 'Record': {
      const entries = Object.entries(schema['patternProperties'] as Record<string, TSchema>);
      if (entries.length !== 1) throw unsupported(where, 'a record without one key pattern');
      const [keyPattern, values] = entries[0]!;
      new RegExp(keyPattern);
      return { kind: 'record', keyPattern, values: shapeOf(values, `${where}/*`) };
    }
    case 'Union': {
      const variants = schema['anyOf'] as TSchema[];
      return { kind: 'union', variants: variants.map((v, i) => shapeOf(v, `${where}|${i}`)) };
    }
    default:
      return { kind: kind.toLowerCase() } as Shape;
  }
}

/**
 * TypeBox's compiled check for one schema: a JavaScript expression over `value`, and the
 * regular-expression literals (string patterns, record keys) it reads as `local_<index>`.
 */
export interface CompiledCheck {
  readonly expression: string;
  readonly regexps: readonly string[];
}

const CHECK_CODE =
  /^((?:const local_\d+ = .*\n)*)return function check\(value\) \{\n {2}return \(\n([^]*)\n {2}\)\n\}$/;
const LOCAL = /^const local_(\d+) = (\/.*\/[dgimsuvy]*);?$/;

// The regular-expression literal of one hoisted `const local_<i> = /.../;` line, or undefined
// when the line holds anything else (a function, a non-literal value).
function regexpLiteral(line: string, index: number): string | undefined {
  const match = LOCAL.exec(line);
  if (match === null || Number(match[1]) !== index) return undefined;
  const literal = match[2]!;
  const value: unknown = new Function(`return ${literal}`)();
  return value instanceof RegExp && String(value) === literal ? literal : undefined;
}

/** TypeBox's compiled check for one schema. Throws on code that needs more than regexps. */
export function compileCheck(schema: TSchema, where: string): CompiledCheck {
  const code = TypeCompiler.Code(schema, [], { language: 'javascript' });
  const match = CHECK_CODE.exec(code);
  if (match === null) throw unsupported(where, 'compiled code with hoisted helpers');
  const regexps = match[1]!
    .split('\n')
    .filter((line) => line !== '')
    .map((line, i) => regexpLiteral(line, i) ?? '');
  if (regexps.includes('')) throw unsupported(where, 'compiled code with hoisted helpers');
  const expression = match[2]!;
  // The compiler reaches custom kinds, formats and hashing through these free functions.
  if (/\b(kind|format|hash)\(/.test(expression)) {
    throw unsupported(where, 'a check that needs the TypeBox registries');
  }
  return { expression: expression.trim(), regexps };
}

// `checkFoo`/`shapeFoo`/`patternFoo0` names: the schema's PascalCase title, or else the
// PascalCase of its snake_case wire type (`set_model` -> `SetModel`).
function nameOf(schema: TSchema, type: string): string {
  const title: unknown = schema['title'];
  if (title === undefined && /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/.test(type)) {
    return type.replace(/(?:^|_)([a-z0-9])/g, (_, c: string) => c.toUpperCase());
  }
  if (typeof title !== 'string' || !/^[A-Z][A-Za-z0-9]*$/.test(title)) {
    throw new Error(`codegen: frame ${type} needs a PascalCase title (got ${String(title)})`);
  }
  return title;
}

/** One exported table of a generated module. */
export interface ValidatorTable {
  /** Name of the exported `ReadonlyMap<string, FrameValidator>`, e.g. `RPC_VALIDATORS`. */
  readonly exportName: string;
  /** Its one-line doc comment. */
  readonly doc: string;
  /** Schemas keyed by wire `type`; the map keeps this order. */
  readonly schemas: Readonly<Record<string, TSchema>>;
}

// Source text of a module exporting `tables`. A schema shared by two tables is emitted once.
function generateModule(header: string, tables: readonly ValidatorTable[]): string {
  const emitted = new Map<string, TSchema>();
  const parts: string[] = [header];
  const table = ({ exportName, doc, schemas }: ValidatorTable): string => {
    const rows = Object.entries(schemas).map(([type, schema]) => {
      const name = nameOf(schema, type);
      const previous = emitted.get(name);
      if (previous !== undefined && previous !== schema) {
        throw new Error(`codegen: two different frame schemas are named ${name}`);
      }
      if (previous === undefined) {
        emitted.set(name, schema);
        const { expression, regexps } = compileCheck(schema, name);
        const local = (index: string) => `pattern${name}${index}`;
        const body = expression.replace(/\blocal_(\d+)(?=\.test\()/g, (_, i: string) => local(i));
        if (/(?<![\w'"])local_\d+\b/.test(body)) {
          throw unsupported(name, 'a hoisted value used other than as a regexp');
        }
        const shape = JSON.stringify(shapeOf(schema, name));
        const declarations = regexps.map(
          (literal, i) => `const ${local(String(i))} = ${literal};\n`,
        );
        if (declarations.length > 0) parts.push(declarations.join(''));
        parts.push(
          `function check${name}(value: any): boolean {\n  return (\n${body}\n  );\n}\n`,
          `const shape${name}: Shape = ${shape};\n`,
        );
      }
      return `  [${JSON.stringify(type)}, { check: check${name}, shape: shape${name} }],`;
    });
    return (
      `/** ${doc} */\n` +
      `export const ${exportName}: ReadonlyMap<string, FrameValidator> = new Map([\n` +
      `${rows.join('\n')}\n]);\n`
    );
  };
  const exported = tables.map(table); // before joining: emitting fills `parts`
  return [...parts, ...exported].join('\n');
}

/** How generateValidatorTableSource names and documents its module. */
export interface ValidatorModuleOptions extends Omit<ValidatorTable, 'schemas'> {
  /** What the schemas are, for the header, e.g. `RPC_REQUESTS in src/modes/rpc-schema.ts`. */
  readonly from: string;
  /** Module the generated file imports the `FrameValidator` and `Shape` types from. */
  readonly typesFrom: string;
}

/**
 * Source text (unformatted TypeScript) of a module exporting one table of validators, for a
 * package other than the protocol: `formatFrameError(type, shape, value)` explains failures.
 * Contract: deterministic; throws as the generator does on unsupported schemas.
 */
export function generateValidatorTableSource(
  schemas: Readonly<Record<string, TSchema>>,
  options: ValidatorModuleOptions,
): string {
  const header = `// Generated by scripts/gen-schema.mjs (@zot/protocol's src/codegen.ts) from the TypeBox
// schemas ${options.from}: per type, TypeBox's compiled check and the
// shape formatFrameError walks to explain a failure. Do not edit; run \`npm run gen:schema\`.
// No runtime imports.
import type { FrameValidator, Shape } from ${JSON.stringify(options.typesFrom)};
`;
  const { exportName, doc } = options;
  return generateModule(header, [{ exportName, doc, schemas }]);
}

const HEADER = `// Generated by scripts/gen-schema.mjs (src/codegen.ts) from the TypeBox frame schemas in
// src/frames-*.ts: per frame type, TypeBox's compiled check and the shape errors.ts walks to
// explain a failure. Do not edit; run \`npm run gen:schema\`. No runtime imports.
import type { FrameValidator, Shape } from '../errors.js';
`;

/**
 * Source text (unformatted TypeScript) of src/generated/validators.ts.
 * Contract: deterministic; a schema shared by both directions is emitted once.
 */
export function generateValidatorsSource(): string {
  return generateModule(HEADER, [
    {
      exportName: 'VALIDATORS_FROM_EXTENSION',
      doc: 'Validators of the extension → host frames, keyed by wire `type`, in spec order.',
      schemas: FRAME_SCHEMAS_FROM_EXTENSION,
    },
    {
      exportName: 'VALIDATORS_FROM_HOST',
      doc: 'Validators of the host → extension frames, keyed by wire `type`, in spec order.',
      schemas: FRAME_SCHEMAS_FROM_HOST,
    },
  ]);
}
