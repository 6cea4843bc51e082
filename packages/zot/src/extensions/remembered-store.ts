// The on-disk store of remembered registrations (remembered.ts decides what goes in an entry and
// when it is used): `$ZOT_HOME/ext-registrations/`, one entry per extension directory, written by
// zot only. Entries are read as hostile all the same: the directory and the file must be this
// user's and private, and the file is bounded. An entry zot wrote, or checked in full, is sealed
// (`seals.json` beside it) by its identity (device, inode, size, modification and change times in
// nanoseconds) and the SHA-256 of its bytes; an entry read with the same seal skips the tool
// schemas' meta-schema check (the validators it needs are the largest code a run with extensions
// loads). No one can give a file of theirs that identity (the kernel sets the change time at
// every write, rename or chmod; a file put in place later has another inode), and the hash covers
// a rewrite within one tick of the clock.
import {
  closeSync,
  existsSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  type BigIntStats,
} from 'node:fs';
import { basename, join } from 'node:path';
import { parseBoundedJson } from '@zot/protocol/bounds';
import { nodeCrypto } from '../util/builtins.js';
import { sha256Of } from '../util/digest.js';
import { errorMessage } from '../util/errors.js';
import { openForReading, readStart } from '../util/regular-file.js';

export const MEMORY_LIMITS = {
  /** One entry; registrations that would need more are not remembered (always waited for). */
  entryBytes: 4 * 1024 * 1024,
  /** Entries kept; past this the least recently written go. */
  entries: 200,
  /** Entries of an extension directory pinned; a bigger tree is not pinned (never remembered). */
  pinEntries: 20_000,
  /** Entries of a directory named in `registration_inputs`, and the bytes of all inputs read. */
  inputEntries: 1000,
  inputBytes: 64 * 1024 * 1024,
} as const;

const ENTRY_NAME = /^[0-9a-f]{64}\.json$/;
/** Entry name -> the seal of the entry zot wrote or checked in full. */
const SEALS_NAME = 'seals.json';
const MAX_SEALS_BYTES = 256 * 1024;
const STALE_TEMP_MS = 60_000;

export const memoryDir = (home: string) => join(home, 'ext-registrations');

const entryPath = (home: string, dir: string) => join(memoryDir(home), `${sha256Of(dir)}.json`);
const ownedByUs = (uid: number) => process.getuid === undefined || uid === process.getuid();

/** Why the directory must not be used (not a directory of ours, open to others), or undefined. */
function unsafeDir(dir: string): string | undefined {
  const stat = lstatSync(dir);
  if (!stat.isDirectory()) return `${dir} is not a directory`;
  if (!ownedByUs(stat.uid)) return `${dir} belongs to another user`;
  if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0)
    return `${dir} is open to other users (mode 0${(stat.mode & 0o777).toString(8)})`;
  return undefined;
}

/** An entry as read: its parsed document and its seal. */
export interface Entry {
  doc: unknown;
  path: string;
  /** Its identity and the hash of the bytes read (see the header). */
  seal: string;
}

/** Why an entry that exists is not used (for the extension's log); {} when there is none. */
export interface EntryProblem {
  problem?: string;
}

const sealOf = (stat: BigIntStats, bytes: Buffer | string) =>
  [stat.dev, stat.ino, stat.size, stat.mtimeNs, stat.ctimeNs].join(':') + `:${sha256Of(bytes)}`;

/** The seals file's content; empty when it is missing, damaged, not private or too big. */
function readSeals(home: string): Map<string, string> {
  const seals = new Map<string, string>();
  const read = readPrivateFile(join(memoryDir(home), SEALS_NAME), MAX_SEALS_BYTES);
  if (typeof read === 'string' || read === undefined) return seals;
  try {
    const parsed: unknown = JSON.parse(read.bytes.toString('utf8'));
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
      for (const [name, seal] of Object.entries(parsed))
        if (typeof seal === 'string') seals.set(name, seal);
    }
  } catch {
    // damaged: every entry is checked in full, and sealed again
  }
  return seals;
}

/**
 * Changes the seals (through a temporary file renamed into place). Concurrent runs may lose
 * each other's seals: a lost seal costs one full check. Contract: never throws.
 */
function updateSeals(home: string, change: (seals: Map<string, string>) => void): void {
  const root = memoryDir(home);
  const temp = join(root, `.${nodeCrypto().randomBytes(6).toString('hex')}.${process.pid}.tmp`);
  try {
    const seals = readSeals(home);
    change(seals);
    writeFileSync(temp, JSON.stringify(Object.fromEntries(seals)), { mode: 0o600, flag: 'wx' });
    renameSync(temp, join(root, SEALS_NAME));
  } catch {
    try {
      unlinkSync(temp);
    } catch {
      // never created
    }
  }
}

