// Whether a code cache file (util/code-cache.ts) is one zot wrote, before V8 runs it as code.
//
// Each file starts with an HMAC-SHA256 of its name and data under a random key that zot keeps,
// mode 0600, in a 0700 directory of its own under $ZOT_HOME, never in the cache. Checking a tag
// needs node:crypto, whose loading costs a start about as much as compiling the chunk from
// source, so the check is remembered: once a file is written (or its tag checked), its identity
// (device, inode, size, modification and change times in nanoseconds) is recorded in a seal file
// beside the key. A later run that finds the same identity uses the file without loading
// node:crypto; any other file is checked by its tag. No one can give a file of theirs that
// identity: the change time is set by the kernel on every write, rename or chmod, and a file put
// in place later has another inode. Owner and mode checks alone are not enough: a cache directory
// inside a tree someone else supplied (a cloned repository used as HOME) holds files the user
// owns.
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  type BigIntStats,
  type Stats,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { nodeCrypto } from './builtins.js';

/** The HMAC-SHA256 tag at the start of every cache file. */
export const TAG_BYTES = 32;
/** The key's file name in the key directory; the key is 32 random bytes. */
export const CODE_CACHE_KEY_FILE = 'code-cache.key';
const KEY_BYTES = 32;
/** A seal file this big is no list of a few chunks' identities. */
const MAX_SEALS_BYTES = 64 * 1024;

/** Ours, and writable by no one else (on Windows, where modes say little, not checked). */
export function ownedPrivately(stat: Stats | BigIntStats): boolean {
  if (typeof process.getuid !== 'function') return true;
  return Number(stat.uid) === process.getuid() && (Number(stat.mode) & 0o022) === 0;
}

/** Ours, and neither readable nor writable by anyone else: the key, the seals, their directory. */
function secret(stat: Stats | BigIntStats): boolean {
  if (typeof process.getuid !== 'function') return true;
  return Number(stat.uid) === process.getuid() && (Number(stat.mode) & 0o077) === 0;
}

/**
 * Whether no one but the user (and root) can replace `dir` or anything on the way to it: each
 * existing directory from `dir` up to `/`, symlinks resolved, is owned by the user or root and
 * writable by no one else, unless it is sticky (/tmp: others cannot rename what is not theirs).
 */
export function trustedPath(dir: string): boolean {
  if (typeof process.getuid !== 'function') return true;
  const uid = process.getuid();
  let real: string;
  let at = resolve(dir);
  for (;;) {
    try {
      real = realpathSync(at); // the nearest existing ancestor: what is missing, zot makes
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(at) === at) return false;
      at = dirname(at);
    }
  }
  for (let current = real; ; current = dirname(current)) {
    let stat: Stats;
    try {
      stat = statSync(current);
    } catch {
      return false;
    }
    if (!stat.isDirectory() || (stat.uid !== uid && stat.uid !== 0)) return false;
    if ((stat.mode & 0o022) !== 0 && (stat.mode & 0o1000) === 0) return false;
    if (dirname(current) === current) return true;
  }
}

/**
 * The bytes of a regular file that passes `check`, of at most `limit` bytes, and its identity;
 * never blocks on a FIFO, never follows a link.
 */
function readPrivate(
  file: string,
  limit: number,
  check: (stat: BigIntStats) => boolean,
): { data: Buffer; identity: string } | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    const stat = fstatSync(fd, { bigint: true });
    if (!stat.isFile() || !check(stat)) return undefined;
    const size = Number(stat.size);
    if (size === 0 || size > limit) return undefined;
    const data = Buffer.allocUnsafe(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, data, read, size - read, read);
      if (n === 0) return undefined;
      read += n;
    }
    return { data, identity: identityOf(stat) };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function identityOf(stat: BigIntStats): string {
  return [stat.dev, stat.ino, stat.size, stat.mtimeNs, stat.ctimeNs].join(':');
}

/** The key in `keyDir`, when the directory and the file are the user's alone. */
function readKey(keyDir: string): Buffer | undefined {
  try {
    if (!secret(lstatSync(keyDir))) return undefined;
  } catch {
    return undefined;
  }
  const key = readPrivate(join(keyDir, CODE_CACHE_KEY_FILE), KEY_BYTES, secret)?.data;
  return key?.length === KEY_BYTES ? key : undefined;
}

