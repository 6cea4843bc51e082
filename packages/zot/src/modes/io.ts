// The streams a mode writes to, injectable so modes can be driven in-process.

export interface ModeIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export function writeLine(stream: NodeJS.WritableStream, text: string): void {
  try {
    stream.write(text.endsWith('\n') ? text : `${text}\n`);
  } catch {
    // A closed pipe (e.g. `zot --json | head`) must not crash the agent.
  }
}

/** Reports a failed prompt on stderr; returns the exit code (0 ok, 1 error or abort). */
export function promptExitCode(result: { stop: string; error?: string }, io: ModeIO): number {
  if (result.stop !== 'error' && result.stop !== 'aborted') return 0;
  writeLine(io.stderr, `zot: ${result.error ?? result.stop}`);
  return 1;
}
