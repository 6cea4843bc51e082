// A session's checkpoints: the tree is recorded before a turn's first tool call and when that
// turn ends, each recording a session entry; a rewind restores a turn's "before" tree and is a
// turn of its own (so it can be undone). Failures are notes, never the end of a turn.
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import type { CheckpointEntry } from '../load.js';
import { applyRestore, planRestore } from './rewind.js';
import type { CheckpointStore, Snapshot } from './store.js';
import { prune, type PrunePolicy } from './prune.js';

import type {
  CheckpointTurn,
  RewindFile,
  RewindOutcome,
  RewindPreview,
} from '../../contract/checkpoints.js';
export type { CheckpointTurn, RewindOutcome, RewindPreview } from '../../contract/checkpoints.js';

export interface CheckpointerOptions {
  store: CheckpointStore;
  /** Names this session's refs in the store (the session file's name, or a random id). */
  sessionKey: string;
  /** Appends an entry to the session file. */
  record(entry: CheckpointEntry): void;
  /** A note for the user (stderr, the TUI's notes). */
  warn(message: string): void;
  /** The checkpoints the session file already holds. */
  recorded?: CheckpointEntry[];
  prune?: PrunePolicy;
}

const firstLine = (text: string) => {
  const line = text.split('\n').find((part) => part.trim() !== '') ?? '';
  return line.length > 80 ? line.slice(0, 79) + '…' : line;
};

/** Whether `path` (relative) exists in the tree now, as anything (a link is not followed). */
function existsInTree(root: string, path: string): boolean {
  try {
    lstatSync(join(root, path));
    return true;
  } catch {
    return false;
  }
}

/** A ref name component git accepts, whatever the session file is called. */
function refKey(key: string): string {
  const clean = key.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 80);
  return clean || 'session';
}

export class Checkpointer {
  private readonly entries: CheckpointEntry[];
  private turn:
    | { label: string; messages?: number; number?: number; taking?: Promise<void> }
    | undefined;
  private off: string | undefined;
  private pruning: Promise<void> | undefined;

  constructor(private readonly options: CheckpointerOptions) {
    this.entries = (options.recorded ?? []).filter(
      (entry) => entry.phase === 'before' || entry.phase === 'after',
    );
  }

  get store(): CheckpointStore {
    return this.options.store;
  }

  private get nextTurn(): number {
    return this.entries.reduce((max, entry) => Math.max(max, entry.turn), 0) + 1;
  }

  private ref(turn: number, phase: string): string {
    return `refs/zot/${refKey(this.options.sessionKey)}/${turn}-${phase}`;
  }

  /**
   * A prompt starts: its first tool call will take the checkpoint. `messages`: how many
   * messages the transcript held before the prompt (where a conversation rewind goes back to).
   */
  startTurn(prompt: string, messages?: number): void {
    this.turn = { label: firstLine(prompt), ...(messages !== undefined ? { messages } : {}) };
  }

  /**
   * The transcript changed other than by growing: a compaction or clear (every conversation
   * point is gone) or a rewind to its first `kept` messages (the points past it are gone).
   */
  conversationChanged(kept = -1): void {
    for (const entry of this.entries)
      if (entry.messages !== undefined && entry.messages > kept) delete entry.messages;
    if (this.turn?.messages !== undefined && this.turn.messages > kept) delete this.turn.messages;
  }

  /** How many messages the transcript held before `turn`'s prompt, if that still holds. */
  conversationPoint(turn: number): number | undefined {
    return this.before(turn)?.messages;
  }

  /** Whether `turn` is a checkpointed turn of this session. */
  has(turn: number): boolean {
    return this.before(turn) !== undefined;
  }

  /** Before a tool call: the first of the turn records the tree. Contract: never rejects. */
  beforeToolCall(): Promise<void> {
    const turn = this.turn;
    if (!turn || this.off) return Promise.resolve();
    turn.taking ??= (async () => {
      const number = this.nextTurn;
      const taken = await this.take(number, 'before', turn.label, turn.messages);
      if (taken) turn.number = number;
    })();
    return turn.taking;
  }

