// Print mode: run one prompt (or slash command), write the final answer to stdout.
import type { ExtensionUi } from '../contract/extension-ui.js';
import type { OneShotSession } from '../contract/front-end.js';
import {
  promptExitCode,
  reportDiagnostics,
  writeData,
  writeDiagnostic,
  type ModeIO,
} from './io.js';
import { outputWriter } from './pressure.js';
import { terminalSafe, terminalSafeBlock } from '../util/terminal-text.js';

/**
 * Print mode's extension UI: notes and displays go to stderr as lines (stdout holds only the
 * answer); a stream cannot take back a note, hold a panel or edit a prompt, and a one-shot run
 * takes no further prompts, so the other actions change nothing (design D21).
 */
function printUi(write: (text: string) => void): ExtensionUi {
  const nothing = () => undefined;
  return {
    notify: (event) => write(terminalSafe(`[${event.extension}] ${event.message}`)),
    display: (event) => write(terminalSafeBlock(`[${event.extension}] ${event.text}`)),
    clearNotes: nothing,
    insert: nothing,
    submit: nothing,
    openPanel: nothing,
    renderPanel: nothing,
    closePanel: nothing,
  };
}

/** A refusal is an answer (stdout has its text), but not a normal one: stderr says so. */
function writeRefusal(io: ModeIO): void {
  writeDiagnostic(io.stderr, 'zot: the model refused to answer (provider refusal)');
}

/** Returns the exit code: 0 when the model finished, 1 on error or abort. */
export async function runPrintMode(
  session: OneShotSession,
  prompt: string,
  io: ModeIO,
  stop?: AbortSignal,
): Promise<number> {
  const notes = outputWriter(io.stderr, session); // notes are what an extension can flood
  session.subscribe((event) => {
    reportDiagnostics(event, io);
    // Nobody is asked in print mode: a refused call is said on stderr (the model is told too).
    if (event.type === 'permission') {
      writeDiagnostic(io.stderr, terminalSafe(`zot: ${event.tool} not run: ${event.reason}`));
    }
  });
  session.connectUi(printUi(notes));
  // A slash command may be any extension's: every one is waited for then.
  await session.startExtensions(prompt.startsWith('/') ? 'all' : 'needed');
  if (!prompt.startsWith('/')) {
    const result = await session.prompt(prompt);
    const code = promptExitCode(result, io, stop);
    if (code === 0 && result.finalText !== '') writeData(io.stdout, result.finalText);
    if (code === 0 && result.refusal) writeRefusal(io);
    return code;
  }
  const result = await session.runCommand(prompt, 'print', false);
  switch (result.kind) {
    case 'prompt': {
      const code = promptExitCode(result.outcome, io, stop);
      if (code === 0 && result.outcome.finalText !== '')
        writeData(io.stdout, result.outcome.finalText);
      if (code === 0 && result.outcome.refusal) writeRefusal(io);
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
