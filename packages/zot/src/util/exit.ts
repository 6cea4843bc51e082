// Exiting without losing output. Node writes to pipes asynchronously, so `process.exit` drops
// whatever stdout and stderr still hold: every exit goes through exitAfterFlush instead.

/**
 * Resolves once everything written to `stream` so far has reached the OS, or the stream is
 * gone (closed, errored: the reader went away). A live reader that is slow is waited for.
 * Contract: never rejects.
 */
export function flushed(stream: NodeJS.WritableStream): Promise<void> {
  const writable = stream as NodeJS.WritableStream & {
    destroyed?: boolean;
    writableEnded?: boolean;
    writableLength?: number;
  };
  if (writable.destroyed || writable.writableEnded || writable.writableLength === 0) {
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    stream.once('close', () => resolve());
    try {
      // Writes complete in order: the callback of an empty write marks everything before it.
      // It also runs, with the error, when the pipe breaks.
      stream.write('', () => resolve());
    } catch {
      resolve();
    }
  });
}

/**
 * Waits until stdout and stderr are flushed (at most `limitMs` when given: the hard fallback
 * of a second signal), then exits with `code`.
 */
export async function exitAfterFlush(code: number, limitMs?: number): Promise<never> {
  const both = Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  if (limitMs === undefined) await both;
  else await Promise.race([both, new Promise((resolve) => setTimeout(resolve, limitMs))]);
  process.exit(code);
}

/**
 * Routes a failing stdout (EPIPE: the reader went away) to `onBroken`, once; stderr failures
 * are ignored, since diagnostics have nowhere else to go. Without these listeners Node turns
 * the failure into an unhandled 'error' event: a stack trace and exit 1.
 * Contract: the listeners stay for the life of the process.
 */
export function watchStdio(onBroken: (error: NodeJS.ErrnoException) => void): void {
  let broken = false;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (broken) return;
    broken = true;
    onBroken(error);
  });
  process.stderr.on('error', () => undefined);
}