  /** The prompt ended: a turn that was checkpointed records the tree again. Never rejects. */
  async endTurn(): Promise<void> {
    const turn = this.turn;
    this.turn = undefined;
    if (!turn?.taking) return;
    await turn.taking;
    if (turn.number !== undefined) await this.take(turn.number, 'after', turn.label);
  }

  private async take(
    turn: number,
    phase: 'before' | 'after',
    label: string,
    messages?: number,
  ): Promise<Snapshot | undefined> {
    const result = await this.options.store.snapshot(this.ref(turn, phase), { turn, phase });
    if (!result.ok) {
      // A tree too big (or git missing) stays so: one note, then no more attempts this session.
      // Anything else (a lock held too long, a full disk) costs this checkpoint only.
      if (result.lasting) {
        this.off = result.reason;
        this.options.warn(`checkpoints are off for this session: ${result.reason}`);
      } else {
        this.options.warn(`no checkpoint for turn ${turn} (${phase}): ${result.reason}`);
      }
      return undefined;
    }
    const { snapshot } = result;
    if (phase === 'before' && snapshot.skipped.length > 0) {
      const named = snapshot.skipped
        .slice(0, 5)
        .map((skip) => `${JSON.stringify(skip.path)} (${skip.reason})`)
        .join(', ');
      const more = snapshot.skipped.length - 5 + snapshot.moreSkipped;
      this.options.warn(
        `checkpoint of turn ${turn} skipped ${named}${more > 0 ? ` and ${more} more` : ''}`,
      );
    }
    this.note(turn, phase, label, snapshot, messages);
    this.pruning ??= prune(this.options.store, this.options.prune).catch((error: unknown) =>
      this.options.warn(`could not prune old checkpoints: ${(error as Error).message}`),
    );
    return snapshot;
  }

  private note(
    turn: number,
    phase: string,
    label: string,
    snapshot: Snapshot,
    messages?: number,
  ): void {
    const entry: CheckpointEntry = {
      type: 'checkpoint',
      time: new Date().toISOString(),
      turn,
      phase,
      commit: snapshot.commit,
      root: this.options.store.root,
      label,
      ...(snapshot.skipped.length + snapshot.moreSkipped > 0
        ? { skipped: snapshot.skipped.length + snapshot.moreSkipped }
        : {}),
      ...(messages !== undefined ? { messages } : {}),
    };
    this.entries.push(entry);
    this.options.record(entry);
  }

  private before(turn: number): CheckpointEntry | undefined {
    return this.entries.find((entry) => entry.turn === turn && entry.phase === 'before');
  }

  /** The commit a turn ended with: its "after", else whatever zot recorded next. */
  private after(turn: number): string | undefined {
    const own = this.entries.find((entry) => entry.turn === turn && entry.phase === 'after');
    if (own) return own.commit;
    const start = this.entries.indexOf(this.before(turn)!);
    return this.entries.slice(start + 1).find((entry) => entry.turn !== turn)?.commit;
  }

  /** The checkpointed turns, each with what it changed. Contract: rejects with a GitError. */
  async list(): Promise<CheckpointTurn[]> {
    const turns: CheckpointTurn[] = [];
    for (const entry of this.entries) {
      if (entry.phase !== 'before') continue;
      const after = this.after(entry.turn);
      turns.push({
        turn: entry.turn,
        time: entry.time,
        label: entry.label ?? '',
        files: after ? await this.options.store.changes(entry.commit, after) : [],
        skipped: entry.skipped ?? 0,
      });
    }
    return turns;
  }

