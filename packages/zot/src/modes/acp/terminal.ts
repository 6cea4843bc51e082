// bash in the editor's terminal (ACP's `terminal/*`), when `zot acp --client-terminal` is on, the
// client offers terminals and zot's sandbox is off: create, show in the tool call, wait (killed
// on timeout or cancel), read the output, and always release.
import type {
  AgentContext,
  TerminalExitStatus,
  TerminalOutputResponse,
  WaitForTerminalExitResponse,
} from '@agentclientprotocol/sdk';
import type { EditorTerminal, TerminalOutcome, TerminalRun } from '../../contract/front-end.js';

export interface TerminalHooks {
  /** The terminal exists: the tool call shows it from now on. */
  shown(toolCallId: string, terminalId: string): void;
  /** Diagnostics (a kill or release the client refused). */
  log(message: string): void;
}

type Ending = { kind: 'exited'; status: TerminalExitStatus } | { kind: 'timeout' | 'aborted' };

export function editorTerminal(
  client: AgentContext,
  sessionId: string,
  hooks: TerminalHooks,
): EditorTerminal {
  return {
    async run(request: TerminalRun): Promise<TerminalOutcome> {
      const [command, ...args] = request.argv;
      // Not cancellable: a terminal created after a cancel would never be released.
      const { terminalId } = await client.request('terminal/create', {
        sessionId,
        command,
        args,
        cwd: request.cwd,
        outputByteLimit: request.outputByteLimit,
      });
      const ids = { sessionId, terminalId };
      try {
        hooks.shown(request.toolCallId, terminalId);
        const kill = () =>
          client
            .request('terminal/kill', ids)
            .catch((error) => hooks.log(`zot: terminal/kill ${terminalId} failed: ${error}`));
        let ending: Ending;
        try {
          ending = await waitForExit(client, ids, request);
        } catch (error) {
          await kill();
          throw error;
        }
        if (ending.kind !== 'exited') await kill();
        const output = await client.request<TerminalOutputResponse>('terminal/output', ids);
        const status = ending.kind === 'exited' ? ending.status : output.exitStatus;
        return {
          kind: ending.kind,
          exitCode: status?.exitCode ?? null,
          signal: status?.signal ?? null,
          output: output.output,
          truncated: output.truncated,
        };
      } finally {
        await client
          .request('terminal/release', ids)
          .catch((error) => hooks.log(`zot: terminal/release ${terminalId} failed: ${error}`));
      }
    },
  };
}

/** The command's exit, or the timeout or the cancel, whichever comes first. */
async function waitForExit(
  client: AgentContext,
  ids: { sessionId: string; terminalId: string },
  request: TerminalRun,
): Promise<Ending> {
  const stop = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    const timedOut = new Promise<Ending>((resolve) => {
      timer = setTimeout(() => resolve({ kind: 'timeout' }), request.timeoutMs);
    });
    const aborted = new Promise<Ending>((resolve) => {
      onAbort = () => resolve({ kind: 'aborted' });
      if (request.signal.aborted) onAbort();
      else request.signal.addEventListener('abort', onAbort, { once: true });
    });
    const exited = client
      .request<WaitForTerminalExitResponse>('terminal/wait_for_exit', ids, {
        cancellationSignal: stop.signal,
      })
      .then(
        (status): Ending => ({ kind: 'exited', status }),
        (error: unknown) => {
          if (stop.signal.aborted) return new Promise<Ending>(() => undefined); // ours: lost the race
          throw new Error(`terminal/wait_for_exit failed: ${String(error)}`);
        },
      );
    return await Promise.race([exited, timedOut, aborted]);
  } finally {
    clearTimeout(timer);
    if (onAbort) request.signal.removeEventListener('abort', onAbort);
    stop.abort();
  }
}
