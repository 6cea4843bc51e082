// The streams a mode writes to, injectable so modes can be driven in-process.
import type { SessionEvent } from '../contract/events.js';
import { terminalSafe, terminalSafeBlock } from '../util/terminal-text.js';

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

/** A diagnostic for a person (stderr): one line, control characters and escapes shown escaped. */
export function writeDiagnostic(stream: NodeJS.WritableStream, text: string): void {
  writeLine(stream, terminalSafe(text));
}

/** A command's help on stdout; returns its exit code, 0. */
export function printHelp(io: ModeIO, help: string): number {
  writeLine(io.stdout, help);
  return 0;
}

/** `zot: message` on stderr as a diagnostic; returns the failure exit code, 1. */
export function printFailure(io: ModeIO, message: string): number {
  writeDiagnostic(io.stderr, `zot: ${message}`);
  return 1;
}

/**
 * Data on stdout: raw into a pipe or a file (it is data, and scripts get it unchanged), made
 * inert when a terminal renders it (model and extension text must not drive the terminal).
 */
export function writeData(stream: NodeJS.WritableStream, text: string): void {
  const terminal = (stream as { isTTY?: boolean }).isTTY === true;
  writeLine(stream, terminal ? terminalSafeBlock(text) : text);
}

/**
 * Reports a failed prompt on stderr; returns the exit code (0 ok, 1 error or abort). A run
 * that was stopped (signal, closed stdout) reports nothing: its exit status says why.
 */
export function promptExitCode(
  result: { stop: string; error?: string },
  io: ModeIO,
  stop?: AbortSignal,
): number {
  if (result.stop !== 'error' && result.stop !== 'aborted') return 0;
  if (!stop?.aborted) writeDiagnostic(io.stderr, `zot: ${result.error ?? result.stop}`);
  return 1;
}

/** The one line every front end shows when a crashed extension is back. */
export function restartedText(event: { extension: string; restarts: number }): string {
  const times = event.restarts === 1 ? 'once' : `${event.restarts} times`;
  return `extension ${event.extension} restarted (restarted ${times} since it was loaded)`;
}

/** Warnings and extension failures go to stderr in every mode (JSON/RPC also get the event). */
export function reportDiagnostics(event: SessionEvent, io: ModeIO): void {
  if (event.type === 'warning') writeDiagnostic(io.stderr, `zot: warning: ${event.message}`);
  else if (event.type === 'ext_error')
    // An extension that never started (a missing directory, a bad manifest) has no log; its
    // message names the directory or file instead.
    writeDiagnostic(
      io.stderr,
      `zot: ${event.message}${event.log_path ? ` (log: ${event.log_path})` : ''}`,
    );
  else if (event.type === 'ext_warning')
    writeDiagnostic(io.stderr, `zot: warning: ${event.message}`);
  else if (event.type === 'ext_restarted')
    writeDiagnostic(io.stderr, `zot: ${restartedText(event)}`);
}
