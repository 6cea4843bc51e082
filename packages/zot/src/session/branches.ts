// The session tree's operations (/tree, /fork, /clone, /merge and their RPC requests): list the
// branches of the session file in use, switch to one, fork or clone into a new file, and merge
// a branch's result into the current one. The file is the truth: each operation reads it again
// (session/tree.ts), so what the runtime does and what a resume rebuilds cannot drift apart.
import { writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type {
  BranchInfo,
  BranchListing,
  BranchMerge,
  BranchOps,
  BranchSwitch,
} from '../contract/branches.js';
import { ErrorWithKind } from '../contract/errors.js';
import type { SessionEvent } from '../contract/events.js';
import type { Message } from '../providers/types.js';
import { errorMessage } from '../util/errors.js';
import { ensurePrivateDir } from '../util/private-fs.js';
import { clip, plainSummary } from './branch-summary.js';
import { renderTranscript } from './compact.js';
import { MAX_MERGE_CHARS } from './entries.js';
import { pairToolCalls } from './repair.js';
import type { SessionFiles } from './session-files.js';
import { recordedFiles, type SessionRecord } from './session-record.js';
import { loadSession, readSessionFile, type SessionWriter } from './store.js';
import { mergeMessage, type SessionTree } from './tree.js';

/** A listing shows the first branch, the active one and the newest, up to this many. */
export const MAX_LISTED_BRANCHES = 500;
/** `/merge --messages N`: at most this many final messages. */
export const MAX_MERGED_MESSAGES = 50;
const MAX_FORK_NAME = 100;

export interface BranchParts {
  recorder: SessionRecord;
  files: SessionFiles | undefined;
  /** The transcript's one array of messages. */
  messages: Message[];
  busy(): boolean;
  publish(): void;
  emit(event: SessionEvent): void;
  /** Opens another session file (a fork or a clone), as /sessions does. */
  resume(path: string): void;
  /** The transcript moved: checkpoints drop the conversation points it no longer holds. */
  conversationChanged(): void;
  /**
   * Asks the model for a summary of `messages`; undefined when no model can be called now.
   * Contract: never rejects.
   */
  summarise(
    messages: readonly Message[],
    signal: AbortSignal,
  ): Promise<string | undefined> | undefined;
}

const time = () => new Date().toISOString();

/**
 * What a summary of `branch` (being left) is made from: the messages of its own, not its
 * parent's, and the plain summary of them ('' when there is nothing to say).
 */
export function leftBranch(
  tree: SessionTree,
  branch: BranchInfo,
): { own: Message[]; plain: string } {
  const own = tree
    .ownEntries(branch)
    .flatMap(({ entry }) => (entry.type === 'message' ? [entry.message] : []));
  return { own, plain: plainSummary(own) };
}

export class SessionBranches implements BranchOps {
  private readonly pending = new Set<Promise<void>>();
  private readonly stop = new AbortController();

  constructor(private readonly parts: BranchParts) {}

  private assertIdle(): void {
    if (this.parts.busy()) throw new ErrorWithKind('busy', 'agent is busy');
  }

  /** The tree of the session file in use; undefined before anything was written to it. */
  private read(): { tree: SessionTree; path: string } | undefined {
    recordedFiles(this.parts.files);
    const { recorder } = this.parts;
    if (!recorder.path || !recorder.exists) return undefined;
    return { tree: loadSession(recorder.path).tree, path: recorder.path };
  }

  list(): BranchListing {
    let read;
    try {
      read = this.parts.files ? this.read() : undefined;
    } catch (error) {
      this.parts.emit({ type: 'warning', message: errorMessage(error) });
    }
    if (!read) return { branches: [], total: 0, head: 0 };
    const all = read.tree.branches();
    return { branches: listed(all), total: all.length, head: read.tree.head };
  }

  private branch(tree: SessionTree, index: number): BranchInfo {
    const branches = tree.branches();
    const found = Number.isSafeInteger(index) ? branches[index - 1] : undefined;
    if (!found)
      throw new ErrorWithKind(
        'not_found',
        `there is no branch ${index}: the session has ${branches.length} (/tree lists them)`,
      );
    return found;
  }

  switchTo(index: number): BranchSwitch {
    this.assertIdle();
    const read = this.read();
    if (!read)
      throw new ErrorWithKind('not_found', `there is no branch ${index}: nothing was said yet`);
    const { tree, path } = read;
    const target = this.branch(tree, index);
    if (target.active) return { index, messages: this.parts.messages.length };
    const left = tree.branches().find((branch) => branch.active);
    const { recorder, messages } = this.parts;
    recorder.append({ type: 'branch', time: time(), to: target.leaf });
    const repaired = pairToolCalls(tree.transcript(target.leaf), path);
    if (repaired.tailRepair) recorder.append({ type: 'message', message: repaired.tailRepair });
    messages.splice(0, messages.length, ...repaired.messages);
    this.parts.conversationChanged();
    this.parts.publish();
    if (left) this.leave(tree, left);
    return { index, messages: messages.length, ...(left ? { left: left.index } : {}) };
  }

  /**
   * For a move the caller makes itself (a conversation rewind): called before it, returns what
   * writes the summary of the branch left, to call after it. Contract: never throws.
   */
  leaving(): (() => void) | undefined {
    try {
      const read = this.parts.files ? this.read() : undefined;
      const left = read?.tree.branches().find((branch) => branch.active);
      return read && left ? () => this.leave(read.tree, left) : undefined;
    } catch {
      return undefined; // an unreadable file: the move goes on, without a summary
    }
  }

  /**
   * Writes a summary of `branch`, which the session just left: a plain one now (so that an exit
   * cannot lose it), then the model's when one can be called. Never blocks the caller.
   */
  leave(tree: SessionTree, branch: BranchInfo): void {
    const { own, plain } = leftBranch(tree, branch);
    if (plain === '') return;
    const writer = this.parts.recorder.writerNow;
    if (!writer) return;
    const write = (summary: string, by: string) =>
      writer.append({ type: 'branch_summary', time: time(), leaf: branch.leaf, summary, by });
    try {
      write(plain, 'zot');
    } catch (error) {
      this.warn(writer, error);
      return;
    }
    const asked = this.parts.summarise(own, this.stop.signal);
    if (!asked) return;
    const done: Promise<void> = asked
      .then((summary) => {
        if (summary !== undefined && !this.stop.signal.aborted) write(summary, 'model');
      })
      .catch((error: unknown) => this.warn(writer, error))
      .finally(() => this.pending.delete(done));
    this.pending.add(done);
  }

  private warn(writer: SessionWriter, error: unknown): void {
    this.parts.emit({
      type: 'warning',
      message: `could not write a branch summary to ${writer.path}: ${errorMessage(error)}`,
    });
  }

  /** Summaries still being asked for; resolves once each was written or given up. */
  async settle(abort = false): Promise<void> {
    if (abort) this.stop.abort();
    await Promise.all([...this.pending]);
  }

  fork(count?: number): { path: string; messages: number } {
    this.assertIdle();
    const files = recordedFiles(this.parts.files);
    const { messages, recorder } = this.parts;
    const kept = count ?? messages.length;
    if (!Number.isSafeInteger(kept) || kept < 1 || kept > messages.length)
      throw new ErrorWithKind(
        'failed',
        messages.length === 0
          ? 'nothing to fork yet: the conversation is empty (/new starts an empty session)'
          : `a fork keeps 1 to ${messages.length} messages, not ${count}`,
      );
    const writer = files.create();
    for (const message of messages.slice(0, kept)) writer.append({ type: 'message', message });
    if (recorder.name !== undefined)
      writer.append({
        type: 'name',
        time: time(),
        name: clip(`${recorder.name} (fork)`, MAX_FORK_NAME),
      });
    this.parts.resume(writer.path);
    return { path: writer.path, messages: kept };
  }

  clone(): { path: string } {
    this.assertIdle();
    const files = recordedFiles(this.parts.files);
    const { recorder } = this.parts;
    if (!recorder.path || !recorder.exists)
      throw new ErrorWithKind('failed', 'nothing to clone yet: the session file is still empty');
    const bytes = readSessionFile(recorder.path);
    const target = files.create().path;
    ensurePrivateDir(dirname(target));
    writeFileSync(target, bytes, { mode: 0o600, flag: 'wx' });
    this.parts.resume(target);
    return { path: target };
  }

  merge(index: number, options: { messages?: number } = {}): BranchMerge {
    this.assertIdle();
    const read = this.read();
    if (!read)
      throw new ErrorWithKind('not_found', `there is no branch ${index}: nothing was said yet`);
    const { tree } = read;
    const source = this.branch(tree, index);
    if (source.active)
      throw new ErrorWithKind(
        'failed',
        `branch ${index} is the one in use: merge another branch into it`,
      );
    const count = options.messages ?? 0;
    if (!Number.isSafeInteger(count) || count < 0 || count > MAX_MERGED_MESSAGES)
      throw new ErrorWithKind(
        'failed',
        `--messages takes 0 to ${MAX_MERGED_MESSAGES}, not ${count}`,
      );
    const own = tree
      .ownEntries(source)
      .flatMap(({ entry }) => (entry.type === 'message' ? [entry.message] : []));
    const summary = source.summary?.text ?? plainSummary(own);
    const summaryBy = source.summary?.by ?? (summary === '' ? 'none' : 'zot');
    const parts = [
      `Summary of branch ${index}, explored apart from this one:`,
      summary === '' ? '(it holds no prompt of its own)' : summary,
    ];
    if (count > 0) {
      const last = tree
        .transcript(source.leaf)
        .slice(-count)
        .map((line) => line.message);
      parts.push(`Its last ${last.length} messages:`, renderTranscript(last));
    }
    const label = `branch ${index}${source.first_prompt ? `: ${clip(source.first_prompt, 120)}` : ''}`;
    const entry = {
      type: 'merge' as const,
      time: time(),
      from: source.leaf,
      label,
      text: clip(parts.join('\n\n'), MAX_MERGE_CHARS - 1),
    };
    this.parts.recorder.append(entry);
    const message = mergeMessage(entry);
    this.parts.messages.push(message);
    this.parts.publish();
    return { index, text: entry.text, summary_by: summaryBy };
  }
}

/** The first branch, the active one and the newest: the listing stays bounded. */
function listed(all: BranchInfo[]): BranchInfo[] {
  if (all.length <= MAX_LISTED_BRANCHES) return all;
  const newest = all.slice(all.length - (MAX_LISTED_BRANCHES - 2));
  const keep = new Set([all[0]!, ...newest]);
  const active = all.find((branch) => branch.active);
  if (active) keep.add(active);
  return all.filter((branch) => keep.has(branch));
}
