// Rebuilding a transcript from the bytes of a session file, which are untrusted: any line may be
// cut by a crash, corrupt, hand-edited or hostile. Pure (no I/O), so fuzz tests can call it.
import { MAX_JSON_DEPTH, parseBoundedJson } from '@zot/protocol/bounds';
import type { Message, ToolMessage } from '../providers/types.js';
import { errorMessage } from '../util/errors.js';
import {
  dropUnreadableDetails,
  SESSION_FORMAT_VERSION,
  sessionEntryShape,
  type SessionEntry,
} from './entries.js';

/** A recorded working-tree checkpoint (entries.ts). */
export type CheckpointEntry = Extract<SessionEntry, { type: 'checkpoint' }>;
import { pairToolCalls } from './repair.js';
import { feedTree, summaryMessage, TreeBuilder, type SessionTree } from './tree.js';
import { UsageTally, type RecordedUsage } from './recorded-usage.js';
import { nodeBuffer } from '../util/builtins.js';

/** Problems reported one by one; past this many, only counted (a corrupt file has millions). */
export const MAX_LOAD_WARNINGS = 20;

export interface LoadedSession {
  messages: Message[];
  /** Tokens and cost of the recorded model calls. */
  usage: RecordedUsage;
  /** The name the user gave the session, if any. */
  name?: string;
  /** The working-tree checkpoints the session recorded, in order. */
  checkpoints?: CheckpointEntry[];
  /** The session's tree of branches; `messages` are those of its head (the last active branch). */
  tree: SessionTree;
  /** Each names the file and, for a bad line, its number. */
  warnings: string[];
  /**
   * Set when the last message was a tool call without result (zot killed mid-tool): the
   * synthetic result that `messages` ends with. Appending it to the file records the repair.
   */
  tailRepair?: ToolMessage;
}

export { summaryMessage };

class Warnings {
  readonly shown: string[] = [];
  private more = 0;
  constructor(private readonly file: string) {}
  add(message: string): void {
    if (this.shown.length < MAX_LOAD_WARNINGS) this.shown.push(message);
    else this.more++;
  }
  list(): string[] {
    if (this.more === 0) return this.shown;
    return [...this.shown, `${this.file}: ${this.more} more problems not shown`];
  }
}

/** Why a line cannot be read, or its value. */
export function decodeLine(bytes: Buffer): { value: unknown } | { error: string } {
  if (!nodeBuffer().isUtf8(bytes)) return { error: 'is not valid UTF-8' };
  return decodeText(bytes.toString('utf8'));
}

/** Why a line's text cannot be read, or its value. */
function decodeText(text: string): { value: unknown } | { error: string } {
  if (text.includes('\0')) return { error: 'contains NUL bytes (the file was damaged)' };
  return parseLine(text);
}

/** Why a line's text (without NUL bytes) is not JSON this zot reads, or its value. */
function parseLine(text: string): { value: unknown } | { error: string } {
  const parsed = parseBoundedJson(text);
  if (parsed.ok) return { value: parsed.value };
  // JSON.parse's message quotes the line; file content stays out of warnings.
  if (parsed.error.startsWith('invalid JSON')) return { error: 'is not JSON' };
  return { error: `is nested deeper than ${MAX_JSON_DEPTH} levels` };
}

/** Whether `bytes` begin with a UTF-8 byte order mark (three bytes). */
export const startsWithBom = (bytes: Uint8Array) =>
  bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;

/** Bytes read to recognise a session file: its header line is a few hundred bytes. */
export const SESSION_HEAD_BYTES = 64 * 1024;

/**
 * Why `head` (the first bytes of a file, up to SESSION_HEAD_BYTES) does not begin with a
 * session header line, or undefined when it does. Contract: never throws.
 */
export function sessionHeaderProblem(head: Uint8Array): string | undefined {
  let bytes = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  if (startsWithBom(bytes)) bytes = bytes.subarray(3);
  const newline = bytes.indexOf(0x0a);
  if (newline === -1) return 'its first line is not a zot session header';
  const decoded = decodeLine(
    bytes.subarray(0, bytes[newline - 1] === 0x0d ? newline - 1 : newline),
  );
  if ('error' in decoded) return `its first line ${decoded.error}`;
  const value = decoded.value as { type?: unknown } | null;
  if (value === null || typeof value !== 'object' || value.type !== 'session') {
    return 'its first line is not a zot session header';
  }
  const invalid = sessionEntryShape(value, 'header');
  return invalid ? `its session header is invalid (${invalid})` : undefined;
}

/** What `readSessionEntries` reports besides the entries themselves. */
export interface EntryLineProblems {
  /**
   * A line left out: `why` completes "skipped line N: ..." (`it is not JSON`, or what the entry's
   * shape lacks); `cutShort` when it is the last line, not JSON and without a newline (a crash
   * cut the write short).
   */
  skipped(line: number, why: string, cutShort: boolean): void;
  /** A tool result's details this zot cannot read were dropped; the entry is kept without them. */
  droppedDetails?(line: number): void;
}

