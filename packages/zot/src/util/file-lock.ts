// A lock file beside a small state file, so that the read-modify-write cycles of separate zot
// processes (`zot ext trust`, `zot auth set`, saving the chosen model) never lose each
// other's writes. Readers need no lock: the files are replaced atomically.
import {
  closeSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { errorMessage } from './errors.js';
import { nodeCrypto } from './builtins.js';

export interface LockOptions {
  /** How long to wait for another holder before giving up (ms). */
  waitMs?: number;
  /** A lock older than this is taken over even when its process seems alive (pid reuse). */
  staleMs?: number;
}

/** The critical sections are one small read and one fsync'd write: milliseconds. */
const DEFAULT_WAIT_MS = 20_000;
const DEFAULT_STALE_MS = 10_000;

interface Holder {
  content: string;
  pid: number | undefined;
  ageMs: number;
}

/**
 * Runs `fn` while holding `<path>.lock`, created with O_EXCL and holding "<pid> <token>".
 * A lock whose process no longer exists, or older than `staleMs`, is taken over.
 * Contract: throws an Error naming the lock file and its holder when it cannot be taken within
 * `waitMs`; fn's result or error passes through; the lock is released after fn either way,
 * and only if it is still ours.
 */
export function withFileLock<T>(path: string, fn: () => T, options: LockOptions = {}): T {
  const lock = `${path}.lock`;
  const waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
  const staleMs = options.staleMs ?? DEFAULT_STALE_MS;
  const token = `${process.pid} ${nodeCrypto().randomUUID()}\n`;
  const deadline = Date.now() + waitMs;
  mkdirSync(dirname(lock), { recursive: true });
  for (let attempt = 0; !tryCreate(lock, token); attempt++) {
    const holder = readHolder(lock);
    if (holder === undefined) continue; // released meanwhile
    if (holder.ageMs > staleMs || (holder.pid !== undefined && !isAlive(holder.pid))) {
      takeOver(lock, holder);
      continue;
    }
    if (Date.now() >= deadline) {
      const who = holder.pid !== undefined ? `process ${holder.pid}` : 'another process';
      throw new Error(
        `${lock} is held by ${who}; gave up after ${waitMs} ms (if no zot is running, delete it)`,
      );
    }
    sleep(Math.min(2 ** attempt, 50) + Math.random() * 5);
  }
  try {
    return fn();
  } finally {
    release(lock, token);
  }
}

function tryCreate(lock: string, token: string): boolean {
  let fd: number;
  try {
    fd = openSync(lock, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new Error(`cannot create the lock file ${lock}: ${errorMessage(error)}`);
  }
  try {
    writeSync(fd, token);
  } catch (error) {
    rmSync(lock, { force: true });
    throw new Error(`cannot write the lock file ${lock}: ${errorMessage(error)}`);
  } finally {
    closeSync(fd);
  }
  return true;
}

function readHolder(lock: string): Holder | undefined {
  try {
    const ageMs = Date.now() - statSync(lock).mtimeMs;
    const content = readFileSync(lock, 'utf8');
    // Empty while its creator is between open and write: then only its age can make it stale.
    const pid = Number.parseInt(content, 10);
    return { content, pid: Number.isInteger(pid) && pid > 0 ? pid : undefined, ageMs };
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Moves a stale lock aside (rename is atomic, so of several waiters only one gets it). Should
 * what was moved turn out to be a fresh lock that replaced the stale one meanwhile, it is put
 * back unless yet another lock exists by then.
 */
function takeOver(lock: string, stale: Holder): void {
  const aside = `${lock}.stale-${process.pid}-${nodeCrypto().randomUUID()}`;
  try {
    renameSync(lock, aside);
  } catch {
    return; // someone else moved or released it
  }
  try {
    if (readFileSync(aside, 'utf8') !== stale.content) linkSync(aside, lock);
  } catch {
    // EEXIST: a newer lock exists already; nothing better can be done.
  } finally {
    rmSync(aside, { force: true });
  }
}

function release(lock: string, token: string): void {
  try {
    if (readFileSync(lock, 'utf8') === token) rmSync(lock, { force: true });
  } catch {
    // Gone already (taken over as stale): nothing of ours to remove.
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Blocks the thread: the callers are synchronous and hold nothing else meanwhile. */
function sleep(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}