/** HMAC-SHA256 of the cache file's name and its V8 data. */
function tag(key: Buffer, file: string, data: Buffer): Buffer {
  return nodeCrypto()
    .createHmac('sha256', key)
    .update(basename(file))
    .update('\0')
    .update(data)
    .digest();
}

/**
 * The key and the seals of one cache directory. Contract: no method throws, except where said.
 */
export class CacheTrust {
  private key: Buffer | undefined;
  /** Cache file name -> the identity it had when zot wrote or checked it. */
  private readonly seals = new Map<string, string>();
  private changed = false;
  private readonly sealsFile: string;

  /** `cacheDir` is the directory of the cache files; its name keys the seal file. */
  constructor(
    private readonly keyDir: string,
    cacheDir: string,
  ) {
    this.sealsFile = join(keyDir, `code-cache-${basename(cacheDir)}.seals`);
    this.key = readKey(keyDir);
    if (!this.key) return; // no key, no seal counts: it was made with a key
    const read = readPrivate(this.sealsFile, MAX_SEALS_BYTES, secret);
    try {
      const parsed: unknown = read ? JSON.parse(read.data.toString('utf8')) : {};
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
        for (const [name, identity] of Object.entries(parsed)) {
          if (typeof identity === 'string') this.seals.set(name, identity);
        }
      }
    } catch {
      // damaged: every file is checked by its tag, and the seals are written anew
    }
  }

  /** The V8 data of `file` when zot wrote it: its seal matches, or else its tag. */
  read(file: string, limit: number): Buffer | undefined {
    if (!this.key) return undefined;
    const read = readPrivate(file, limit, ownedPrivately);
    if (!read || read.data.length <= TAG_BYTES) return undefined;
    const data = read.data.subarray(TAG_BYTES);
    const name = basename(file);
    if (this.seals.get(name) === read.identity) return data;
    const expected = tag(this.key, file, data);
    if (!nodeCrypto().timingSafeEqual(expected, read.data.subarray(0, TAG_BYTES))) return undefined;
    this.seal(name, read.identity);
    return data;
  }

  /**
   * Writes `data` to `file` with its tag (through a temporary file renamed into place) and seals
   * it; makes the key first when there is none. Contract: throws what the file system throws.
   */
  write(file: string, data: Buffer): void {
    this.key ??= ensureKey(this.keyDir);
    if (!this.key) return;
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, Buffer.concat([tag(this.key, file, data), data]), { mode: 0o600 });
    renameSync(temporary, file);
    // After the rename, which sets the change time this identity holds.
    this.seal(basename(file), identityOf(statSync(file, { bigint: true })));
  }

  /** Drops the seals of files that no longer exist (`keep` says which do). */
  prune(keep: (name: string) => boolean): void {
    for (const name of [...this.seals.keys()]) {
      if (!keep(name)) {
        this.seals.delete(name);
        this.changed = true;
      }
    }
  }

  /** Writes the seals when they changed. Contract: never throws (a lost seal costs a check). */
  save(): void {
    if (!this.changed || !this.key) return;
    try {
      const temporary = `${this.sealsFile}.${process.pid}.tmp`;
      writeFileSync(temporary, JSON.stringify(Object.fromEntries(this.seals)), { mode: 0o600 });
      renameSync(temporary, this.sealsFile);
      this.changed = false;
    } catch {
      // the next run checks the tags again
    }
  }

  private seal(name: string, identity: string): void {
    if (this.seals.get(name) === identity) return;
    this.seals.set(name, identity);
    this.changed = true;
  }
}

/** The key, made now when there is none (a new file linked into place: concurrent runs agree). */
function ensureKey(keyDir: string): Buffer | undefined {
  const existing = readKey(keyDir);
  if (existing) return existing;
  mkdirSync(keyDir, { recursive: true, mode: 0o700 });
  const file = join(keyDir, CODE_CACHE_KEY_FILE);
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, nodeCrypto().randomBytes(KEY_BYTES), { mode: 0o600, flag: 'wx' });
  try {
    linkSync(temporary, file); // fails when another run made one first: that one counts
  } catch {
    // kept: the other run's key
  } finally {
    rmSync(temporary, { force: true });
  }
  return readKey(keyDir);
}
