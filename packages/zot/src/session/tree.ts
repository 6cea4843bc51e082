// The session tree, rebuilt from an append-only session file. Every transcript entry (message,
// compaction, clear, merge) is a node named by its line, whose parent is the node the session
// stood on when it was written. A `rewind` (conversation rewind) or a `branch` entry moves the
// session back to an earlier node; what is written next starts a new branch there. A file with
// neither is a single branch, so every older file reads as it always did.
//
// A branch is a chain of nodes ending in a leaf: its first node is a later child of a node that
// already had one (the first child continues the parent's branch). Branches are numbered in the
// order they began, which later writes never change.
import { MERGE_MARK, type BranchInfo } from '../contract/branches.js';
import type { Message } from '../providers/types.js';
import type { SessionEntry } from './entries.js';
import { TranscriptReplay } from './replay.js';
import type { LineMessage } from './repair.js';

export { MERGE_MARK, type BranchInfo };

export type NodeEntry = Extract<
  SessionEntry,
  { type: 'message' | 'compaction' | 'clear' | 'merge' }
>;
export type SummaryEntry = Extract<SessionEntry, { type: 'branch_summary' }>;

/** The line of the empty start of a session (before its first entry). */
export const TREE_ROOT = 0;

export function summaryMessage(summary: string, time: string): Message {
  return {
    role: 'user',
    content: [
      { type: 'text', text: `Summary of the earlier conversation (compacted):\n\n${summary}` },
    ],
    time,
  };
}

export function mergeMessage(entry: Extract<SessionEntry, { type: 'merge' }>): Message {
  return {
    role: 'user',
    content: [{ type: 'text', text: `${MERGE_MARK} ${entry.label}\n\n${entry.text}` }],
    time: entry.time,
  };
}

const firstLine = (text: string) => (text.trim().split('\n')[0] ?? '').slice(0, 200);

function promptText(entry: Extract<NodeEntry, { type: 'message' }>): string {
  const text = entry.message.content.find((block) => block.type === 'text');
  return text && text.type === 'text' ? firstLine(text.text) : '';
}

/**
 * Builds the tree one entry at a time (load.ts feeds it while reading a file).
 * Contract: every operation is O(log n) at most, so that a file of any shape (100,000 branches,
 * a million rewinds) is read in time linear in its size up to a log factor; nothing recurses.
 * Parents always precede children in the file, so a cycle cannot be written down: a `branch`
 * to a line that is not an earlier node is refused with a warning (`problems`).
 */
export class TreeBuilder {
  private readonly lineOf: number[] = [];
  private readonly indexOf = new Map<number, number>();
  private readonly parent: number[] = [];
  private readonly depth: number[] = [];
  private readonly jump: number[] = [];
  /** Transcript length after the node; `base`: the nearest compaction or clear at or above it. */
  private readonly length: number[] = [];
  private readonly base: number[] = [];
  private readonly entries: NodeEntry[] = [];
  private readonly hasChild: boolean[] = [];
  private rootHasChild = false;
  /** Each node's branch: the index of the branch's first node. */
  private readonly branchOf: number[] = [];
  private readonly branchLeaf = new Map<number, number>();
  private readonly branchPrompts = new Map<number, { count: number; first?: string }>();
  private readonly summaries = new Map<number, SummaryEntry>();
  /** The node the session stands on; -1 for the empty start. */
  private head = -1;

  constructor(private readonly problem: (message: string) => void = () => {}) {}

  private depthOf = (index: number) => (index === -1 ? 0 : this.depth[index]!);

