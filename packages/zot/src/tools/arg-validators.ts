// The built-in tools' argument validators, generated at build time (Ajv standalone code in
// generated/arg-validators.ts, by scripts/gen-json-schema-validator.mjs), so that the first
// tool call of a run loads no Ajv and compiles nothing. Extension tools have none: the agent
// compiles their schemas with Ajv on their first call (agent/validate.ts).
import type { ArgsValidator } from '../agent/tool.js';
import type { JsonSchema } from '../providers/types.js';
import * as generated from './generated/arg-validators.js';

/** The tools with a generated validator: the built-ins and `skill`. */
export type ValidatedToolName = 'read' | 'write' | 'edit' | 'bash' | 'skill';

const VALIDATORS = generated as unknown as Record<ValidatedToolName, ArgsValidator>;

export function argsValidator(name: ValidatedToolName): ArgsValidator {
  return VALIDATORS[name];
}

/** Keywords that only annotate: they never change whether arguments are valid. */
const ANNOTATIONS = new Set(['description', 'title', 'examples', '$comment']);
/** Keywords whose value is a map of names to schemas. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs']);
/** Keywords whose value is a schema or a list of schemas (any other value is data: kept). */
const SUBSCHEMAS = new Set([
  ...['items', 'additionalItems', 'additionalProperties', 'contains', 'propertyNames', 'not'],
  ...['if', 'then', 'else', 'anyOf', 'oneOf', 'allOf'],
]);

/**
 * A schema without its annotations: what a validator is generated from. The tools' descriptions
 * mention their options (line limits, the default timeout); their validation shape never does,
 * so one generated validator serves every option set. Used by the generator and its tests.
 */
export function validationShape(schema: JsonSchema): JsonSchema {
  const shape: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key)) continue;
    if (SCHEMA_MAPS.has(key) && isSchema(value)) {
      shape[key] = Object.fromEntries(
        Object.entries(value).map(([name, sub]) => [
          name,
          isSchema(sub) ? validationShape(sub) : sub,
        ]),
      );
    } else if (SUBSCHEMAS.has(key) && Array.isArray(value)) {
      shape[key] = value.map((item) => (isSchema(item) ? validationShape(item) : item));
    } else if (SUBSCHEMAS.has(key) && isSchema(value)) {
      shape[key] = validationShape(value);
    } else shape[key] = value;
  }
  return shape;
}

function isSchema(value: unknown): value is JsonSchema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
