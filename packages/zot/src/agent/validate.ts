// Tool argument validation against each tool's JSON Schema, compiled once per schema object.
// Ajv costs tens of milliseconds to load, so it is loaded on first need, not at start-up.
import type { Ajv as AjvType, ErrorObject, ValidateFunction } from 'ajv';
import type { JsonSchema } from '../providers/types.js';
import generatedMetaValidator from './generated/json-schema-meta.js';

/** Ajv's standalone validators report errors on a property of the function. */
const validateMetaSchema = generatedMetaValidator as unknown as ((schema: unknown) => boolean) & {
  errors?: ErrorObject[] | null;
};

let ajv: AjvType | undefined;
let loading: Promise<void> | undefined;
const compiled = new WeakMap<JsonSchema, ValidateFunction | Error>();

/** Loads the validator; the sync functions below require it. Contract: idempotent, never rejects. */
export function loadValidator(): Promise<void> {
  loading ??= import('ajv').then(({ Ajv }) => {
    ajv = new Ajv({ allErrors: true, strict: false, validateSchema: true });
  });
  return loading;
}

function compile(schema: JsonSchema): ValidateFunction | Error {
  let entry = compiled.get(schema);
  if (!entry) {
    if (!ajv)
      return new Error('internal: the argument validator is not loaded (call loadValidator first)');
    try {
      entry = ajv.compile(schema);
    } catch (error) {
      entry = error instanceof Error ? error : new Error(String(error));
    }
    compiled.set(schema, entry);
  }
  return entry;
}

/**
 * Returns an error message when `schema` is not a valid JSON Schema (draft-07) object. Uses the
 * precompiled meta-schema validator: no Ajv load, so extensions can register tools at start-up
 * for free. Contract: never throws.
 */
export function checkSchema(schema: unknown): string | undefined {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    return 'schema must be a JSON Schema object';
  }
  if (validateMetaSchema(schema)) return undefined;
  const errors = validateMetaSchema.errors ?? [];
  return errors
    .slice(0, 3)
    .map((error) => `${error.instancePath || '(schema)'} ${error.message ?? 'is invalid'}`)
    .join('; ');
}

function describe(error: ErrorObject): string {
  const where = error.instancePath || '(arguments)';
  if (error.keyword === 'additionalProperties') {
    return `${where}: unknown property "${String(error.params.additionalProperty)}"`;
  }
  if (error.keyword === 'required') {
    return `${where}: missing required property "${String(error.params.missingProperty)}"`;
  }
  return `${where}: ${error.message ?? 'is invalid'}`;
}

/** Contract: never throws; returns undefined when the arguments are valid. */
export function validateArgs(
  toolName: string,
  schema: JsonSchema,
  args: unknown,
): string | undefined {
  const validate = compile(schema);
  if (validate instanceof Error)
    return `tool "${toolName}" has an invalid schema: ${validate.message}`;
  if (validate(args)) return undefined;
  const details = (validate.errors ?? []).map(describe).join('; ');
  return `invalid arguments for tool "${toolName}": ${details}`;
}
