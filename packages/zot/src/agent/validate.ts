// Tool argument validation against each tool's JSON Schema, compiled once per schema object.
// Ajv costs tens of milliseconds to load, so it is loaded on first need, not at start-up
// (ajv-compile.ts, which also says how patterns, `uniqueItems` and `enum` stay linear); the
// built-in tools bring validators generated at build time and never need it. This runs on the
// calling thread: check-args.ts decides what may run on the event loop and sends the rest to
// the validation worker, which runs this same code.
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { JsonSchema } from '../providers/types.js';
import { LoadOnce } from '../util/load-once.js';
import type { ArgsValidator } from './tool.js';

const ajvCompile = new LoadOnce(() => import('./ajv-compile.js'));

/** Loads the validator; the sync functions below require it. Contract: idempotent. */
export async function loadValidator(): Promise<void> {
  await ajvCompile.load();
}

function compile(schema: JsonSchema): ValidateFunction | Error {
  const loaded = ajvCompile.now;
  if (!loaded)
    return new Error('internal: the argument validator is not loaded (call loadValidator first)');
  return loaded.compileSchema(schema);
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
