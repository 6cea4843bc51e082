// Small helpers for turning unknown throwables into readable text.

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** A failure the user caused (bad flag, bad value); the CLI exits 2 with the message. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
