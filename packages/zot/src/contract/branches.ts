// The session tree as front ends see it (/tree, /fork, /clone, /merge, the RPC requests): the
// branches of the session file in use and what moving between them did.

/** First line of every merged context message: the TUI folds a user message that starts so. */
export const MERGE_MARK = '[merged from another branch]';

/** One branch: a chain of transcript entries ending in a leaf (session/tree.ts). */
export interface BranchInfo {
  /** 1-based, in the order the branches began (what /tree, /merge and RPC name them by). */
  index: number;
  /** Line of its last entry in the session file. */
  leaf: number;
  /** Line of its first own entry. */
  start: number;
  /** Line of the entry it continues from (0: the start of the session). */
  from: number;
  /** Index of the branch it left from; absent for a branch that starts at the session's start. */
  parent?: number;
  /** How many messages its transcript holds at its leaf. */
  messages: number;
  /** How many user prompts it holds of its own (after it left its parent). */
  prompts: number;
  /** The first line of its first own prompt. */
  first_prompt?: string;
  /** The last summary written of it: by "model" or by "zot" (without a model). */
  summary?: { text: string; by: string; time: string };
  /** The session stands on its leaf. */
  active: boolean;
}

export interface BranchListing {
  /** At most MAX_LISTED_BRANCHES: the first, the active one and the newest. */
  branches: BranchInfo[];
  /** How many the session holds. */
  total: number;
  /** The line the session stands on (0: the empty start); inside a branch after a rewind. */
  head: number;
}

export interface BranchSwitch {
  /** The branch now active. */
  index: number;
  /** Messages in the transcript now. */
  messages: number;
  /** The branch left, whose summary is being written; absent when none was left. */
  left?: number;
}

export interface BranchMerge {
  /** The branch merged from. */
  index: number;
  /** The context message's text, as the model sees it. */
  text: string;
  /** Where the summary came from: "model", "zot", or "none" (the branch holds no prompt). */
  summary_by: string;
}

/** What the session's branch operations offer (Session.branches). */
export interface BranchOps {
  /** Contract: never throws; an unrecorded session has no branches. */
  list(): BranchListing;
  /** Contract: throws (kind busy, not_found, failed) naming why. */
  switchTo(index: number): BranchSwitch;
  /** A new session file holding the first `messages` messages (default all); it is opened. */
  fork(messages?: number): { path: string; messages: number };
  /** A copy of the session file, every branch; the copy is opened. */
  clone(): { path: string };
  /** Brings branch `index`'s summary (and its last `messages` messages) into this branch. */
  merge(index: number, options?: { messages?: number }): BranchMerge;
}
