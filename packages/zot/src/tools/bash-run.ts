// Running one shell command in its own process group, with a timeout and an abort signal,
// through the launcher (environment scrubbing, and the sandbox when the policy has one).
import type { ChildProcess } from 'node:child_process';
import type { ProcessPolicy } from '../security/launcher.js';
import { accessSync, constants } from 'node:fs';
import { basename, delimiter, join } from 'node:path';
import { errorMessage } from '../util/errors.js';
import { killProcessGroup } from '../util/process-group.js';

export interface RunOptions {
  shell: string;
  command: string;
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** The sandbox and environment filter (default: none). */
  policy?: ProcessPolicy;
  timeoutMs: number;
  signal: AbortSignal;
  /** Time between SIGTERM and SIGKILL to the group. */
  graceMs: number;
  /** How long to keep reading after the shell exits, while something else holds the pipe. */
  drainMs: number;
  /** Output chunks, stdout and stderr merged in arrival order. */
  onData(chunk: Buffer): void;
}

export type RunOutcome =
  | {
      kind: 'exited';
      code: number | null;
      signal: NodeJS.Signals | null;
      pipeHeld: boolean;
      /** Sandboxed only: the sandbox ended before the command started (its error is the output). */
      sandboxFailed?: boolean;
    }
  | { kind: 'timeout' | 'aborted'; pipeHeld: boolean }
  | { kind: 'spawn-error'; message: string };

// The outer shell re-execs itself with stderr joined to stdout, so the kernel orders the two
// streams in one pipe (two pipes read by Node can reorder `echo a; echo b >&2`). exec keeps
// the pid, so the process group and the exit status are those of the command itself.
// "$2" becomes the inner $0, so messages read `bash: line 1: ...` as with a plain bash -c.
const MERGE_STDERR = 'exec "$0" -c "$1" "$2" 2>&1';
// In a sandbox it first tells the launcher it started (one byte on fd 3, then closes it).
const MARK_AND_MERGE = `printf . >&3; exec 3>&-; ${MERGE_STDERR}`;

let cachedShell: string | undefined;

/** bash if it can be found (the usual places, then PATH), else sh. */
export function defaultShell(env: NodeJS.ProcessEnv = process.env): string {
  if (cachedShell !== undefined) return cachedShell;
  const dirs = ['/bin', '/usr/bin', '/usr/local/bin', '/opt/homebrew/bin'];
  dirs.push(...(env.PATH ?? '').split(delimiter).filter((dir) => dir !== ''));
  for (const dir of dirs) {
    try {
      accessSync(join(dir, 'bash'), constants.X_OK);
      cachedShell = join(dir, 'bash');
      return cachedShell;
    } catch {
      // not here; try the next directory
    }
  }
  cachedShell = 'sh';
  return cachedShell;
}

function waitFor<T>(
  emitter: ChildProcess,
  event: string,
  map: (...args: unknown[]) => T,
): Promise<T> {
  return new Promise((resolve) =>
    emitter.once(event, (...args: unknown[]) => resolve(map(...args))),
  );
}

/**
 * Runs `shell -c command` detached (its own process group), stdin ignored.
 * On timeout or abort: SIGTERM to the whole group, SIGKILL after `graceMs`.
 * Contract: never rejects; resolves once the shell has exited and its output pipe closed,
 * or at most `drainMs` after the exit when a background process keeps the pipe open.
 */
export async function runShell(options: RunOptions): Promise<RunOutcome> {
  if (options.signal.aborted) return { kind: 'aborted', pipeHeld: false };
  // Loaded on first use: the launcher's node:child_process adds ~2 ms to every start-up otherwise.
  const { launchProcess } = await import('../security/launcher.js');
  let child: ChildProcess;
  let started: Promise<boolean>;
  try {
    const name = basename(options.shell);
    const launched = launchProcess({
      argv: [options.shell, '-c', MERGE_STDERR, options.shell, options.command, name],
      markingArgv: [options.shell, '-c', MARK_AND_MERGE, options.shell, options.command, name],
      cwd: options.cwd,
      env: options.env ?? process.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      policy: options.policy ?? {},
    });
    child = launched.child;
    started = launched.sandboxed ? launched.started : Promise.resolve(true);
  } catch (error) {
    return { kind: 'spawn-error', message: errorMessage(error) };
  }
  child.stdout?.on('data', options.onData);
  child.stderr?.on('data', options.onData);
  const exited = Promise.race([
    waitFor(child, 'exit', (code, signal) => ({
      code: code as number | null,
      signal: signal as NodeJS.Signals | null,
    })),
    waitFor(child, 'error', (error) => ({ error: errorMessage(error) })),
  ]);
  // 'close' comes after 'exit' once every stdio pipe has closed.
  let pipeOpen = true;
  const closed = waitFor(child, 'close', () => (pipeOpen = false));

  let stop: 'timeout' | 'aborted' | undefined;
  let killing: Promise<unknown> | undefined;
  const kill = (why: 'timeout' | 'aborted'): void => {
    if (stop !== undefined) return;
    stop = why;
    if (child.pid !== undefined)
      killing = killProcessGroup(child.pid, { graceMs: options.graceMs });
  };
  // setTimeout overflows above 2^31-1 ms and would fire at once.
  const timer = setTimeout(() => kill('timeout'), Math.min(options.timeoutMs, 2 ** 31 - 1));
  const onAbort = (): void => kill('aborted');
  options.signal.addEventListener('abort', onAbort, { once: true });

  let drainTimer: NodeJS.Timeout | undefined;
  try {
    const exit = await exited;
    clearTimeout(timer);
    options.signal.removeEventListener('abort', onAbort);
    if ('error' in exit) return { kind: 'spawn-error', message: exit.error };
    const drained = new Promise<void>(
      (resolve) => (drainTimer = setTimeout(resolve, options.drainMs)),
    );
    await Promise.race([closed, drained]);
    if (killing) await killing;
    if (stop !== undefined) return { kind: stop, pipeHeld: pipeOpen };
    // Settled by now (bwrap holds the marker pipe until it exits); bounded all the same.
    const ran = await Promise.race([
      started,
      new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 1000).unref()),
    ]);
    return {
      kind: 'exited',
      code: exit.code,
      signal: exit.signal,
      pipeHeld: pipeOpen,
      ...(ran ? {} : { sandboxFailed: true }),
    };
  } finally {
    clearTimeout(timer);
    clearTimeout(drainTimer);
    options.signal.removeEventListener('abort', onAbort);
    // Stop reading: whoever still holds the pipe must not keep this call (or Node) alive.
    child.stdout?.destroy();
    child.stderr?.destroy();
  }
}
