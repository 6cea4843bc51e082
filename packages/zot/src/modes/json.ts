// JSON mode: run one prompt, write every event as one JSON line on stdout.
import type { Session } from '../session/session.js';
import { promptExitCode, writeLine, type ModeIO } from './io.js';

export async function runJsonMode(session: Session, prompt: string, io: ModeIO): Promise<number> {
  session.subscribe((event) => {
    if (event.type === 'warning') writeLine(io.stderr, `zot: warning: ${event.message}`);
    else writeLine(io.stdout, JSON.stringify(event));
  });
  return promptExitCode(await session.prompt(prompt), io);
}
