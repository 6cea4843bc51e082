// Ajv, set up as zot validates tool arguments, and the schemas it compiled. Loaded on first need
// (tens of milliseconds): by the run-time validator (validate.ts) and by the validation worker
// (validation-worker.ts), which each keep their own instance.
// Schema patterns run on RE2 (util/safe-regex.ts): no schema can make validation backtrack;
// `uniqueItems` and `enum` hash each value once (linear-keywords.ts): no argument can make
// validation quadratic.
import { Ajv, type ValidateFunction } from 'ajv';
import type { JsonSchema } from '../providers/types.js';
import { compileSafeRegex } from '../util/safe-regex.js';
import { useLinearKeywords } from './linear-keywords.js';

// Ajv calls the engine as `regExp(pattern, flags)`; `code` names it in standalone code, which we
// never generate from extension schemas.
const regExp = Object.assign(compileSafeRegex, { code: 'compileSafeRegex' });
// No logger: Ajv's warnings (unknown formats ...) would go to the console, the UI's screen.
const ajv = useLinearKeywords(
  new Ajv({
    allErrors: true,
    strict: false,
    validateSchema: true,
    logger: false,
    code: { regExp },
  }),
);
const compiled = new WeakMap<JsonSchema, ValidateFunction | Error>();

/** `schema` compiled, or why it cannot be. Contract: never throws; compiles a schema once. */
export function compileSchema(schema: JsonSchema): ValidateFunction | Error {
  let entry = compiled.get(schema);
  if (!entry) {
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
