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

export type Listing =
  | {
      ok: true;
      files: string[];
      /** Each stored file's size, by path (the next listing reuses what did not change). */
      sizes: Map<string, number>;
      /** The stored files looked at afresh (all of them, unless `reuse` said otherwise). */
      fresh: string[];
      skipped: Skipped[];
      bytes: number;
    }
  | { ok: false; reason: string; lasting: true };

/** What the last listing knew, and which of its files changed since (git's stat cache says). */
export interface Reuse {
  sizes: ReadonlyMap<string, number>;
  changed: ReadonlySet<string>;
}

const mib = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;

/** Paths (relative, '/'-separated) that git lists in the repository at `root`. */
async function repositoryPaths(root: string): Promise<string[]> {
  const out = await runGit({
    args: ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    cwd: root,
  });
  return [...new Set(nulList(out))];
}

/**
 * Every path under `root` (a directory that is not a repository), without following symlinks
 * and without entering `.git` directories or `exclude`d ones. Stops past `limit` paths.
 */
async function walkPaths(
  root: string,
  limit: number,
  exclude: (abs: string) => boolean,
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
      if (exclude(abs)) continue;
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
  exclude: (abs: string) => boolean,
): Promise<{ ok: true; paths: string[] } | { ok: false; reason: string; lasting: true }> {
  let paths: string[] | undefined;
  try {
    paths = repository
      ? (await repositoryPaths(root)).filter((path) => !exclude(join(root, path)))
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

/**
 * Of `paths`, the files a checkpoint stores and the ones it skips, with why. With `reuse`, a
 * file stored last time that git does not report changed keeps its size without an lstat.
 * Contract: never throws; a tree over the total bound is `{ ok: false, reason }`.
 */
export async function sizePaths(
  root: string,
  paths: readonly string[],
  limits: CheckpointLimits,
  reuse?: Reuse,
): Promise<Listing> {
  const files: string[] = [];
  const sizes = new Map<string, number>();
  const fresh: string[] = [];
  const skipped: Skipped[] = [];
  let bytes = 0;
  // lstat synchronously in slices, yielding between them: a promise per file costs several
  // times the system call itself, and a slice of 1,000 keeps the event loop free within a few ms.
  const SLICE = 1000;
  for (let start = 0; start < paths.length; start += SLICE) {
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    for (const path of paths.slice(start, start + SLICE)) {
      const known = reuse && !reuse.changed.has(path) ? reuse.sizes.get(path) : undefined;
      if (known !== undefined) {
        files.push(path);
        sizes.set(path, known);
        bytes += known;
        continue;
      }
      const stat = lstatSync(join(root, path), { throwIfNoEntry: false });
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
      fresh.push(path);
      sizes.set(path, stat.size);
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
  return { ok: true, files, sizes, fresh, skipped, bytes };
}
