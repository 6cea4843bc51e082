// The extension's process tree, read from /proc (Linux only): taken before shutdown, so that a
// child that left the extension's process group (setsid, `detached: true`) and survives it can
// be named, and then stopped by the kit. Elsewhere the snapshot is empty.
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgrp: number;
  /** The command name the kernel knows. */
  comm: string;
  /** Start time in clock ticks since boot: a pid reused later has another one. */
  start: string;
  zombie: boolean;
}

function readStat(pid: number): ProcessInfo | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime
  // stime cutime cstime priority nice threads itrealvalue starttime ...": comm may hold spaces.
  const close = stat.lastIndexOf(')');
  const comm = stat.slice(stat.indexOf('(') + 1, close);
  const fields = stat.slice(close + 2).split(' ');
  return {
    pid,
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    comm,
    start: fields[19] ?? '',
    zombie: fields[0] === 'Z',
  };
}

/** Every live descendant of `root` (not `root` itself). Contract: never throws. */
export function descendants(root: number): ProcessInfo[] {
  if (process.platform !== 'linux') return [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const all = entries
    .filter((entry) => /^\d+$/.test(entry))
    .map((entry) => readStat(Number(entry)))
    .filter((info): info is ProcessInfo => info !== undefined && !info.zombie);
  const children = new Map<number, ProcessInfo[]>();
  for (const info of all) children.set(info.ppid, [...(children.get(info.ppid) ?? []), info]);
  const found: ProcessInfo[] = [];
  const queue = [root];
  while (queue.length > 0 && found.length < 10_000) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}

/** The same process (same pid and start time) still running. Contract: never throws. */
export function stillRunning(info: ProcessInfo): boolean {
  const now = readStat(info.pid);
  return now !== undefined && !now.zombie && now.start === info.start;
}

/** SIGKILL to one process, if it is still the one we saw. Contract: never throws. */
export function killIfSame(info: ProcessInfo): boolean {
  if (!stillRunning(info)) return false;
  try {
    process.kill(info.pid, 'SIGKILL');
    return true;
  } catch {
    return false;
  }
}
