// Old checkpoints go: at most once a day per store, checkpoints older than `keepDays` are
// dropped, then the oldest ones until the store is under `maxStoreBytes`; git's gc then removes
// what no checkpoint uses (objects younger than an hour are kept, so a checkpoint being written
// by another zot at the same time is safe).
import { nodeFsPromises } from '../../util/builtins.js';
import { join } from 'node:path';
import type { CheckpointStore } from './store.js';

export interface PrunePolicy {
  keepDays: number;
  maxStoreBytes: number;
}

export const DEFAULT_PRUNE: PrunePolicy = { keepDays: 30, maxStoreBytes: 2 * 1024 * 1024 * 1024 };

const DAY_MS = 24 * 60 * 60 * 1000;

/** Bytes under `dir` (a git directory: a few levels deep at most). */
async function sizeOf(dir: string, depth = 0): Promise<number> {
  if (depth > 6) return 0;
  let total = 0;
  let entries;
  try {
    entries = await nodeFsPromises().readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await sizeOf(path, depth + 1);
    else if (entry.isFile())
      total +=
        (
          await nodeFsPromises()
            .stat(path)
            .catch(() => undefined)
        )?.size ?? 0;
  }
  return total;
}

/** Contract: rejects with a GitError when git fails; does nothing when pruned within a day. */
export async function prune(
  store: CheckpointStore,
  policy: PrunePolicy = DEFAULT_PRUNE,
  now = Date.now(),
): Promise<void> {
  const stamp = join(store.gitDir, 'zot-pruned');
  const last = await nodeFsPromises()
    .stat(stamp)
    .catch(() => undefined);
  if (last && now - last.mtimeMs < DAY_MS) return;
  await nodeFsPromises().writeFile(stamp, '');
  await nodeFsPromises().utimes(stamp, now / 1000, now / 1000);
  const refs = (await store.refs()).sort((a, b) => a.time - b.time);
  const cutoff = (now - policy.keepDays * DAY_MS) / 1000;
  const old = refs.filter((ref) => ref.time < cutoff);
  await store.dropRefs(old.map((ref) => ref.ref));
  let left = refs.slice(old.length);
  if (old.length > 0) await store.collect();
  // Over the size bound: the oldest half goes, until it fits or one checkpoint is left.
  for (let round = 0; round < 8 && left.length > 1; round++) {
    if ((await sizeOf(store.gitDir)) <= policy.maxStoreBytes) return;
    const drop = left.slice(0, Math.ceil(left.length / 2));
    left = left.slice(drop.length);
    await store.dropRefs(drop.map((ref) => ref.ref));
    await store.collect();
  }
}
