// Session files: one JSONL transcript per run under sessions/<cwd-key>/, appended per message.
import {
  appendFileSync,
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  statSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { ensurePrivateDir, PRIVATE_DIR_MODE, tightenMode } from '../util/private-fs.js';
import { fileKind, openForReading, readStart } from '../util/regular-file.js';
import type { Message } from '../providers/types.js';
import { errorMessage } from '../util/errors.js';
import type { SessionEntry } from './entries.js';
import {
  loadSessionText,
  SessionLoading,
  SESSION_HEAD_BYTES,
  sessionHeaderProblem,
  type LoadedSession,
} from './load.js';
import { UsageTally, type RecordedUsage } from './recorded-usage.js';
import { TreeBuilder } from './tree.js';
import { readTranscriptTail } from './transcript-tail.js';
import { nodeCrypto } from '../util/builtins.js';

export { SESSION_FORMAT_VERSION, type SessionEntry } from './entries.js';
export { loadSessionText, summaryMessage, type LoadedSession } from './load.js';

/** Largest session file zot loads: far beyond a long session, well below memory trouble. */
export const MAX_SESSION_BYTES = 256 * 1024 * 1024;

export function cwdKey(cwd: string): string {
  const name =
    basename(cwd)
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .slice(0, 40) || 'root';
  const hash = nodeCrypto().createHash('sha256').update(cwd).digest('hex').slice(0, 12);
  return `${name}-${hash}`;
}

export function sessionDir(sessionsRoot: string, cwd: string): string {
  return join(sessionsRoot, cwdKey(cwd));
}

export function newSessionPath(sessionsRoot: string, cwd: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return join(
    sessionDir(sessionsRoot, cwd),
    `${stamp}_${nodeCrypto().randomBytes(3).toString('hex')}.jsonl`,
  );
}

/**
 * The most recently written session of `cwd`, if any. Only regular files count: a dangling
 * symlink or a FIFO named *.jsonl is passed over. Contract: never throws.
 */
export function newestSession(sessionsRoot: string, cwd: string): string | undefined {
  let names: string[];
  try {
    names = readdirSync(sessionDir(sessionsRoot, cwd));
  } catch {
    return undefined;
  }
  let newest: { path: string; name: string; mtime: number } | undefined;
  for (const name of names) {
    if (!name.endsWith('.jsonl')) continue;
    const path = join(sessionDir(sessionsRoot, cwd), name);
    let stat: Stats;
    try {
      stat = statSync(path);
    } catch {
      continue;
    }
    if (!stat.isFile()) continue;
    const mtime = stat.mtimeMs;
    if (!newest || mtime > newest.mtime || (mtime === newest.mtime && name > newest.name)) {
      newest = { path, name, mtime };
    }
  }
  return newest?.path;
}

const mib = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;

/**
 * Opens `path` for reading: non-blocking, so that a FIFO cannot hang the open, and checked with
 * fstat on the opened descriptor (no race with a swap). Contract: throws an Error naming the
 * file when it cannot be opened or is not a regular file; the caller closes the descriptor.
 */
function openRegular(path: string): { fd: number; stat: Stats } {
  let opened: { fd: number; stat: Stats };
  try {
    opened = openForReading(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? errorMessage(error);
    throw new Error(`cannot read session file ${path} (${code})`);
  }
  const { fd, stat } = opened;
  if (!stat.isFile()) {
    closeSync(fd);
    throw new Error(
      `session file ${path} is ${fileKind(stat)}; sessions are regular files only ` +
        `(give --session a .jsonl file, or leave it out to start a new session)`,
    );
  }
  return { fd, stat };
}

/**
 * Reads a session file: a regular file of at most `limit` bytes, read no further than the
 * size fstat gave. Contract: throws an Error naming the file (and the limit) when it cannot
 * be used.
 */
export function readSessionFile(path: string, limit = MAX_SESSION_BYTES): Buffer {
  const { fd, stat } = openRegular(path);
  try {
    if (stat.size > limit) {
      throw new Error(
        `session file ${path} is ${mib(stat.size)}, over the ${mib(limit)} limit; ` +
          `start a new session (without -c/--session) or move the file away`,
      );
    }
    return readStart(fd, stat.size);
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether zot may append to the existing file at `path`: true when it is a zot session (its
 * first line a session header), false when it is empty (the header is then written first).
 * Contract: throws an Error naming the file and why for anything else, so that a typo in
 * `--session` or a path sent over RPC never appends JSON to a file of the user's.
 */
export function checkSessionFile(path: string): boolean {
  const { fd, stat } = openRegular(path);
  try {
    if (stat.size === 0) return false;
    const problem = sessionHeaderProblem(readStart(fd, Math.min(stat.size, SESSION_HEAD_BYTES)));
    if (problem === undefined) return true;
    throw new Error(
      `${path} is not a zot session file (${problem}); zot writes only to session files it ` +
        `wrote, or to new or empty files: check the path, or give a new file name`,
    );
  } finally {
    closeSync(fd);
  }
}

/**
 * Rebuilds the transcript of a session file.
 * Contract: never throws for bad content (see loadSessionText); throws an Error naming the
 * file when it cannot be read, is not a regular file or is over MAX_SESSION_BYTES.
 */
export function loadSession(path: string): LoadedSession {
  return loadSessionText(readSessionFile(path), path);
}

/**
 * Opens a session for appending, with its transcript when the file exists. A synthetic result
 * completing an interrupted tool call at the end is written back, so the repair is made once.
 * `sessionsRoot` is zot's own directory of sessions (see SessionWriter).
 * With `deferAfter` (a count of messages), a file over DEFERRED_LOAD_BYTES whose end shows its
 * newest messages (readTranscriptTail) is read no further now: those come as `deferred.preview`
 * and the rest is read by `deferred.loading`; its messages, usage, name, checkpoints and
 * warnings then replace the empty ones here, and `recordTailRepair` writes its repair.
 * Contract: throws like loadSession and checkSessionFile; a failed write-back is one more
 * warning.
 */
export function openSession(
  path: string,
  header: () => SessionEntry,
  sessionsRoot?: string,
  { deferAfter }: { deferAfter?: number } = {},
): OpenedSession {
  // Checked before the (up to 256 MiB) load: a file that is not a session is not read at all.
  const bytes = existsSync(path) && checkSessionFile(path) ? readSessionFile(path) : undefined;
  const preview =
    bytes && deferAfter !== undefined && bytes.length > DEFERRED_LOAD_BYTES
      ? readTranscriptTail(bytes, deferAfter)
      : undefined;
  const writer = new SessionWriter(path, header, sessionsRoot);
  if (bytes && preview) {
    return {
      writer,
      messages: [],
      warnings: [],
      usage: new UsageTally().result(),
      deferred: { preview, loading: new SessionLoading(bytes, path) },
    };
  }
  const loaded: LoadedSession = bytes
    ? loadSessionText(bytes, path)
    : {
        messages: [],
        usage: new UsageTally().result(),
        tree: new TreeBuilder().finish(),
        warnings: [],
      };
  const { messages, warnings, usage, checkpoints } = loaded;
  warnings.push(...recordTailRepair(writer, loaded));
  return {
    writer,
    messages,
    warnings,
    usage,
    ...(loaded.name !== undefined ? { name: loaded.name } : {}),
    ...(checkpoints ? { checkpoints } : {}),
  };
}

/** A file smaller than this is read whole before the first frame: it takes a few milliseconds. */
export const DEFERRED_LOAD_BYTES = 256 * 1024;

/** Writes a loaded session's tail repair to its file; returns the warning when that fails. */
export function recordTailRepair(writer: SessionWriter, loaded: LoadedSession): string[] {
  if (!loaded.tailRepair) return [];
  try {
    writer.append({ type: 'message', message: loaded.tailRepair });
    return [];
  } catch (error) {
    return [`could not record the repair in ${writer.path}: ${errorMessage(error)}`];
  }
}

/** A resumed transcript read after the first frame (openSession's `deferAfter`). */
export interface DeferredTranscript {
  /** Its newest messages, from a prompt on (readTranscriptTail). */
  preview: readonly Message[];
  loading: SessionLoading;
}

export interface OpenedSession {
  writer: SessionWriter;
  messages: Message[];
  warnings: string[];
  usage: RecordedUsage;
  /** The name the user gave the session, if any. */
  name?: string;
  checkpoints?: LoadedSession['checkpoints'];
  /** Set when the transcript is read later: `messages`, `usage` and `warnings` are empty. */
  deferred?: DeferredTranscript;
}

/** Whether `path` lies inside the directory `root`. */
function isInside(path: string, root: string): boolean {
  const rel = relative(resolve(root), resolve(path));
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/**
 * Appends entries to one session file. The file is created lazily with the first entry, so a
 * run without a prompt leaves nothing behind; an existing file must be a zot session or empty
 * (checkSessionFile). Modes are zot's to set only on what it made: a new file is 0600, and an
 * existing one is tightened (with its directory) only inside `sessionsRoot`, zot's own
 * directory of sessions.
 * Contract: each append is one synchronous write of whole lines; a crash loses at most the
 * entry being written; the constructor throws like checkSessionFile.
 */
export class SessionWriter {
  private started: boolean;
  private readonly ours: boolean;

  constructor(
    readonly path: string,
    private readonly header: () => SessionEntry,
    sessionsRoot?: string,
  ) {
    this.ours = sessionsRoot !== undefined && isInside(path, sessionsRoot);
    this.started = existsSync(path) && checkSessionFile(path);
    if (this.started) {
      this.repairTail();
      if (this.ours) this.tighten();
    }
  }

  /** Transcripts hold what interceptors redacted: one of ours left readable by others is tightened. */
  private tighten(): void {
    try {
      if (!lstatSync(this.path).isFile()) return; // a symlink: its target is not ours to change
      tightenMode(this.path);
      tightenMode(dirname(this.path));
    } catch {
      // Not ours to change (another owner); reading and appending still work.
    }
  }

  /** A file cut mid-line would glue our next entry onto garbage: end it with a newline first. */
  private repairTail(): void {
    const size = statSync(this.path).size;
    if (size === 0) return;
    const fd = openSync(this.path, 'r');
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    closeSync(fd);
    if (last[0] !== 0x0a) appendFileSync(this.path, '\n');
  }

  append(entry: SessionEntry): void {
    let text = JSON.stringify(entry) + '\n';
    // A file that appeared since the check is checked as any other.
    if (!this.started && !(existsSync(this.path) && checkSessionFile(this.path))) {
      // Directories zot makes are private; one that exists elsewhere is the user's, left as it is.
      if (this.ours) ensurePrivateDir(dirname(this.path));
      else mkdirSync(dirname(this.path), { recursive: true, mode: PRIVATE_DIR_MODE });
      text = JSON.stringify(this.header()) + '\n' + text;
    }
    this.started = true;
    appendFileSync(this.path, text, { mode: 0o600 });
  }

  get exists(): boolean {
    return this.started;
  }
}
