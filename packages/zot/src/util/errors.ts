// Small helpers for turning unknown throwables into readable text.

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** A failure the user caused (bad flag, bad value); the CLI exits 2 with the message. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * Why `program` did not start: not installed (`neededFor` says what it is needed for), or the
 * launch error of `what` (default: the program).
 */
export function launchFailureText(
  error: Error,
  program: string,
  neededFor: string,
  what: string = program,
): string {
  return (error as NodeJS.ErrnoException).code === 'ENOENT'
    ? `${program} is not installed or not on PATH; ${neededFor}`
    : `cannot run ${what}: ${error.message}`;
}
