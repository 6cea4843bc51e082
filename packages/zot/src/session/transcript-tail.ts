// The newest messages of a session file's transcript, read from its end: what a resumed
// session's first screen needs, before the whole file is read (SessionLoading, after that frame).
//
// Why the end alone can tell: every transcript entry is written as a child of the node the
// session stood on (tree.ts), so the entries after the last move (a rewind or a branch) form a
// chain that ends at the head, and the head's transcript ends with their messages in file order,
// unless one of them resets it (a compaction or a clear) or is a merge. Other entries (usage,
// name, checkpoints, summaries) do not touch the transcript, and a line the full reader would
// skip is skipped here too. Tool calls are paired with results within the tail alone: it starts
// at a prompt, and pairing only looks from a call to the message after it.
import type { Message } from '../providers/types.js';
import { checkedEntry, decodeLine, startsWithBom, type EntryLineProblems } from './load.js';
import { pairToolCalls, type LineMessage } from './repair.js';

/** Bytes read from the end at most; a tail that needs more is left to the whole read. */
export const MAX_TAIL_BYTES = 4 * 1024 * 1024;

/** The entries that move or reset the transcript: the end alone cannot tell what it holds. */
const MOVES = new Set(['compaction', 'clear', 'merge', 'rewind', 'branch']);

const ignored: EntryLineProblems = { skipped: () => {} };

const hasCalls = (message: Message) =>
  message.role === 'assistant' && message.content.some((block) => block.type === 'tool_call');

/**
 * The last messages of the transcript the file's head stands on, from a prompt on: at least
 * `count` of them, or all of them when the file holds fewer; undefined when the end cannot tell
 * (a move among them, or more than MAX_TAIL_BYTES to read). They equal the last messages of
 * loadSessionText's transcript (tests prove it on generated files of every entry kind).
 * Contract: never throws for any bytes; reads at most MAX_TAIL_BYTES; no recursion on the data.
 */
export function readTranscriptTail(bytes: Buffer, count: number): Message[] | undefined {
  const tail: LineMessage[] = [];
  let orphans = 0;
  // Only the last MAX_TAIL_BYTES are looked at, newlines searched for included.
  const floor = Math.max(0, bytes.length - MAX_TAIL_BYTES);
  const window = bytes.subarray(floor);
  const bom = floor === 0 && startsWithBom(window) ? 3 : 0;
  let end = window.length;
  while (end > 0) {
    const newline = window.lastIndexOf(0x0a, end - 1);
    // A line that begins before the window is more than the tail may read.
    if (newline === -1 && floor > 0) return undefined;
    const from = newline === -1 ? bom : newline + 1;
    const to = end > from && window[end - 1] === 0x0d ? end - 1 : end;
    end = Math.max(0, newline);
    // A blank line or one the whole read skips (not UTF-8, not JSON, not an entry) holds no
    // message. Line numbers only name lines in warnings, which the whole read gives.
    const read = to > from ? decodeLine(window.subarray(from, to)) : undefined;
    const entry = read && 'value' in read ? checkedEntry(read.value, 0, ignored) : undefined;
    if (!entry) continue;
    if (MOVES.has(entry.type)) return undefined;
    if (entry.type !== 'message') continue;
    // A tool message after anything but a call is dropped by the pairing: not counted.
    const newer = tail.at(-1)?.message;
    if (newer?.role === 'tool' && !hasCalls(entry.message)) orphans++;
    tail.push({ message: entry.message, line: 0 });
    if (tail.length - orphans >= count && entry.message.role === 'user') break;
  }
  return pairToolCalls(tail.reverse(), '').messages;
}
