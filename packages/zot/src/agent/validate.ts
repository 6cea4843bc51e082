// Tool argument validation against each tool's JSON Schema, compiled once per schema object.
// Ajv costs tens of milliseconds to load, so it is loaded on first need, not at start-up.
// Schema patterns run on RE2 (util/safe-regex.ts): no schema can make validation backtrack.
import type { Ajv as AjvType, ErrorObject, ValidateFunction } from 'ajv';
import type { JsonSchema } from '../providers/types.js';

let ajv: AjvType | undefined;
let loading: Promise<void> | undefined;
const compiled = new WeakMap<JsonSchema, ValidateFunction | Error>();

/** Loads the validator; the sync functions below require it. Contract: idempotent, never rejects. */
export function loadValidator(): Promise<void> {
  loading ??= Promise.all([import('ajv'), import('../util/safe-regex.js')]).then(
    ([{ Ajv }, { compileSafeRegex }]) => {
      // Ajv calls the engine as `regExp(pattern, flags)`; `code` names it in standalone code,
      // which we never generate from extension schemas.
      const regExp = Object.assign(compileSafeRegex, { code: 'compileSafeRegex' });
      ajv = new Ajv({ allErrors: true, strict: false, validateSchema: true, code: { regExp } });
    },
  );
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
