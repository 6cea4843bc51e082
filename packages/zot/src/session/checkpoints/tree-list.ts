// Which files a checkpoint covers: in a repository, what git lists as tracked or untracked and
// not ignored (the user's own rules, read from the user's repository without writing to it);
// elsewhere, every file under the root. Each is then sized with lstat: symlinks are kept as
// links (never followed), and what cannot or must not be stored is listed as skipped.
import { nodeFsPromises } from '../../util/builtins.js';
import { lstatSync, type Stats } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { nulList, runGit } from './git.js';

export interface CheckpointLimits {
  /** A file larger than this is skipped (listed). */
  maxFileBytes: number;
  /** A tree whose files add up to more than this is not checkpointed (one note says so). */
  maxTotalBytes: number;
  /** A tree with more files than this is not checkpointed. */
  maxFiles: number;
}

export const DEFAULT_LIMITS: CheckpointLimits = {
  maxFileBytes: 10 * 1024 * 1024,
  maxTotalBytes: 1024 * 1024 * 1024,
  maxFiles: 100_000,
};

export interface Skipped {
  path: string;
  reason: string;
}

/** What the last checkpoint recorded of a stored file. */
export interface StoredFile {
  /** git's mode: 100644, 100755 or 120000. */
  mode: string;
  /** Its blob id. */
  id: string;
  size: number;
  /** Its stat then (see `signature`); undefined when it must be read again next time. */
  sig: Signature | undefined;
}

export type Listing =
  | {
      ok: true;
      files: string[];
      /**
       * The stored files not as `known` recorded them, with their lstat (to be read and
       * hashed); every other one has the stat recorded, so its content too.
       */
      fresh: Map<string, Stats>;
      skipped: Skipped[];
      bytes: number;
    }
  | { ok: false; reason: string; lasting: true };

/**
 * A file's stat as far as its content can change without it: size, mode, inode, and the
 * modification and change times (the change time moves on any write or mode change, and no
 * program can set it back).
 */
export interface Signature {
  size: number;
  mode: number;
  ino: number;
  mtimeMs: number;
  ctimeMs: number;
}

export function signature(stat: Stats): Signature {
  const { size, mode, ino, mtimeMs, ctimeMs } = stat;
  return { size, mode, ino, mtimeMs, ctimeMs };
}

/** Whether `stat` is the one `sig` recorded. */
export function sameStat(sig: Signature, stat: Stats): boolean {
  return (
    sig.mtimeMs === stat.mtimeMs &&
    sig.ctimeMs === stat.ctimeMs &&
    sig.size === stat.size &&
    sig.ino === stat.ino &&
    sig.mode === stat.mode
  );
}

/**
 * How long before a checkpoint started a file must have last changed for its stat to vouch for
 * the content read: a write in the same clock tick as the read may leave the stat as it was
 * (git's "racily clean" entries). Generous, for coarse file system clocks.
 */
export const RACY_MARGIN_MS = 2000;

/** Whether `stat` can stand for the content read at or after `since` (see RACY_MARGIN_MS). */
export function settled(stat: Stats, since: number): boolean {
  return Math.max(stat.mtimeMs, stat.ctimeMs) < since - RACY_MARGIN_MS;
}

const mib = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;

/** Paths (relative, '/'-separated) that git lists in the repository at `root`. */
async function repositoryPaths(root: string): Promise<string[]> {
  const out = await runGit({
    args: ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    cwd: root,
  });
  // A path in conflict is listed once per stage, one after another.
  const listed = nulList(out);
  return listed.filter((path, at) => at === 0 || listed[at - 1] !== path);
}

/**
 * Every path under `root` (a directory that is not a repository), without following symlinks
 * and without entering `.git` directories or `exclude`d ones. Stops past `limit` paths.
 */
async function walkPaths(
  root: string,
  limit: number,
  exclude: ((abs: string) => boolean) | undefined,
): Promise<string[] | undefined> {
  const found: string[] = [];
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    let entries;
    try {
      entries = await nodeFsPromises().readdir(dir, { withFileTypes: true });
    } catch {
      continue; // unreadable: nothing of it can be stored or restored
    }
    for (const entry of entries) {
      const abs = join(dir, entry.name);
      if (exclude?.(abs)) continue;
      if (entry.isDirectory()) {
        if (entry.name !== '.git') pending.push(abs);
        continue;
      }
      found.push(relative(root, abs).split(sep).join('/'));
      if (found.length > limit) return undefined;
    }
  }
  return found;
}

/** Why a path is not stored, or undefined when it is (a regular file or a symlink). */
function refusal(stat: Stats, limits: CheckpointLimits): string | undefined {
  if (stat.isSymbolicLink()) return undefined;
  if (stat.isDirectory()) return 'a nested repository or submodule (not checkpointed)';
  if (!stat.isFile()) return 'not a regular file';
  if (stat.size > limits.maxFileBytes)
    return `${mib(stat.size)}, over the ${mib(limits.maxFileBytes)} per-file limit`;
  return undefined;
}

