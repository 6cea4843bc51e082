// JSON mode: run one prompt (or slash command), write every event as one JSON line on stdout.
import { runSlashCommand, slashResultEvent } from '../session/commands.js';
import type { Session } from '../session/session.js';
import { promptExitCode, reportDiagnostics, writeLine, type ModeIO } from './io.js';

export async function runJsonMode(
  session: Session,
  prompt: string,
  io: ModeIO,
  stop?: AbortSignal,
): Promise<number> {
  session.subscribe((event) => {
    reportDiagnostics(event, io);
    if (event.type !== 'warning') writeLine(io.stdout, JSON.stringify(event));
  });
  await session.startExtensions();
  if (!prompt.startsWith('/')) return promptExitCode(await session.prompt(prompt), io, stop);
  const result = await runSlashCommand(session, prompt);
  if (result.kind === 'prompt') return promptExitCode(result.outcome, io, stop);
  const event = slashResultEvent(result);
  if (event) session.emit(event);
  if (result.kind === 'error') {
    writeLine(io.stderr, `zot: ${result.message}`);
    return 1;
  }
  return 0;
}
