// Giving the terminal to something else and taking it back: the shell (ctrl+z suspends zot
// until `fg`) and the user's editor (ctrl+g edits the prompt in $VISUAL or $EDITOR). The TUI
// stops first (the terminal back in its normal mode, zot reading no input) and starts again
// with a full redraw. The event loop keeps running meanwhile: extensions are still answered.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What the TUI must do around a hand-off (pi-tui's TUI does both). */
export interface Stoppable {
  stop(): void;
  start(): void;
  requestRender(force?: boolean): void;
}

/**
 * Runs the user's own programs (their editor, a clipboard tool): the composition root hands in
 * one that goes through zot's process launcher (a scrubbed environment), as every spawn must.
 */
export interface UserPrograms {
  /** Runs `argv` on this terminal (stdio inherited); resolves with its exit code or signal. */
  onTerminal(argv: readonly [string, ...string[]]): Promise<number | string>;
  /**
   * Runs `argv` with `input` on its stdin and its output ignored, ended after `timeoutMs`;
   * resolves with its exit code or signal; rejects when it cannot start (ENOENT: not installed).
   */
  withInput(
    argv: readonly [string, ...string[]],
    input: string,
    timeoutMs: number,
  ): Promise<number | string>;
}

/** The longest prompt taken back from the editor. */
export const MAX_EDITED_BYTES = 1024 * 1024;

/**
 * Suspends zot as ctrl+z does in a line-mode program: the TUI stops and the process group gets
 * SIGTSTP; on SIGCONT (`fg`) the TUI starts again. Returns why it cannot, or undefined.
 */
export function suspend(tui: Stoppable, platform = process.platform): string | undefined {
  if (platform === 'win32') return 'suspending is not supported on Windows';
  // A stop sent to a group no shell watches is dropped by the kernel: zot would wait for a
  // SIGCONT that never comes, its screen stopped.
  if (orphanedGroup() === true) {
    return 'ctrl+z: no shell with job control started zot, so there is nothing to return to';
  }
  // With the terminal stopped nothing else may hold the event loop (a signal listener does
  // not): without this, Node would exit as soon as it runs again, before it hears SIGCONT.
  const keepAlive = setInterval(() => undefined, 1 << 30);
  process.once('SIGCONT', () => {
    clearInterval(keepAlive);
    tui.start();
    tui.requestRender(true);
  });
  tui.stop();
  // The whole group, as the terminal would: the shell sees the job stop and takes over.
  process.kill(0, 'SIGTSTP');
  return undefined;
}

/** The state fields of /proc/<pid>/stat that job control needs; undefined without /proc. */
function processStat(
  pid: number | 'self',
): { ppid: number; pgrp: number; session: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [, ppid, pgrp, session] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(ppid), pgrp: Number(pgrp), session: Number(session) };
  } catch {
    return undefined;
  }
}

/**
 * Whether zot's process group is orphaned (POSIX): no process outside it in the same session
 * is its parent, so no shell would see it stop. Followed up zot's ancestors (the usual case); a
 * system without /proc is not asked (undefined).
 */
export function orphanedGroup(): boolean | undefined {
  const self = processStat('self');
  if (!self) return undefined;
  let parent = self.ppid;
  for (let depth = 0; depth < 64 && parent > 1; depth++) {
    const stat = processStat(parent);
    if (!stat) return undefined;
    if (stat.pgrp !== self.pgrp) return stat.session !== self.session;
    parent = stat.ppid;
  }
  return true;
}

export type EditOutcome = { ok: true; text: string } | { ok: false; error: string };

/**
 * Opens `text` in the user's editor ($VISUAL, else $EDITOR) and returns what it held when the editor exited successfully. The file
 * is private (mode 600, in a new directory) and removed afterwards. Contract: never rejects.
 */
export async function editExternally(
  tui: Stoppable,
  text: string,
  env: NodeJS.ProcessEnv,
  programs: UserPrograms | undefined,
): Promise<EditOutcome> {
  if (!programs) return { ok: false, error: 'this terminal cannot run an editor' };
  const editor = (env.VISUAL || env.EDITOR || '').trim();
  if (!editor) {
    return {
      ok: false,
      error: 'no editor is set: set $VISUAL or $EDITOR (e.g. export EDITOR=vim)',
    };
  }
  if (process.platform === 'win32') return { ok: false, error: 'ctrl+g needs a POSIX shell' };
  let dir: string | undefined;
  try {
    dir = mkdtempSync(join(tmpdir(), 'zot-prompt-'));
    const file = join(dir, 'prompt.md');
    writeFileSync(file, text, { mode: 0o600 });
    tui.stop();
    const restoreInterrupts = setInterruptsAside();
    let code: number | string;
    try {
      // As git runs its editor: through the shell, so `code --wait` or `vim -u NONE` work.
      code = await programs.onTerminal(['/bin/sh', '-c', `${editor} "$@"`, editor, file]);
    } finally {
      restoreInterrupts();
      tui.start();
      tui.requestRender(true);
    }
    if (code !== 0) {
      return { ok: false, error: `${editor} ended with ${code}; the prompt is as it was` };
    }
    const edited = readFileSync(file);
    if (edited.length > MAX_EDITED_BYTES) {
      return { ok: false, error: `the edited prompt is over 1 MiB; the prompt is as it was` };
    }
    // Editors end a file with a newline; the prompt did not have one.
    return { ok: true, text: edited.toString('utf8').replace(/\r?\n$/, '') };
  } catch (error) {
    return { ok: false, error: `the editor could not be run: ${(error as Error).message}` };
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * While the user's editor has the terminal, ctrl+c there is the editor's: the terminal sends
 * SIGINT to its whole foreground job, zot included, and zot's own handlers would end the run.
 * They are set aside (SIGINT ignored) until the editor exits; the returned function puts them
 * back. The editor, in the same job, still gets it: a `code --wait` ends, and zot says so.
 */
export function setInterruptsAside(): () => void {
  const handlers = process.rawListeners('SIGINT') as Array<(...args: unknown[]) => void>;
  process.removeAllListeners('SIGINT');
  const ignore = () => undefined;
  process.on('SIGINT', ignore);
  return () => {
    process.removeListener('SIGINT', ignore);
    for (const handler of handlers) process.on('SIGINT', handler);
  };
}
