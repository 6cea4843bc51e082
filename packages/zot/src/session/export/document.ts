// What an export shows, read from a session file's bytes (untrusted: any line may be corrupt or
// hostile) or from a transcript in memory: every message in the order it was recorded, and the
// events between them (a compaction's summary, a clear, a conversation rewind, a new name).
// Unlike a resume, nothing is dropped: messages a compaction or rewind left behind are shown.
import type { Message, ToolResultBlock } from '../../providers/types.js';
import type { SessionEntry } from '../entries.js';
import { MAX_LOAD_WARNINGS, readSessionEntries } from '../load.js';
import { feedTree, TreeBuilder, type SessionTree } from '../tree.js';

export type ExportItem = (
  | { kind: 'message'; message: Message }
  | { kind: 'compaction'; time: string; summary: string; kept: number }
  | { kind: 'clear'; time: string }
  | { kind: 'merge'; time: string; label: string; text: string }
  | { kind: 'rewind'; time: string; turn: number; messages: number }
  | { kind: 'name'; time: string; name: string }
) & {
  /** The session-file line it came from (absent for a transcript in memory). */
  line?: number;
};

/** One branch of a session's tree (session/tree.ts) with its own entries. */
export interface ExportBranch {
  /** 1-based, in the order the branches began. */
  index: number;
  /** The branch it left from, and the line of the entry it continues after. */
  parent?: number;
  from?: number;
  active: boolean;
  summary?: { text: string; by: string; time: string };
  items: ExportItem[];
}

export interface ExportDocument {
  /** The session's name, else its first prompt's first line, else "zot session". */
  title: string;
  /** The session file, when the export was read from one. */
  file?: string;
  cwd?: string;
  created?: string;
  model?: string;
  zotVersion?: string;
  items: ExportItem[];
  /** Set when the session has more than one branch: each with its own entries. */
  branches?: ExportBranch[];
  /** Lines that could not be read, each naming the file and line (at most MAX_LOAD_WARNINGS). */
  warnings: string[];
}

/** A title is one short line. */
const MAX_TITLE = 120;

function titleOf(name: string | undefined, items: readonly ExportItem[]): string {
  const flat = (text: string) => text.replace(/\s+/g, ' ').trim();
  if (name !== undefined && flat(name) !== '') return flat(name).slice(0, MAX_TITLE);
  for (const item of items) {
    if (item.kind !== 'message' || item.message.role !== 'user') continue;
    for (const block of item.message.content) {
      if (block.type !== 'text') continue;
      const first = flat(block.text.split('\n').find((line) => line.trim() !== '') ?? '');
      if (first !== '') return first.slice(0, MAX_TITLE);
    }
  }
  return 'zot session';
}

/**
 * The export of a session file's bytes. Lines split on LF (CRLF tolerated); a line that cannot
 * be read or is no valid entry is left out with a warning naming `file` and the line.
 * Contract: never throws for bad content; linear in the size; no recursion on the data.
 */
export function documentFromSessionBytes(data: Uint8Array, file: string): ExportDocument {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const items: ExportItem[] = [];
  const warnings: string[] = [];
  let skipped = 0;
  const warn = (message: string) => {
    if (warnings.length < MAX_LOAD_WARNINGS) warnings.push(message);
    else skipped++;
  };
  let header: Extract<SessionEntry, { type: 'session' }> | undefined;
  let name: string | undefined;
  const tree = new TreeBuilder((problem) => warn(`${file}: ${problem}`));
  const problems = {
    skipped: (line: number, why: string) => warn(`${file}: left out line ${line}: ${why}`),
  };
  readSessionEntries(
    bytes,
    (entry, line) => {
      feedTree(tree, line, entry);
      switch (entry.type) {
        case 'session':
          header ??= entry;
          break;
        case 'message':
          items.push({ kind: 'message', message: entry.message, line });
          break;
        case 'compaction': {
          const { time, summary, kept } = entry;
          items.push({ kind: 'compaction', time, summary, kept, line });
          break;
        }
        case 'clear':
          items.push({ kind: 'clear', time: entry.time, line });
          break;
        case 'merge': {
          const { time, label, text } = entry;
          items.push({ kind: 'merge', time, label, text, line });
          break;
        }
        case 'rewind': {
          const { time, turn, messages } = entry;
          items.push({ kind: 'rewind', time, turn, messages, line });
          break;
        }
        case 'name':
          name = entry.name;
          items.push({ kind: 'name', time: entry.time, name: entry.name, line });
          break;
        default:
          break; // usage, checkpoints and audit records are not part of the conversation
      }
    },
    problems,
  );
  if (skipped > 0) warnings.push(`${file}: ${skipped} more lines left out`);
  const branches = branchesOf(tree.finish(), items, (message) => warnings.push(message));
  return {
    title: titleOf(name, items),
    file,
    ...(header
      ? {
          cwd: header.cwd,
          created: header.created,
          model: `${header.provider}/${header.model}`,
          ...(header.zot_version !== undefined ? { zotVersion: header.zot_version } : {}),
        }
      : {}),
    items,
    ...(branches ? { branches } : {}),
    warnings,
  };
}

