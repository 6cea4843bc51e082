// Reading a file zot did not write (a project's context files, skills, manifests, settings,
// themes ...): regular files only, never more than a bound, and never blocking. A FIFO, a
// device or a socket where a file should be is refused without reading it: opened with
// O_NONBLOCK (a FIFO with no writer would otherwise hang open() for ever) and checked with
// fstat on that descriptor, so a file swapped in after a check cannot slip through.
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { relative, sep } from 'node:path';
import type { Stats } from 'node:fs';

export interface RegularFileOptions {
  /** The most bytes to read. */
  limit: number;
  /** A longer file: `cut` reads its first `limit` bytes (and says so), `refuse` reads nothing. */
  over?: 'cut' | 'refuse';
  /**
   * A directory the file must lie in once symlinks are resolved (the project, an extension's
   * directory): a link that leads elsewhere is refused, naming where it leads.
   */
  within?: string;
}

export type RegularFileRead =
  | { ok: true; bytes: Buffer; more: boolean; realPath: string }
  /** `missing`: there is no file (ENOENT, ENOTDIR), which callers usually treat as no error. */
  | { ok: false; missing: boolean; error: string };

/** What a non-regular file is, for messages. */
export function fileKind(stat: Stats): string {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * Opens `path` for reading without blocking (a FIFO cannot hang the open) and fstats that
 * descriptor, so what the caller checks is what it reads. `noFollow`: a symlink is refused
 * (ELOOP). Contract: throws what open or fstat throws; the caller closes `fd`.
 */
export function openForReading(path: string, noFollow = false): { fd: number; stat: Stats } {
  const follow = noFollow ? (constants.O_NOFOLLOW ?? 0) : 0;
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | follow);
  try {
    return { fd, stat: fstatSync(fd) };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** Up to `length` bytes from the start of `fd`, fewer when the file is shorter (or shrank). */
export function readStart(fd: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < buffer.length) {
    const read = readSync(fd, buffer, filled, buffer.length - filled, filled);
    if (read === 0) break;
    filled += read;
  }
  return buffer.subarray(0, filled);
}

const size = (bytes: number) =>
  bytes >= 1024 * 1024
    ? `${Math.round(bytes / 1024 / 102.4) / 10} MiB`
    : `${Math.ceil(bytes / 1024)} KiB`;

/** Whether `path` is `root` or lies under it (both absolute, symlinks already resolved). */
export function isWithin(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !rel.startsWith(sep));
}

function failure(path: string, error: unknown): RegularFileRead {
  const code = (error as NodeJS.ErrnoException).code;
  const missing = code === 'ENOENT' || code === 'ENOTDIR';
  return { ok: false, missing, error: `${path}: cannot be read (${code ?? String(error)})` };
}

/**
 * Reads the regular file at `path`, bounded and without blocking.
 * Contract: never throws; every error names the file and says what is wrong with it.
 */
export function readRegularFile(path: string, options: RegularFileOptions): RegularFileRead {
  let real: string;
  try {
    real = realpathSync(path);
  } catch (error) {
    return failure(path, error);
  }
  if (options.within !== undefined) {
    let root: string;
    try {
      root = realpathSync(options.within);
    } catch (error) {
      return failure(options.within, error);
    }
    if (!isWithin(root, real)) {
      return {
        ok: false,
        missing: false,
        error: `${path} leads to ${real}, outside ${root}; not read (files outside it are never sent)`,
      };
    }
  }
  let fd: number;
  let stat: Stats;
  try {
    // No links: `real` has none left; one appearing now is a swap, not the file checked.
    ({ fd, stat } = openForReading(real, true));
  } catch (error) {
    return failure(path, error);
  }
  try {
    if (!stat.isFile()) {
      return {
        ok: false,
        missing: false,
        error: `${path} is ${fileKind(stat)}; only regular files are read`,
      };
    }
    if (options.over !== 'cut' && stat.size > options.limit) {
      return {
        ok: false,
        missing: false,
        error: `${path} is ${size(stat.size)}, over the ${size(options.limit)} limit; not read`,
      };
    }
    // Read until EOF or one byte past the bound, which says whether there is more (stat's size
    // is only a hint: files under /proc report 0, and a file may grow meanwhile).
    const chunks: Buffer[] = [];
    let filled = 0;
    while (filled <= options.limit) {
      const expected = stat.size + 1 - filled;
      const want = Math.min(
        options.limit + 1 - filled,
        stat.size > 0 && expected > 0 ? expected : 64 * 1024,
      );
      const chunk = Buffer.allocUnsafe(want);
      const read = readSync(fd, chunk, 0, want, filled);
      if (read === 0) break;
      chunks.push(read === want ? chunk : chunk.subarray(0, read));
      filled += read;
    }
    const all = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    const more = filled > options.limit;
    if (more && options.over !== 'cut') {
      return {
        ok: false,
        missing: false,
        error: `${path} grew past ${size(options.limit)}; not read`,
      };
    }
    return {
      ok: true,
      bytes: all.subarray(0, Math.min(filled, options.limit)),
      more,
      realPath: real,
    };
  } catch (error) {
    return failure(path, error);
  } finally {
    closeSync(fd);
  }
}

/**
 * The file as UTF-8 text (a leading BOM dropped), or the error naming it.
 * Contract: never throws.
 */
export function readRegularText(
  path: string,
  options: RegularFileOptions,
):
  | { ok: true; text: string; more: boolean; realPath: string }
  | { ok: false; missing: boolean; error: string } {
  const read = readRegularFile(path, options);
  if (!read.ok) return read;
  return {
    ok: true,
    text: read.bytes.toString('utf8').replace(/^\uFEFF/, ''),
    more: read.more,
    realPath: read.realPath,
  };
}