  add(line: number, entry: NodeEntry): void {
    const index = this.lineOf.length;
    const parent = this.head;
    this.lineOf.push(line);
    this.indexOf.set(line, index);
    this.parent.push(parent);
    this.entries.push(entry);
    this.hasChild.push(false);
    const depth = this.depthOf(parent) + 1;
    this.depth.push(depth);
    // Skew-binary jump pointers (Myers 1983): an ancestor at any depth in O(log n) steps.
    const up = parent === -1 ? -1 : this.jump[parent]!;
    const upUp = up === -1 ? -1 : this.jump[up]!;
    const even =
      parent !== -1 &&
      up !== -1 &&
      this.depthOf(parent) - this.depthOf(up) === this.depthOf(up) - this.depthOf(upUp);
    this.jump.push(even ? upUp : parent);
    const before = parent === -1 ? 0 : this.length[parent]!;
    if (entry.type === 'clear') this.length.push(0);
    else if (entry.type === 'compaction') this.length.push(1 + Math.min(entry.kept, before));
    else this.length.push(before + 1);
    const reset = entry.type === 'clear' || entry.type === 'compaction';
    this.base.push(reset ? index : parent === -1 ? -1 : this.base[parent]!);
    const continues = parent === -1 ? !this.rootHasChild : !this.hasChild[parent];
    if (parent === -1) this.rootHasChild = true;
    else this.hasChild[parent] = true;
    const branch = continues && parent !== -1 ? this.branchOf[parent]! : index;
    this.branchOf.push(branch);
    this.branchLeaf.set(branch, index);
    if (entry.type === 'message' && entry.message.role === 'user') {
      const prompts = this.branchPrompts.get(branch) ?? { count: 0 };
      // Only a branch's first prompt is shown: the others are only counted.
      if (prompts.count === 0) prompts.first = promptText(entry);
      prompts.count++;
      this.branchPrompts.set(branch, prompts);
    }
    this.head = index;
  }

  private ancestorAtDepth(index: number, depth: number): number {
    if (depth <= 0) return -1;
    let at = index;
    while (this.depth[at]! > depth) {
      const jump = this.jump[at]!;
      at = jump !== -1 && this.depthOf(jump) >= depth ? jump : this.parent[at]!;
    }
    return at;
  }

  /** A conversation rewind: the transcript keeps its first `messages` messages. */
  rewind(messages: number): void {
    const head = this.head;
    if (head === -1 || messages >= this.length[head]!) return;
    const base = this.base[head]!;
    const baseLength = base === -1 ? 0 : this.length[base]!;
    // After a compaction or clear each node adds one message, so the depth gives the count; a
    // rewind past a compaction (zot never writes one) stops at the compaction.
    this.head =
      messages >= baseLength
        ? this.ancestorAtDepth(head, this.depthOf(base) + messages - baseLength)
        : base;
  }

  /** A `branch` entry: the session stands on line `to` now. */
  switchTo(to: number, line: number): void {
    if (to === TREE_ROOT) {
      this.head = -1;
      return;
    }
    const index = this.indexOf.get(to);
    if (index === undefined) {
      this.problem(
        `line ${line}: a branch to line ${to}, which is not an earlier transcript entry; ignored`,
      );
      return;
    }
    this.head = index;
  }

  summary(entry: SummaryEntry, line: number): void {
    const index = this.indexOf.get(entry.leaf);
    if (index === undefined) {
      this.problem(
        `line ${line}: a branch summary of line ${entry.leaf}, which is not an earlier transcript entry; ignored`,
      );
      return;
    }
    this.summaries.set(this.branchOf[index]!, entry);
  }

  /** A merge names a branch by an earlier line; one that does not is still context, noted. */
  checkMerge(entry: Extract<SessionEntry, { type: 'merge' }>, line: number): void {
    if (!this.indexOf.has(entry.from))
      this.problem(`line ${line}: a merge from line ${entry.from}, which is not an earlier entry`);
  }

  finish(): SessionTree {
    return new SessionTree(this);
  }

  /** @internal for SessionTree */
  view() {
    return {
      lineOf: this.lineOf,
      indexOf: this.indexOf,
      parent: this.parent,
      entries: this.entries,
      length: this.length,
      branchOf: this.branchOf,
      branchLeaf: this.branchLeaf,
      branchPrompts: this.branchPrompts,
      summaries: this.summaries,
      head: this.head,
    };
  }
}

/**
 * The read side (the loader, /tree, RPC, export). Lines name nodes: `TREE_ROOT` is the empty
 * start. Contract: never throws for lines it was not given (they read as unknown).
 */
export class SessionTree {
  private readonly v: ReturnType<TreeBuilder['view']>;

  constructor(builder: TreeBuilder) {
    this.v = builder.view();
  }

  /** The line of the node the session stands on (TREE_ROOT: the empty start). */
  get head(): number {
    return this.v.head === -1 ? TREE_ROOT : this.v.lineOf[this.v.head]!;
  }