/**
 * Branches an export shows: each costs a walk from its leaf to the start of the session, so a
 * hostile file of 100,000 branches is not walked 100,000 times.
 */
export const MAX_EXPORT_BRANCHES = 100;

/** Each branch with its own items, when the tree has more than one (the first ones, and the active one). */
function branchesOf(
  tree: SessionTree,
  items: readonly ExportItem[],
  warn: (message: string) => void,
): ExportBranch[] | undefined {
  if (tree.branchCount <= 1) return undefined;
  const byLine = new Map<number, ExportItem>();
  for (const item of items) if (item.line !== undefined) byLine.set(item.line, item);
  const all = tree.branches();
  const shown = all.filter((info, i) => i < MAX_EXPORT_BRANCHES || info.active);
  if (shown.length < all.length)
    warn(`${all.length - shown.length} of the session's ${all.length} branches are not shown`);
  return shown.map((info) => ({
    index: info.index,
    ...(info.parent !== undefined ? { parent: info.parent, from: info.from } : {}),
    active: info.active,
    ...(info.summary ? { summary: info.summary } : {}),
    items: tree
      .ownEntries(info)
      .flatMap(({ line }) => (byLine.has(line) ? [byLine.get(line)!] : [])),
  }));
}

/** The export of a transcript that has no file (--no-session, or nothing written yet). */
export function documentFromMessages(
  messages: readonly Message[],
  about: { cwd?: string; model?: string; name?: string },
): ExportDocument {
  const items: ExportItem[] = messages.map((message) => ({ kind: 'message', message }));
  return {
    title: titleOf(about.name, items),
    ...(about.cwd !== undefined ? { cwd: about.cwd } : {}),
    ...(about.model !== undefined ? { model: about.model } : {}),
    items,
    warnings: [],
  };
}

/**
 * Each tool call's result, by call id: the first result for it in a tool message after it.
 * Results no call asked for are shown on their own by the renderers.
 */
export function resultsByCall(items: readonly ExportItem[]): Map<string, ToolResultBlock> {
  const calls = new Set<string>();
  const results = new Map<string, ToolResultBlock>();
  for (const item of items) {
    if (item.kind !== 'message') continue;
    const { message } = item;
    if (message.role === 'assistant') {
      for (const block of message.content) if (block.type === 'tool_call') calls.add(block.id);
    } else if (message.role === 'tool') {
      for (const result of message.content)
        if (calls.has(result.call_id) && !results.has(result.call_id))
          results.set(result.call_id, result);
    }
  }
  return results;
}

/** A tool call's arguments in one short line, for a row's title. */
export function argsSummary(name: string, args: Record<string, unknown>, max = 120): string {
  const pick = (key: string) => (typeof args[key] === 'string' ? (args[key] as string) : undefined);
  const main =
    (name === 'bash' ? pick('command') : undefined) ??
    pick('path') ??
    pick('file_path') ??
    pick('pattern') ??
    pick('url') ??
    JSON.stringify(args);
  const line = main.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The turns of a document: each user message starts one (numbered from 1), with its item. */
export function turnsOf(items: readonly ExportItem[]): Map<number, number> {
  const turns = new Map<number, number>();
  items.forEach((item, index) => {
    if (item.kind === 'message' && item.message.role === 'user') turns.set(index, turns.size + 1);
  });
  return turns;
}
