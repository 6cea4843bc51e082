// Tool argument validation against each tool's JSON Schema, compiled once per schema object.
// Ajv costs tens of milliseconds to load, so it is loaded on first need, not at start-up; the
// built-in tools bring validators generated at build time and never need it.
// Schema patterns run on RE2 (util/safe-regex.ts): no schema can make validation backtrack;
// `uniqueItems` and `enum` hash each value once (linear-keywords.ts): no argument can make
// validation quadratic. Arguments reach validation already within zot's bounds for tool
// arguments (agent/tool-call.ts), so its work is bounded too.
import type { Ajv as AjvType, ErrorObject, ValidateFunction } from 'ajv';
import type { JsonSchema } from '../providers/types.js';
import type { ArgsValidator } from './tool.js';

let ajv: AjvType | undefined;
let loading: Promise<void> | undefined;
const compiled = new WeakMap<JsonSchema, ValidateFunction | Error>();

/** Loads the validator; the sync functions below require it. Contract: idempotent, never rejects. */
export function loadValidator(): Promise<void> {
  loading ??= Promise.all([
    import('ajv'),
    import('../util/safe-regex.js'),
    import('./linear-keywords.js'),
  ]).then(([{ Ajv }, { compileSafeRegex }, { useLinearKeywords }]) => {
    // Ajv calls the engine as `regExp(pattern, flags)`; `code` names it in standalone code,
    // which we never generate from extension schemas.
    const regExp = Object.assign(compileSafeRegex, { code: 'compileSafeRegex' });
    // No logger: Ajv's warnings (unknown formats ...) would go to the console, the UI's screen.
    ajv = useLinearKeywords(
      new Ajv({
        allErrors: true,
        strict: false,
        validateSchema: true,
        logger: false,
        code: { regExp },
      }),
    );
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
      // Compiled once, kept here: unregistered, its `$id` cannot clash with another tool's.
      ajv.removeSchema(schema);
    } catch (error) {
      entry = error instanceof Error ? error : new Error(String(error));
    }
    compiled.set(schema, entry);
  }
  return entry;
}

const MAX_ERRORS_SHOWN = 10;

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

/**
 * Contract: never throws; returns undefined when the arguments are valid. Uses `precompiled`
 * when given (no Ajv needed), else compiles `schema` (loadValidator must have resolved).
 */
export function validateArgs(
  toolName: string,
  schema: JsonSchema,
  args: unknown,
  precompiled?: ArgsValidator,
): string | undefined {
  const validate = precompiled ?? compile(schema);
  if (validate instanceof Error)
    return `tool "${toolName}" has an invalid schema: ${validate.message}`;
  let valid: boolean;
  try {
    valid = validate(args) as boolean;
  } catch (error) {
    // Defence in depth: registration rejects schemas that recurse forever, but a validator
    // must never take the agent down with it.
    const why = error instanceof Error ? error.message : String(error);
    return `tool "${toolName}" has a schema that cannot be evaluated: ${why}`;
  }
  if (valid) return undefined;
  // Every item of a long array may be wrong: the model gets the first few, and a count.
  const errors = validate.errors ?? [];
  const shown = errors.slice(0, MAX_ERRORS_SHOWN).map(describe).join('; ');
  const more =
    errors.length > MAX_ERRORS_SHOWN ? ` (and ${errors.length - MAX_ERRORS_SHOWN} more)` : '';
  return `invalid arguments for tool "${toolName}": ${shown}${more}`;
}
