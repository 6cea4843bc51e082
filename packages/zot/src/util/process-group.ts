// Signalling and killing a whole process group: a child spawned with `detached: true`
// leads its own group, so its shell's children and grandchildren go with it.
import { readFileSync, readdirSync } from 'node:fs';

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
 * Whether any live (non-zombie) process of the group led by `pid` remains.
 * Zombies do not count: they are dead, and a container's PID 1 may never reap them.
 * Contract: never throws.
 */
export function processGroupAlive(pid: number): boolean {
  if (!validPid(pid)) return false;
  try {
    process.kill(process.platform === 'win32' ? pid : -pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return process.platform === 'linux' ? liveMemberOnLinux(pid) : true;
}

/** Scans /proc for a member of group `pgid` that is not a zombie; true when /proc is unreadable. */
function liveMemberOnLinux(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z') return true;
  }
  return false;
}

/**
 * SIGTERM to the group, then SIGKILL if anything is left after `graceMs` (default 1000).
 * Contract: never throws or rejects; resolves once the group is gone, or at most a second after
 * SIGKILL was sent.
 */
export async function killProcessGroup(
  pid: number,
  options: KillGroupOptions = {},
): Promise<KillResult> {
  const graceMs = options.graceMs ?? 1000;
  const pollMs = options.pollMs ?? 20;
  if (!signalProcessGroup(pid, 'SIGTERM')) return 'gone';
  const deadline = Date.now() + graceMs;
  // Most processes are gone within a few ms of SIGTERM: look early, then every pollMs. (zot's
  // exit waits for this.)
  let wait = Math.min(2, pollMs);
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(wait, deadline - Date.now())));
    if (!processGroupAlive(pid)) return 'terminated';
    wait = Math.min(wait * 2, pollMs);
  }
  signalProcessGroup(pid, 'SIGKILL');
  // SIGKILL cannot be refused, but a dying process takes a moment to go (longer on a loaded
  // machine): wait, bounded, so that "shut down" means gone for whoever awaits this.
  const killDeadline = Date.now() + KILL_SETTLE_MS;
  while (processGroupAlive(pid) && Date.now() < killDeadline) {
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  return 'killed';
}

/** How long to wait for a SIGKILLed group to disappear. */
const KILL_SETTLE_MS = 1000;

const SIGNAL_NUMBERS: Partial<Record<NodeJS.Signals, number>> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGTERM: 15,
};

/** The conventional exit status of a process ended by `signal`: 128 + its number. */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (SIGNAL_NUMBERS[signal] ?? 15);
}
