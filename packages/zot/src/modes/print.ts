// Print mode: run one prompt (or slash command), write the final answer to stdout.
import type { Session } from '../session/session.js';
import {
  promptExitCode,
  reportDiagnostics,
  writeData,
  writeDiagnostic,
  type ModeIO,
} from './io.js';
import { outputWriter } from './pressure.js';
import { terminalSafe, terminalSafeBlock } from '../util/terminal-text.js';

/** Returns the exit code: 0 when the model finished, 1 on error or abort. */
export async function runPrintMode(
  session: Session,
  prompt: string,
  io: ModeIO,
  stop?: AbortSignal,
): Promise<number> {
  const notes = outputWriter(io.stderr, session); // notes are what an extension can flood
  session.subscribe((event) => {
    reportDiagnostics(event, io);
    if (event.type === 'ext_notify') notes(terminalSafe(`[${event.extension}] ${event.message}`));
    if (event.type === 'ext_display')
      notes(terminalSafeBlock(`[${event.extension}] ${event.text}`));
  });
  await session.startExtensions();
  if (!prompt.startsWith('/')) {
    const result = await session.prompt(prompt);
    const code = promptExitCode(result, io, stop);
    if (code === 0 && result.finalText !== '') writeData(io.stdout, result.finalText);
    return code;
  }
  const result = await session.runCommand(prompt, 'print', false);
  switch (result.kind) {
    case 'prompt': {
      const code = promptExitCode(result.outcome, io, stop);
      if (code === 0 && result.outcome.finalText !== '')
        writeData(io.stdout, result.outcome.finalText);
      return code;
    }
    case 'display':
    case 'insert':
      writeData(io.stdout, result.text);
      return 0;
    case 'panel':
      writeDiagnostic(
        io.stderr,
        `zot: /${prompt.slice(1).split(/\s/)[0]} opens a panel; panels need the TUI or RPC mode`,
      );
      return 1;
    case 'error':
      writeDiagnostic(io.stderr, `zot: ${result.message}`);
      return 1;
    default:
      return 0;
  }
}