/**
 * The paths a checkpoint of `root` considers: what git lists (in a repository) or every file
 * (elsewhere). Contract: never throws; a listing that fails or holds more than the limit is
 * `{ ok: false, reason }` naming what to do.
 */
export async function listPaths(
  root: string,
  repository: boolean,
  limits: CheckpointLimits,
  exclude: ((abs: string) => boolean) | undefined,
): Promise<{ ok: true; paths: string[] } | { ok: false; reason: string; lasting: true }> {
  let paths: string[] | undefined;
  try {
    paths = repository
      ? (await repositoryPaths(root)).filter((path) => !exclude?.(join(root, path)))
      : await walkPaths(root, limits.maxFiles, exclude);
  } catch (error) {
    return {
      ok: false,
      reason: `cannot list the files of ${root}: ${(error as Error).message}`,
      lasting: true,
    };
  }
  if (!paths || paths.length > limits.maxFiles) {
    return {
      ok: false,
      reason: `${root} holds more than ${limits.maxFiles} files, over the checkpoint limit (raise checkpoints.max_files in config.json, or run with --no-checkpoints)`,
      lasting: true,
    };
  }
  return { ok: true, paths };
}

/** lstat synchronously in slices, yielding between them: a promise per file costs several
 * times the system call itself, and a slice of 1,000 keeps the event loop free within a few ms. */
const SLICE = 1000;

/** `root` with a separator: listed paths are relative and normal, so a concatenation is their
 * absolute path. */
const prefixOf = (root: string) => (root.endsWith(sep) ? root : root + sep);

/**
 * Of the files `known` recorded, the ones whose stat is not the one recorded, each with its
 * stat now (undefined: gone). Run while git lists the tree, so the two overlap.
 */
export async function restatKnown(
  root: string,
  known: ReadonlyMap<string, StoredFile>,
): Promise<Map<string, Stats | undefined>> {
  const changed = new Map<string, Stats | undefined>();
  const prefix = prefixOf(root);
  let count = 0;
  for (const [path, file] of known) {
    if (++count % SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
    const stat = lstatSync(prefix + path, { throwIfNoEntry: false });
    if (!stat || file.sig === undefined || !sameStat(file.sig, stat)) changed.set(path, stat);
  }
  return changed;
}

/**
 * Of `paths`, the files a checkpoint stores and the ones it skips, with why. A file `known`
 * records with the stat it has now is reused as it was; the rest are fresh. With `restated`
 * (what `restatKnown` found), a known file not in it is known to be unchanged without an lstat.
 * Contract: never throws; a tree over the total bound is `{ ok: false, reason }`.
 */
export async function sizePaths(
  root: string,
  paths: readonly string[],
  limits: CheckpointLimits,
  known?: ReadonlyMap<string, StoredFile>,
  restated?: ReadonlyMap<string, Stats | undefined>,
): Promise<Listing> {
  const files: string[] = [];
  const fresh = new Map<string, Stats>();
  const skipped: Skipped[] = [];
  let bytes = 0;
  const prefix = prefixOf(root);
  for (let start = 0; start < paths.length; start += SLICE) {
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    for (let at = start; at < paths.length && at < start + SLICE; at++) {
      const path = paths[at]!;
      const old = known?.get(path);
      if (restated && old && !restated.has(path)) {
        // Stored last time and its stat unchanged: the same file (it passed every check then).
        files.push(path);
        bytes += old.sig!.size;
        continue;
      }
      const stat =
        restated && old ? restated.get(path) : lstatSync(prefix + path, { throwIfNoEntry: false });
      if (!stat) continue; // gone (a deleted tracked file): not in this checkpoint
      if (path.endsWith('/')) {
        skipped.push({ path, reason: 'a nested repository (not checkpointed)' });
        continue;
      }
      if (path.includes('\uFFFD')) {
        skipped.push({ path, reason: 'a file name that is not valid UTF-8' });
        continue;
      }
      const why = refusal(stat, limits);
      if (why) {
        skipped.push({ path, reason: why });
        continue;
      }
      files.push(path);
      if (old?.sig === undefined || !sameStat(old.sig, stat)) fresh.set(path, stat);
      bytes += stat.size;
    }
    if (bytes > limits.maxTotalBytes) {
      return {
        ok: false,
        reason: `the files under ${root} add up to more than ${mib(limits.maxTotalBytes)}, over the checkpoint limit (raise checkpoints.max_total_bytes in config.json, or run with --no-checkpoints)`,
        lasting: true,
      };
    }
  }
  return { ok: true, files, fresh, skipped, bytes };
}
