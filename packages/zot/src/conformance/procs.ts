// The extension's process tree, read from /proc on Linux and from `ps` elsewhere (macOS, the
// BSDs): taken before shutdown, so that a child that left the extension's process group
// (setsid, `detached: true`) and survives it can be named, and then stopped by the kit.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { childEnvironment } from '../security/child-env.js';

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

/** Where the process table is read from; `ps` works on Linux too (the tests use it there). */
export type ProcessSource = 'proc' | 'ps';

const defaultSource = (): ProcessSource => (process.platform === 'linux' ? 'proc' : 'ps');

function fromProc(): ProcessInfo[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  return entries
    .filter((entry) => /^\d+$/.test(entry))
    .map((entry) => readStat(Number(entry)))
    .filter((info): info is ProcessInfo => info !== undefined);
}

// "  pid  ppid  pgid stat Tue Dec  1 04:00:00 2026 comm": lstart is five words, comm the rest.
const PS_LINE = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\S+\s+\S+\s+\d+\s+[\d:]+\s+\d+)\s+(.*)$/;

/** Parses `ps -A -o pid=,ppid=,pgid=,stat=,lstart=,comm=`; lines it cannot read are skipped. */
export function parsePs(output: string): ProcessInfo[] {
  const found: ProcessInfo[] = [];
  for (const line of output.split('\n')) {
    const match = PS_LINE.exec(line);
    if (!match) continue;
    found.push({
      pid: Number(match[1]),
      ppid: Number(match[2]),
      pgrp: Number(match[3]),
      comm: match[6]!,
      start: match[5]!.replace(/\s+/g, ' '),
      zombie: match[4]!.startsWith('Z'),
    });
  }
  return found;
}

function fromPs(): ProcessInfo[] {
  try {
    const output = execFileSync('ps', ['-A', '-o', 'pid=,ppid=,pgid=,stat=,lstart=,comm='], {
      encoding: 'utf8',
      // lstart in English, whatever the user's locale
      env: childEnvironment({ env: { ...process.env, LC_ALL: 'C' } }),
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 16 * 1024 * 1024,
    });
    return parsePs(output);
  } catch {
    return [];
  }
}

function processTable(source: ProcessSource): ProcessInfo[] {
  return source === 'proc' ? fromProc() : fromPs();
}

/** Every live descendant of `root` (not `root` itself). Contract: never throws. */
export function descendants(root: number, source = defaultSource()): ProcessInfo[] {
  const all = processTable(source).filter((info) => !info.zombie);
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
export function stillRunning(info: ProcessInfo, source = defaultSource()): boolean {
  const now =
    source === 'proc' ? readStat(info.pid) : fromPs().find((entry) => entry.pid === info.pid);
  return now !== undefined && !now.zombie && now.start === info.start;
}

/** SIGKILL to one process, if it is still the one we saw. Contract: never throws. */
export function killIfSame(info: ProcessInfo, source = defaultSource()): boolean {
  if (!stillRunning(info, source)) return false;
  try {
    process.kill(info.pid, 'SIGKILL');
    return true;
  } catch {
    return false;
  }
}
