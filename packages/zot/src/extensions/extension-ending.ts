// How a running extension's process ends: when zot shuts it down (design D18), the shutdown
// exchange for one that said hello, SIGKILL without a wait for one that never did, and the
// group's end in every case; when its output ends, the wait for the exit that usually follows.
import type { ExitWatch } from './exit-watch.js';
import type { ExtensionLog } from './log.js';
import type { ExtensionTransport } from './transport.js';

export interface Ending {
  /** It said hello and its process still runs: it is sent `shutdown` and given the grace. */
  readonly told: boolean;
  /**
   * Started but silent: it has not said hello (one started in the background once the first
   * model request was out, say, at a run's end). It was told nothing and holds nothing of the
   * run's, so its group is sent SIGKILL, which it cannot refuse, and zot does not wait to see it go.
   */
  readonly silent: boolean;
  readonly graceMs: number;
  readonly exited: ExitWatch;
  readonly transport: ExtensionTransport;
  readonly log: ExtensionLog;
  sendShutdown(): void;
}

/**
 * `shutdown` (when told), the grace for its exit, stdin closed, then SIGTERM and SIGKILL to the
 * group; a silent one gets SIGKILL at once. An extension that acknowledged `shutdown` is still
 * waited for until it exits (within the grace): only then can zot signal what it left behind in
 * its group, which would otherwise outlive zot.
 * Contract: never rejects; afterwards no process of the group is left, or (silent) every one
 * has been sent SIGKILL.
 */
export async function endProcess(ending: Ending): Promise<void> {
  const { exited, transport, log } = ending;
  if (ending.told) {
    ending.sendShutdown();
    if (!(await exited.wait(ending.graceMs)))
      log.write(`no exit within ${ending.graceMs} ms of shutdown; closing its stdin`);
  }
  transport.close();
  if (ending.silent && !exited.info) {
    log.write('shut down before it said hello: killed, its end not awaited');
    transport.terminateNow();
  } else await transport.terminate();
}

/**
 * Runs `silent` once `graceMs` have passed after the output ended without the exit following
 * (a process that can no longer speak to zot but is still alive). Contract: never throws.
 */
export function whenNoExitFollows(exited: ExitWatch, graceMs: number, silent: () => void): void {
  void exited.wait(graceMs).then((done) => {
    if (done) return;
    // After a stalled event loop the exit may be waiting in this turn's poll phase.
    setImmediate(() => {
      if (!exited.info) silent();
    });
  });
}
