// Checking a tool call's arguments against the tool's schema without ever blocking the event
// loop: what is cheap (validation-cost.ts) is validated here and now; the rest goes to the
// validation worker (validation-pool.ts), with a deadline. Fail closed: arguments that could not
// be checked are refused, so a tool never runs unvalidated.
//
// Why a worker and not only a budget at registration: the work is the schema's size times the
// arguments' size, and neither is absurd alone. A 500-branch `anyOf` is a plausible schema and
// 99,000 array items are within the argument bounds, yet together they are 50 million checks.
// A budget on schemas strict enough to bound the product would refuse ordinary schemas, and
// Ajv cannot be interrupted on this thread; a thread can be terminated. Registration still
// bounds what a schema expands to (schema-lint.ts), which keeps compiling it finite.
import type { JsonSchema } from '../providers/types.js';
import type { ArgsValidator } from './tool.js';
import { loadValidator, validateArgs } from './validate.js';
import { validatesInline } from './validation-cost.js';

export interface ArgsCheck {
  tool: string;
  schema: JsonSchema;
  args: unknown;
  /** The tool's validator generated at build time, if it has one (the built-in tools). */
  precompiled?: ArgsValidator;
  /** Stops waiting for the worker (the turn was aborted). */
  signal?: AbortSignal;
  /** The worker's deadline; defaults to ZOT_VALIDATION_TIMEOUT_MS (validation-pool.ts). */
  timeoutMs?: number;
}

/**
 * Why `args` are not valid for the tool (or could not be checked), or undefined when they are.
 * Contract: never throws, never rejects; never holds the event loop for more than a few
 * milliseconds (past INLINE_LIMITS the work runs in the worker).
 */
export async function checkArgs(check: ArgsCheck): Promise<string | undefined> {
  const { tool, schema, args, precompiled } = check;
  // A validator generated at build time from zot's own small schemas is linear in the
  // arguments, which are already within zot's bounds (16 MiB at most): always here.
  if (precompiled) return validateArgs(tool, schema, args, precompiled);
  if (validatesInline(schema, args)) {
    await loadValidator();
    return validateArgs(tool, schema, args);
  }
  const { validateInWorker } = await import('./validation-pool.js');
  return validateInWorker({
    tool,
    schema,
    args,
    ...(check.timeoutMs !== undefined ? { timeoutMs: check.timeoutMs } : {}),
    ...(check.signal ? { signal: check.signal } : {}),
  });
}
