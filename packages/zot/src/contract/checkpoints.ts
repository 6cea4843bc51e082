// What front ends see of working-tree checkpoints (session/checkpoints/): the turns that have
// one, with the files each changed, and the outcome of a rewind.

/** One file a turn changed; no line counts for a binary file. */
export interface CheckpointFile {
  path: string;
  added?: number;
  removed?: number;
}

export interface CheckpointTurn {
  /** Numbered from 1 within the session, as `zot rewind --list` prints it. */
  turn: number;
  time: string;
  /** The prompt's first line, or "rewind to turn N" for a rewind. */
  label: string;
  /** What the turn changed (before its first tool call against its end). */
  files: CheckpointFile[];
  /** How many files its checkpoint skipped (over the size bound, not regular files). */
  skipped: number;
}

export type RewindOutcome =
  | {
      ok: true;
      turn: number;
      restored: string[];
      removed: string[];
      /** Files created since that were left in place, with why. */
      kept: Array<{ path: string; reason: string }>;
      /** The turn the rewind itself is recorded as: rewinding to it undoes the rewind. */
      undoTurn: number;
    }
  | {
      ok: false;
      /** conflict: files changed outside zot (named); no_turn: no such turn; failed: git or I/O. */
      reason: 'conflict' | 'no_turn' | 'failed';
      message: string;
      conflicts?: string[];
    };

/** One file a rewind would change: written back from the checkpoint, or removed. */
export interface RewindFile {
  path: string;
  /** restore: changed since (written back); recreate: deleted since; remove: created since. */
  action: 'restore' | 'recreate' | 'remove';
  /** Lines the restore adds and removes; undefined for a binary file. */
  added?: number;
  removed?: number;
}

/** What rewinding the files to before a turn would do, asked before doing it. */
export interface RewindPreview {
  turn: number;
  files: RewindFile[];
  /** Files changed outside zot since its last checkpoint that the rewind would overwrite. */
  conflicts: string[];
  /** A unified diff from the tree now to the checkpoint (cut past 256 KiB). */
  diff: string;
}
