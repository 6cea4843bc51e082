// The bash tool in an editor's terminal (`zot acp --client-terminal`): the command's outcome and
// output in the shapes zot's own runs give, so the model reads the same result either way.
import type { ToolContext } from '../agent/tool.js';
import type { EditorTerminal } from '../contract/front-end.js';
import { errorMessage } from '../util/errors.js';
import { formatBytes } from '../util/truncate.js';
import type { OutputSink, SinkResult } from './bash-output.js';
import type { RunOutcome } from './bash-run.js';

export interface TerminalAttempt {
  shell: string;
  outcome: RunOutcome;
  result: SinkResult;
}

export interface TerminalSettings {
  shell: string;
  sink: OutputSink;
  /** The editor keeps this much of the output's tail. */
  outputByteLimit: number;
}

/** Runs `command` in the editor's terminal; its output goes through `sink` as zot's runs do. */
export async function terminalAttempt(
  terminal: EditorTerminal,
  command: string,
  timeoutSec: number,
  context: ToolContext,
  settings: TerminalSettings,
): Promise<TerminalAttempt> {
  const shell = `the editor's terminal (${settings.shell})`;
  let ended;
  try {
    ended = await terminal.run({
      toolCallId: context.toolCallId,
      argv: [settings.shell, '-c', command],
      cwd: context.cwd,
      timeoutMs: timeoutSec * 1000,
      signal: context.signal,
      outputByteLimit: settings.outputByteLimit,
    });
  } catch (error) {
    const result = settings.sink.finish();
    return { shell, outcome: { kind: 'spawn-error', message: errorMessage(error) }, result };
  }
  settings.sink.write(Buffer.from(ended.output, 'utf8'));
  const sunk = settings.sink.finish();
  const result: SinkResult = ended.truncated
    ? {
        ...sunk,
        truncated: true,
        note: [
          `[output truncated by the editor: it kept the last ${formatBytes(settings.outputByteLimit)}]`,
          ...(sunk.note ? [sunk.note] : []),
        ].join('\n'),
      }
    : sunk;
  const outcome: RunOutcome =
    ended.kind === 'exited'
      ? {
          kind: 'exited',
          code: ended.exitCode,
          signal: (ended.signal as NodeJS.Signals | null) ?? null,
          pipeHeld: false,
        }
      : { kind: ended.kind, pipeHeld: false };
  return { shell, outcome, result };
}
