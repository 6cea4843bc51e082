// Regular expressions from untrusted sources (a tool schema's `pattern`, its
// `patternProperties`) run on RE2's linear-time engine, never on V8's backtracking one: a
// pattern such as ^(a|aa)+$ must not be able to pin the event loop (ReDoS).
import { RE2JS } from 're2js';

export interface SafeRegex {
  test(input: string): boolean;
  /** `/pattern/flags`: Ajv caches compiled patterns by this string. */
  toString(): string;
}

const cache = new Map<string, SafeRegex>();
const CACHE_LIMIT = 500;

function flagBits(flags: string): number {
  let bits = 0;
  if (flags.includes('i')) bits |= RE2JS.CASE_INSENSITIVE;
  if (flags.includes('m')) bits |= RE2JS.MULTILINE;
  if (flags.includes('s')) bits |= RE2JS.DOTALL;
  return bits; // 'u' needs nothing: RE2 always matches code points.
}

/**
 * Compiles an ECMAScript-style pattern for RE2. `test` finds a match anywhere, as
 * RegExp.prototype.test does. Contract: matching is linear in the input; throws an Error with
 * a readable message for patterns RE2 cannot run (backreferences, lookaround, syntax errors).
 */
export function compileSafeRegex(pattern: string, flags = ''): SafeRegex {
  const key = `${flags}/${pattern}`;
  let regex = cache.get(key);
  if (regex) return regex;
  try {
    const compiled = RE2JS.compile(RE2JS.translateRegExp(pattern), flagBits(flags));
    const source = `/${pattern}/${flags}`;
    regex = { test: (input: string) => compiled.test(input), toString: () => source };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(`pattern ${JSON.stringify(pattern)} is not supported: ${why}`);
  }
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(key, regex);
  return regex;
}

/** Returns why `pattern` cannot be used, or undefined when it can. Contract: never throws. */
export function safeRegexProblem(pattern: string): string | undefined {
  try {
    compileSafeRegex(pattern, 'u');
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
