// Checking that a tool's schema is itself a valid JSON Schema (draft-07), for extension tools.
// Kept apart from validate.ts so that the print/JSON start-up path never loads the generated
// meta-schema validator.
import type { ErrorObject } from 'ajv';
import generatedMetaValidator from './generated/json-schema-meta.js';
import { lintSchema } from './schema-lint.js';

/** The meta-schemas the argument validator knows: draft-07 under its names. */
const DRAFT_07: ReadonlySet<string> = new Set(
  ['http://json-schema.org/draft-07/schema', 'http://json-schema.org/schema'].flatMap((uri) => [
    uri,
    `${uri}#`,
  ]),
);

/** Ajv's standalone validators report errors on a property of the function. */
const validateMetaSchema = generatedMetaValidator as unknown as ((schema: unknown) => boolean) & {
  errors?: ErrorObject[] | null;
};

/**
 * Returns an error message when `schema` is not a valid JSON Schema (draft-07) object, or uses
 * a pattern our regex engine cannot run or a `$ref` that does not resolve. Uses the
 * precompiled meta-schema validator: no Ajv load, so extensions can register tools at start-up
 * for free. Contract: never throws.
 */
export function checkSchema(schema: unknown): string | undefined {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    return 'schema must be a JSON Schema object';
  }
  const dialect = (schema as Record<string, unknown>)['$schema'];
  if (dialect !== undefined && !DRAFT_07.has(dialect as string)) {
    return `"$schema" is ${JSON.stringify(dialect)}, which zot cannot check arguments against: it checks tool schemas as JSON Schema draft-07; remove "$schema" or set it to "http://json-schema.org/draft-07/schema#"`;
  }
  let valid: boolean;
  try {
    valid = validateMetaSchema(schema);
  } catch (error) {
    // Ajv's deep equality (enum, uniqueItems) calls an own `toString`/`valueOf` key of the data.
    return `cannot be checked: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (valid) return lintSchema(schema as Record<string, unknown>);
  const errors = validateMetaSchema.errors ?? [];
  return errors
    .slice(0, 3)
    .map((error) => `${error.instancePath || '(schema)'} ${error.message ?? 'is invalid'}`)
    .join('; ');
}
