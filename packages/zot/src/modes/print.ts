// Print mode: run one prompt, write the final assistant text to stdout.
import type { Session } from '../session/session.js';
import { promptExitCode, writeLine, type ModeIO } from './io.js';

/** Returns the exit code: 0 when the model finished, 1 on error or abort. */
export async function runPrintMode(session: Session, prompt: string, io: ModeIO): Promise<number> {
  session.subscribe((event) => {
    if (event.type === 'warning') writeLine(io.stderr, `zot: warning: ${event.message}`);
  });
  const result = await session.prompt(prompt);
  const code = promptExitCode(result, io);
  if (code === 0 && result.finalText !== '') writeLine(io.stdout, result.finalText);
  return code;
}