  /** How many branches the file holds (0 for a session without transcript entries). */
  get branchCount(): number {
    return this.v.branchLeaf.size;
  }

  /** Whether `line` is a transcript entry of the tree (or its start). */
  has(line: number): boolean {
    return line === TREE_ROOT || this.v.indexOf.has(line);
  }

  /** Every branch, in the order they began. */
  branches(): BranchInfo[] {
    const v = this.v;
    const result: BranchInfo[] = [];
    const numbered = new Map<number, number>();
    for (const [first, leaf] of v.branchLeaf) {
      const index = result.length + 1;
      numbered.set(first, index);
      const from = v.parent[first]!;
      const prompts = v.branchPrompts.get(first);
      const summary = v.summaries.get(first);
      const parent = from === -1 ? undefined : numbered.get(v.branchOf[from]!);
      result.push({
        index,
        leaf: v.lineOf[leaf]!,
        start: v.lineOf[first]!,
        from: from === -1 ? TREE_ROOT : v.lineOf[from]!,
        ...(parent !== undefined ? { parent } : {}),
        messages: v.length[leaf]!,
        prompts: prompts?.count ?? 0,
        ...(prompts?.first !== undefined ? { first_prompt: prompts.first } : {}),
        ...(summary
          ? { summary: { text: summary.summary, by: summary.by, time: summary.time } }
          : {}),
        active: v.head === leaf,
      });
    }
    return result;
  }

  /** The branch holding `line`'s node (its index), if any. */
  branchAt(line: number): number | undefined {
    const index = this.v.indexOf.get(line);
    if (index === undefined) return undefined;
    const first = this.v.branchOf[index]!;
    let number = 0;
    for (const key of this.v.branchLeaf.keys()) {
      number++;
      if (key === first) return number;
    }
    return undefined;
  }

  /** The entries from the start to `line`, in order (O(depth)). */
  path(line: number): Array<{ line: number; entry: NodeEntry }> {
    const v = this.v;
    const path: Array<{ line: number; entry: NodeEntry }> = [];
    let at = line === TREE_ROOT ? -1 : (v.indexOf.get(line) ?? -1);
    while (at !== -1) {
      path.push({ line: v.lineOf[at]!, entry: v.entries[at]! });
      at = v.parent[at]!;
    }
    return path.reverse();
  }

  /** A branch's own entries: from its first to its leaf. */
  ownEntries(branch: BranchInfo): Array<{ line: number; entry: NodeEntry }> {
    const path = this.path(branch.leaf);
    const first = path.findIndex((step) => step.line === branch.start);
    return first === -1 ? [] : path.slice(first);
  }

  /** The transcript the session has when it stands on `line`, with each message's line. */
  transcript(line: number): LineMessage[] {
    const replay = new TranscriptReplay();
    for (const { line: at, entry } of this.path(line)) {
      if (entry.type === 'message') replay.append({ message: entry.message, line: at });
      else if (entry.type === 'merge') replay.append({ message: mergeMessage(entry), line: at });
      else if (entry.type === 'compaction')
        replay.compact(
          { message: summaryMessage(entry.summary, entry.time), line: at },
          entry.kept,
        );
      else replay.clear();
    }
    return replay.messages();
  }
}

/** Builds the tree of already-parsed entries, each with its line (1-based). */
export function sessionTree(
  entries: Iterable<{ line: number; entry: SessionEntry }>,
  problem?: (message: string) => void,
): SessionTree {
  const builder = new TreeBuilder(problem);
  for (const { line, entry } of entries) feedTree(builder, line, entry);
  return builder.finish();
}

/** Feeds one entry to the tree; entries that are not part of it are passed over. */
export function feedTree(builder: TreeBuilder, line: number, entry: SessionEntry): void {
  switch (entry.type) {
    case 'message':
    case 'compaction':
    case 'clear':
      builder.add(line, entry);
      break;
    case 'merge':
      builder.checkMerge(entry, line);
      builder.add(line, entry);
      break;
    case 'rewind':
      builder.rewind(entry.messages);
      break;
    case 'branch':
      builder.switchTo(entry.to, line);
      break;
    case 'branch_summary':
      builder.summary(entry, line);
      break;
    default:
      break;
  }
}