/**
 * Reads a session file's lines (BOM, LF and CRLF, blank lines, UTF-8, JSON depth, the entry's
 * shape) and hands each valid entry to `entry` with its 1-based line; a bad line goes to
 * `problems`. Contract: never throws for any bytes; linear in their size; no recursion on the data.
 */
export function readSessionEntries(
  bytes: Buffer,
  entry: (entry: SessionEntry, line: number) => void,
  problems: EntryLineProblems,
): void {
  new EntryReader(bytes).read(entry, problems);
}

/** How many lines are read between two looks at the clock (a line is microseconds). */
const LINES_PER_CLOCK_CHECK = 64;

/**
 * readSessionEntries in steps: `read` can stop at a deadline and go on where it stopped, so a
 * long file can be read between frames and keys. Contract as readSessionEntries'.
 */
export class EntryReader {
  private readonly text: string | undefined;
  private readonly length: number;
  private start: number;
  private line = 1;

  constructor(private readonly bytes: Buffer) {
    // A file that is valid UTF-8 without NUL bytes (the usual case) is decoded once, not line by
    // line; any other is read line by line, so that each bad line is named and skipped.
    const decoded = nodeBuffer().isUtf8(bytes) ? bytes.toString('utf8') : undefined;
    this.text = decoded?.includes('\0') ? undefined : decoded;
    this.length = this.text === undefined ? bytes.length : this.text.length;
    // A BOM: one character once decoded, or three bytes.
    this.start = startsWithBom(bytes) ? (this.text === undefined ? 3 : 1) : 0;
  }

  /** Whether every line was read. */
  get done(): boolean {
    return this.start >= this.length;
  }

  /** Reads lines until the end, or until `until` (a performance.now() time) has passed. */
  read(
    entry: (entry: SessionEntry, line: number) => void,
    problems: EntryLineProblems,
    until = Infinity,
  ): boolean {
    const { text, bytes, length } = this;
    const code = text === undefined ? (i: number) => bytes[i]! : (i: number) => text.charCodeAt(i);
    let start = this.start;
    let line = this.line;
    const first = line;
    for (; start < length; line++) {
      // Never before the first line of a call: every call gets on.
      const check = line !== first && (line - first) % LINES_PER_CLOCK_CHECK === 0;
      if (check && until !== Infinity && performance.now() > until) break;
      const newline = text === undefined ? bytes.indexOf(0x0a, start) : text.indexOf('\n', start);
      const end = newline === -1 ? length : newline;
      const from = start;
      const to = end > start && code(end - 1) === 0x0d ? end - 1 : end;
      start = end + 1;
      if (from === to || (isBlank(code(from)) && allBlank(code, from, to))) continue;
      // The whole text has no NUL byte: a line of it needs only the JSON checks.
      const read =
        text === undefined ? decodeLine(bytes.subarray(from, to)) : parseLine(text.slice(from, to));
      if ('error' in read) {
        problems.skipped(line, `it ${read.error}`, newline === -1 && read.error === 'is not JSON');
        continue;
      }
      const checked = checkedEntry(read.value, line, problems);
      if (checked) entry(checked, line);
    }
    this.start = start;
    this.line = line;
    return this.done;
  }
}

/**
 * The entry a parsed line holds, or undefined (told to `problems`) when its shape is not one.
 * A line that fits has only readable details: they are looked at again only when it does not.
 */
export function checkedEntry(
  value: unknown,
  line: number,
  problems: EntryLineProblems,
): SessionEntry | undefined {
  let invalid = sessionEntryShape(value, 'entry');
  if (invalid && dropUnreadableDetails(value)) {
    problems.droppedDetails?.(line);
    invalid = sessionEntryShape(value, 'entry');
  }
  if (!invalid) return value as SessionEntry;
  problems.skipped(line, invalid, false);
  return undefined;
}

const isBlank = (code: number) => code === 0x20 || code === 0x09;

function allBlank(code: (i: number) => number, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!isBlank(code(i))) return false;
  return true;
}

/** A session file's entries, replayed one by one into its tree, usage and checkpoints. */
class EntryReplay {
  readonly checkpoints: CheckpointEntry[] = [];
  /** The checkpoints whose conversation point still holds. */
  private readonly pointed: CheckpointEntry[] = [];
  readonly tree: TreeBuilder;
  readonly usage = new UsageTally();
  readonly problems: EntryLineProblems;

  constructor(
    private readonly file: string,
    private readonly warnings: Warnings,
  ) {
    this.tree = new TreeBuilder((problem) => warnings.add(`${file}: ${problem}`));
    this.problems = {
      skipped: (line, why, cutShort) =>
        warnings.add(
          cutShort
            ? `${file}: skipped unreadable trailing line ${line} (cut short by a crash?)`
            : `${file}: skipped line ${line}: ${why}`,
        ),
      droppedDetails: (line) =>
        warnings.add(`${file}: line ${line}: dropped tool result details this zot cannot read`),
    };
  }

