// Signalling and killing a whole process group: a child spawned with `detached: true`
// leads its own group, so its shell's children and grandchildren go with it.

export interface KillGroupOptions {
  /** Time between SIGTERM and SIGKILL. */
  graceMs?: number;
  /** How often to check whether the group is gone during the grace period. */
  pollMs?: number;
}

/** How a kill ended: the group was already gone, left after SIGTERM, or got SIGKILL. */
export type KillResult = 'gone' | 'terminated' | 'killed';

function validPid(pid: number): boolean {
  // pid 0 or 1 would address our own group or every process: never signal those.
  return Number.isInteger(pid) && pid > 1;
}

/**
 * Sends `signal` to the process group led by `pid` (to the process alone on Windows).
 * Contract: never throws; returns false when the group does not exist (ESRCH) or may not be signalled.
 */
export function signalProcessGroup(pid: number, signal: NodeJS.Signals): boolean {
  if (!validPid(pid)) return false;
  try {
    process.kill(process.platform === 'win32' ? pid : -pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether any process of the group led by `pid` still exists (zombies included).
 * Contract: never throws.
 */
export function processGroupAlive(pid: number): boolean {
  if (!validPid(pid)) return false;
  try {
    process.kill(process.platform === 'win32' ? pid : -pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * SIGTERM to the group, then SIGKILL if anything is left after `graceMs` (default 1000).
 * Contract: never throws or rejects; resolves once the group is gone or SIGKILL was sent.
 */
export async function killProcessGroup(
  pid: number,
  options: KillGroupOptions = {},
): Promise<KillResult> {
  const graceMs = options.graceMs ?? 1000;
  const pollMs = options.pollMs ?? 20;
  if (!signalProcessGroup(pid, 'SIGTERM')) return 'gone';
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(pollMs, deadline - Date.now())));
    if (!processGroupAlive(pid)) return 'terminated';
  }
  signalProcessGroup(pid, 'SIGKILL');
  return 'killed';
}