/**
 * A file of this user's in the memory directory, read whole through one descriptor (no symlink
 * followed, no FIFO blocking), with its stat; undefined when missing, or why it is not used.
 */
function readPrivateFile(
  path: string,
  limit: number,
): { bytes: Buffer; stat: BigIntStats } | string | undefined {
  let fd: number | undefined;
  try {
    // Not followed if a link, never blocking on a FIFO; what is checked is what is read.
    fd = openForReading(path, true).fd;
    const stat = fstatSync(fd, { bigint: true });
    if (!stat.isFile() || !ownedByUs(Number(stat.uid))) return `${path}: not a file of zot's`;
    if (stat.size > BigInt(limit)) return `${path}: over ${limit} bytes; not used`;
    return { bytes: readStart(fd, Number(stat.size)), stat };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return `${path}: ${errorMessage(error)}; not used`;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * The entry of the extension in `dir`, parsed (bounded), or why not; {} when there is none.
 * Contract: never throws.
 */
export function readEntry(home: string, dir: string): Entry | EntryProblem {
  const path = entryPath(home, dir);
  try {
    const unsafe = unsafeDir(memoryDir(home));
    if (unsafe) return { problem: `remembered registrations not used: ${unsafe}` };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    return { problem: `${path}: ${errorMessage(error)}; not used` };
  }
  const read = readPrivateFile(path, MEMORY_LIMITS.entryBytes);
  if (read === undefined) return {};
  if (typeof read === 'string') return { problem: read };
  const parsed = parseBoundedJson(read.bytes.toString('utf8'));
  if (!parsed.ok) return { problem: `${path}: ${parsed.error}; not used` };
  return { doc: parsed.value, path, seal: sealOf(read.stat, read.bytes) };
}

/** Whether zot wrote these very bytes, or checked them in full. Contract: never throws. */
export function isSealed(home: string, entry: Entry): boolean {
  return readSeals(home).get(basename(entry.path)) === entry.seal;
}

/** Seals an entry checked in full, so that the next run need not check it again. */
export function sealEntry(home: string, entry: Entry): void {
  updateSeals(home, (seals) => seals.set(basename(entry.path), entry.seal));
}

/**
 * Replaces the entry of the extension in `dir` with `text` (from memoryText), atomically, and
 * drops the oldest entries past the bound. Returns a problem for the log, or undefined.
 * Contract: never throws.
 */
export function writeMemory(home: string, dir: string, text: string): string | undefined {
  if (Buffer.byteLength(text) > MEMORY_LIMITS.entryBytes)
    return `registrations over ${MEMORY_LIMITS.entryBytes} bytes are not remembered`;
  const root = memoryDir(home);
  const path = entryPath(home, dir);
  const temp = join(root, `.${nodeCrypto().randomBytes(6).toString('hex')}.${process.pid}.tmp`);
  try {
    mkdirSync(root, { recursive: true, mode: 0o700 });
    const unsafe = unsafeDir(root);
    if (unsafe) return `registrations not remembered: ${unsafe}`;
    writeFileSync(temp, text, { mode: 0o600, flag: 'wx' });
    renameSync(temp, path);
    // After the rename, which sets the change time the seal holds.
    const seal = sealOf(lstatSync(path, { bigint: true }), text);
    updateSeals(home, (seals) => {
      seals.set(basename(path), seal);
      for (const name of seals.keys()) if (!existsSync(join(root, name))) seals.delete(name);
    });
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // never created
    }
    return `${path}: ${errorMessage(error)}; registrations not remembered`;
  }
  evict(root);
  return undefined;
}

/** Keeps the newest MEMORY_LIMITS.entries entries; removes temporary files of dead writes. */
function evict(root: string): void {
  try {
    const names = readdirSync(root);
    if (names.length <= MEMORY_LIMITS.entries) return;
    const now = Date.now();
    const entries: Array<{ path: string; mtime: number }> = [];
    for (const name of names) {
      const path = join(root, name);
      const stat = statSync(path, { throwIfNoEntry: false });
      if (!stat) continue;
      if (ENTRY_NAME.test(name)) entries.push({ path, mtime: stat.mtimeMs });
      else if (name.endsWith('.tmp') && now - stat.mtimeMs > STALE_TEMP_MS) unlinkSync(path);
    }
    entries.sort((a, b) => b.mtime - a.mtime);
    for (const { path } of entries.slice(MEMORY_LIMITS.entries)) unlinkSync(path);
  } catch {
    // another run evicting at the same time: the bound holds again after the next write
  }
}
