// Runs a fuzz target for a number of cases from a seed and reports each distinct failure with
// what reproduces it: the case's seed, the limits and the offending input (truncated).
import { caseSeed, Rng } from './prng.js';
import type { FuzzTarget } from './targets.js';
import type { Limits } from './values.js';

export interface FuzzRun {
  seed: number;
  count: number;
  limits: Limits;
  /** Stop the target after this many distinct failures. */
  maxFailures: number;
}

export interface FuzzFailure {
  target: string;
  run: FuzzRun;
  index: number;
  caseSeed: number;
  error: unknown;
  input: string;
  /** Further cases that failed the same way. */
  repeats: number;
}

/** Small limits for the bounded run inside `npm test`; `npm run fuzz` defaults to LONG_LIMITS. */
export const SHORT_LIMITS: Limits = { maxBytes: 64 * 1024, maxDepth: 3000 };
export const LONG_LIMITS: Limits = { maxBytes: 2 * 1024 * 1024, maxDepth: 100_000 };

// Everything a careless `obj[key] = value` with key "__proto__" could reach.
function prototypes(): string {
  return [Object.prototype, Array.prototype, Function.prototype, String.prototype]
    .map((proto) => Object.getOwnPropertyNames(proto).sort().join(','))
    .join('|');
}

/** Stack frames in our own files (a stack overflow buries them under built-in frames). */
function ownFrames(error: Error): string[] {
  return (error.stack ?? '')
    .split('\n')
    .filter((line) => /^\s+at .*file:\/\//.test(line))
    .map((line) => line.trim());
}

/** Same error, same place: the first line of the message and the first frame of our code. */
function signature(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return `${error.name}: ${error.message.split('\n')[0]!.slice(0, 120)} ${ownFrames(error)[0] ?? ''}`;
}

export async function runTarget<I>(target: FuzzTarget<I>, run: FuzzRun): Promise<FuzzFailure[]> {
  await target.setup?.();
  const before = prototypes();
  const failures = new Map<string, FuzzFailure>();
  for (let index = 0; index < run.count; index++) {
    const seed = caseSeed(run.seed, index);
    const input = target.generate(new Rng(seed), run.limits);
    try {
      target.check(input);
      if (prototypes() !== before) throw new Error('a built-in prototype gained properties');
    } catch (error) {
      const key = signature(error);
      const known = failures.get(key);
      if (known !== undefined) {
        known.repeats++;
        continue;
      }
      failures.set(key, {
        target: target.name,
        run,
        index,
        caseSeed: seed,
        error,
        input: target.show(input),
        repeats: 0,
      });
      if (failures.size >= run.maxFailures) break;
    }
  }
  return [...failures.values()];
}

/** Shows at most `max` characters, escaped so that control characters and bad bytes are visible. */
export function truncate(text: string, max = 600): string {
  const shown = JSON.stringify(text.length > max ? text.slice(0, max) : text);
  return text.length > max ? `${shown}… (${text.length} chars in all)` : shown;
}

export function formatFailure(failure: FuzzFailure): string {
  const { error, run } = failure;
  const stack =
    error instanceof Error
      ? [
          `${error.name}: ${error.message}`,
          ...(ownFrames(error).length > 0
            ? ownFrames(error).slice(0, 8)
            : [
                '(no frame of ours among the captured ones: replay with node --stack-trace-limit=100000)',
              ]),
        ].join('\n    ')
      : String(error);
  return [
    `fuzz ${failure.target}: a case failed${failure.repeats > 0 ? ` (and ${failure.repeats} more the same way)` : ''}`,
    `  seed: case ${failure.index} of run seed ${run.seed}, case seed ${failure.caseSeed}`,
    `  reproduce: npm run fuzz -- --seed ${failure.caseSeed} --count 1 --max-bytes ${run.limits.maxBytes} --max-depth ${run.limits.maxDepth} ${failure.target}`,
    `  input: ${truncate(failure.input)}`,
    `  error: ${stack}`,
  ].join('\n');
}
