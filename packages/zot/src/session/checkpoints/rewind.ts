// Restoring a checkpoint's files: exactly its files come back and files created since are
// removed; a file changed outside zot since zot last recorded the tree is a conflict, left alone
// unless forced. Removal never follows a symlinked directory out of the tree, and never touches
// what the checkpoint skipped or what the repository ignores.
import { nodeFsPromises } from '../../util/builtins.js';
import { dirname, relative, resolve, sep } from 'node:path';
import type { CheckpointStore, Snapshot } from './store.js';

export interface RestorePlan {
  /** Paths written back from the checkpoint (changed, deleted or retyped since). */
  restore: string[];
  /** Paths created since the checkpoint, to remove. */
  remove: string[];
  /** Paths changed outside zot since its last record that the restore would change. */
  conflicts: string[];
}

export type RestoreResult =
  | {
      ok: true;
      restored: string[];
      removed: string[];
      /** Files created since that were left in place, with why. */
      kept: Array<{ path: string; reason: string }>;
      /** The checkpoint's tree, and whether the files now are exactly it (none kept). */
      tree: string;
      exact: boolean;
    }
  | { ok: false; conflicts: string[] };

/**
 * What restoring `target` over the tree `current` (a checkpoint just taken) changes, and which
 * of those paths changed since `lastRecorded` (zot's last checkpoint before `current`).
 * Contract: rejects with a GitError.
 */
export async function planRestore(
  store: CheckpointStore,
  target: string,
  current: Snapshot,
  lastRecorded: string | undefined,
): Promise<RestorePlan> {
  const [differences, outside] = await Promise.all([
    store.differences(current.commit, target),
    lastRecorded ? store.differences(lastRecorded, current.commit) : Promise.resolve([]),
  ]);
  const touched = new Set(outside.map((entry) => entry.path));
  // A file skipped now (too large) may still have been changed: its size cannot say.
  for (const skip of current.skipped) touched.delete(skip.path);
  const restore: string[] = [];
  const remove: string[] = [];
  for (const difference of differences) {
    // diff-tree from current to target: D = only in current (created since), the rest come back.
    if (difference.status === 'D') {
      remove.push(difference.path);
    } else {
      restore.push(difference.path);
    }
  }
  const conflicts = differences.map((entry) => entry.path).filter((path) => touched.has(path));
  return { restore, remove, conflicts };
}

/** Whether `abs` lies in `root` with no symlink on the way (both real paths). */
async function directlyInside(root: string, abs: string): Promise<boolean> {
  try {
    const parent = await nodeFsPromises().realpath(dirname(abs));
    return parent === dirname(abs) && (parent === root || parent.startsWith(root + sep));
  } catch {
    return false;
  }
}

/** Removes now-empty directories from `dir` up to (not including) `root`. */
async function pruneEmpty(root: string, dir: string): Promise<void> {
  for (let at = dir; at !== root && at.startsWith(root + sep); at = dirname(at)) {
    try {
      if ((await nodeFsPromises().readdir(at)).length > 0) return;
      await nodeFsPromises().rmdir(at);
    } catch {
      return;
    }
  }
}

/**
 * Carries out `plan`: writes back the checkpoint's files, then removes the files created
 * since (ones the checkpoint skipped, or the repository now ignores, are kept and named).
 * Contract: refuses (ok: false) when there are conflicts and `force` is not set; rejects with a
 * GitError when git fails.
 */
export async function applyRestore(
  store: CheckpointStore,
  target: string,
  plan: RestorePlan,
  force: boolean,
): Promise<RestoreResult> {
  if (plan.conflicts.length > 0 && !force) return { ok: false, conflicts: plan.conflicts };
  const [, { tree, skipped }, ignored] = await Promise.all([
    store.writeBack(target, plan.restore),
    store.commitInfo(target),
    store.ignored(plan.remove),
  ]);
  const root = await nodeFsPromises().realpath(store.root);
  const removed: string[] = [];
  const kept: Array<{ path: string; reason: string }> = [];
  for (const path of plan.remove) {
    if (skipped.has(path)) {
      kept.push({ path, reason: 'the checkpoint skipped it (too large or not a file)' });
      continue;
    }
    if (ignored.has(path)) {
      kept.push({ path, reason: 'the repository ignores it' });
      continue;
    }
    const abs = resolve(root, path);
    if (relative(root, abs).startsWith('..') || !(await directlyInside(root, abs))) {
      kept.push({ path, reason: 'its directory is a symlink or lies outside the tree' });
      continue;
    }
    try {
      const stat = await nodeFsPromises().lstat(abs);
      if (stat.isDirectory()) {
        kept.push({ path, reason: 'it is a directory now' });
        continue;
      }
      await nodeFsPromises().unlink(abs); // never follows a symlink: the link itself goes
      removed.push(path);
      await pruneEmpty(root, dirname(abs));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') continue;
      kept.push({ path, reason: `could not remove it (${code ?? String(error)})` });
    }
  }
  const exact = kept.length === 0;
  return { ok: true, restored: plan.restore, removed, kept, tree, exact };
}