  /**
   * What rewinding to `turn` would change now: each file with its line counts, the ones
   * changed outside zot since its last checkpoint (conflicts), and the diff. Undefined for an
   * unknown turn. Contract: rejects naming what failed.
   */
  async preview(turn: number): Promise<RewindPreview | undefined> {
    const target = this.before(turn);
    if (!target) return undefined;
    const now = await this.options.store.snapshot(this.ref(0, 'preview'), { phase: 'preview' });
    if (!now.ok) throw new Error(now.reason);
    const last = this.entries[this.entries.length - 1]?.commit;
    const { store } = this.options;
    const [plan, counts, diff] = await Promise.all([
      planRestore(store, target.commit, now.snapshot, last),
      store.changes(now.snapshot.commit, target.commit),
      store.diffText(now.snapshot.commit, target.commit),
    ]);
    const removed = new Set(plan.remove);
    const files = counts.map((change): RewindFile => {
      const action = removed.has(change.path)
        ? 'remove'
        : existsInTree(store.root, change.path)
          ? 'restore'
          : 'recreate';
      return { ...change, action };
    });
    return { turn, files, conflicts: plan.conflicts, diff };
  }

  /**
   * Restores the tree as it was before `turn`'s first tool call. Files changed outside zot
   * since its last checkpoint are conflicts: nothing is written unless `force` is true or lists
   * every one of them (the ones a person was shown and accepted). Contract: never rejects.
   */
  async rewind(turn: number, force: boolean | readonly string[] = false): Promise<RewindOutcome> {
    const target = this.before(turn);
    if (!target) {
      const known = this.entries.filter((entry) => entry.phase === 'before').length;
      return {
        ok: false,
        reason: 'no_turn',
        message:
          known === 0
            ? 'this session has no checkpoints'
            : `there is no turn ${turn}; this session has turns 1 to ${this.nextTurn - 1}`,
      };
    }
    if (target.root !== this.options.store.root) {
      return {
        ok: false,
        reason: 'failed',
        message: `turn ${turn} was recorded for ${target.root}, not ${this.options.store.root}; run zot rewind from there`,
      };
    }
    const number = this.nextTurn;
    const label = `rewind to turn ${turn}`;
    try {
      const last = this.entries[this.entries.length - 1]?.commit;
      const current = await this.options.store.snapshot(this.ref(number, 'before'), {
        turn: number,
        phase: 'before',
      });
      if (!current.ok) return { ok: false, reason: 'failed', message: current.reason };
      const plan = await planRestore(this.options.store, target.commit, current.snapshot, last);
      const accepted =
        force === true ||
        (Array.isArray(force) && plan.conflicts.every((path) => force.includes(path)));
      const result = await applyRestore(this.options.store, target.commit, plan, accepted);
      if (!result.ok) {
        return {
          ok: false,
          reason: 'conflict',
          conflicts: result.conflicts,
          message: `changed outside zot since its last checkpoint: ${result.conflicts.join(', ')}; nothing was restored (use --force to overwrite them)`,
        };
      }
      this.note(number, 'before', label, current.snapshot);
      // A complete rewind leaves exactly the checkpoint's tree (the store's index holds it):
      // recorded as such, without listing the files again.
      const exact = result.exact
        ? await this.options.store
            .record(this.ref(number, 'after'), result.tree, { turn: number, phase: 'after' })
            .catch(() => undefined)
        : undefined;
      if (exact) {
        this.note(number, 'after', label, {
          commit: exact,
          skipped: [],
          moreSkipped: 0,
          files: 0,
          bytes: 0,
        });
      } else {
        await this.take(number, 'after', label);
      }
      return {
        ok: true,
        turn,
        restored: result.restored,
        removed: result.removed,
        kept: result.kept,
        undoTurn: number,
      };
    } catch (error) {
      return {
        ok: false,
        reason: 'failed',
        message: `the rewind to turn ${turn} failed: ${(error as Error).message}`,
      };
    }
  }

  /** Waits for a prune in progress (before the process exits). */
  async settle(): Promise<void> {
    await this.pruning;
  }
}