  readonly add = (entry: SessionEntry, line: number): void => {
    const { usage, pointed } = this;
    feedTree(this.tree, line, entry);
    if (entry.type === 'usage') usage.add(entry);
    else if (entry.type === 'name') usage.name = entry.name;
    else if (entry.type === 'checkpoint') {
      this.checkpoints.push(entry);
      if (entry.messages !== undefined) pointed.push(entry);
    }
    // A checkpoint's conversation point is a count of messages: it holds only while the
    // transcript keeps that prefix (no compaction or clear since, no rewind before it). The
    // points still held grow along the file, so each is dropped once: linear in the file.
    // A move to another branch keeps none (its transcript may differ anywhere).
    const moved = entry.type === 'branch';
    if (entry.type === 'compaction' || entry.type === 'clear' || entry.type === 'rewind' || moved) {
      const kept = entry.type === 'rewind' ? entry.messages : -1;
      while (pointed.length > 0 && pointed[pointed.length - 1]!.messages! > kept)
        delete pointed.pop()!.messages;
    }
    if (entry.type === 'session') usage.model ??= `${entry.provider}/${entry.model}`;
    if (entry.type === 'session' && entry.version > SESSION_FORMAT_VERSION)
      this.warnings.add(
        `${this.file}: written in session format ${entry.version} (this zot reads ` +
          `${SESSION_FORMAT_VERSION}); loading what it understands`,
      );
  };
}

/**
 * Rebuilds the transcript from a session file's bytes (a string is taken as its UTF-8).
 * Lines split on LF only (CRLF tolerated); a line that is not UTF-8, not JSON, nested deeper
 * than MAX_JSON_DEPTH or not a valid entry is skipped with a warning naming `file` and the
 * line; tool calls are then paired with results (see pairToolCalls).
 * Contract: never throws, for any input; linear in its size, no recursion on the data.
 */
export function loadSessionText(data: Uint8Array | string, file = 'session file'): LoadedSession {
  return new SessionLoading(data, file).finish();
}

/**
 * loadSessionText in steps: `step` reads until a deadline and can be called again, `finish`
 * reads the rest and rebuilds the transcript. A resumed long session is read this way after
 * the first frame, between keys. Contract as loadSessionText's (`finish` never throws).
 */
export class SessionLoading {
  private readonly warnings: Warnings;
  private readonly reader: EntryReader | undefined;
  private readonly replay: EntryReplay;
  private loaded: LoadedSession | undefined;

  constructor(
    data: Uint8Array | string,
    private readonly file = 'session file',
  ) {
    this.warnings = new Warnings(file);
    this.replay = new EntryReplay(file, this.warnings);
    try {
      const bytes =
        typeof data === 'string'
          ? Buffer.from(data, 'utf8')
          : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
      this.reader = new EntryReader(bytes);
    } catch (error) {
      this.loaded = this.failed(error);
    }
  }

  /**
   * Reads lines until `until` (a performance.now() time), or, once all are read, rebuilds the
   * transcript (a step of its own: it takes milliseconds); returns whether `finish` is ready.
   */
  step(until: number): boolean {
    if (this.loaded || !this.reader) return true;
    if (this.reader.done) {
      this.finish();
      return true;
    }
    try {
      this.reader.read(this.replay.add, this.replay.problems, until);
    } catch (error) {
      this.loaded = this.failed(error);
      return true;
    }
    return false;
  }

  /** Reads what is left and returns the session (the same object when called again). */
  finish(): LoadedSession {
    if (this.loaded) return this.loaded;
    try {
      this.reader!.read(this.replay.add, this.replay.problems);
      const { replay, warnings, file } = this;
      const tree = replay.tree.finish();
      const paired = pairToolCalls(tree.transcript(tree.head), file);
      paired.warnings.forEach((warning) => warnings.add(warning));
      const { messages, tailRepair } = paired;
      const { usage, checkpoints } = replay;
      this.loaded = {
        messages,
        usage: usage.result(),
        ...(usage.name !== undefined ? { name: usage.name } : {}),
        ...(checkpoints.length > 0 ? { checkpoints } : {}),
        tree,
        warnings: warnings.list(),
        ...(tailRepair ? { tailRepair } : {}),
      };
    } catch (error) {
      this.loaded = this.failed(error);
    }
    return this.loaded;
  }

  /** Not expected (e.g. out of memory): a session that cannot be rebuilt starts empty. */
  private failed(error: unknown): LoadedSession {
    this.warnings.add(`${this.file}: could not be loaded (${errorMessage(error)}); starting empty`);
    return {
      messages: [],
      usage: new UsageTally().result(),
      tree: new TreeBuilder().finish(),
      warnings: this.warnings.list(),
    };
  }
}
