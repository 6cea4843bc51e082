// Session files: one JSONL transcript per run under sessions/<cwd-key>/, appended per message.
import {
  appendFileSync,
  closeSync,
  constants,
  existsSync,
  fstatSync,
  openSync,
  readdirSync,
  readSync,
  statSync,
  type Stats,
} from 'node:fs';
import { basename, join } from 'node:path';
import { ensurePrivateDir, tightenMode } from '../util/private-fs.js';
import type { Message } from '../providers/types.js';
import { errorMessage } from '../util/errors.js';
import type { SessionEntry } from './entries.js';
import { loadSessionText, type LoadedSession } from './load.js';
import { UsageTally, type RecordedUsage } from './recorded-usage.js';
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

function kindOf(stat: Stats): string {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * Reads a session file: a regular file of at most `limit` bytes. Opened non-blocking so that a
 * FIFO cannot hang the open, checked with fstat on the opened descriptor (no race with a swap),
 * read no further than the size fstat gave.
 * Contract: throws an Error naming the file (and the limit) when it cannot be used.
 */
export function readSessionFile(path: string, limit = MAX_SESSION_BYTES): Buffer {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? errorMessage(error);
    throw new Error(`cannot read session file ${path} (${code})`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) {
      throw new Error(
        `session file ${path} is ${kindOf(stat)}; sessions are regular files only ` +
          `(give --session a .jsonl file, or leave it out to start a new session)`,
      );
    }
    if (stat.size > limit) {
      throw new Error(
        `session file ${path} is ${mib(stat.size)}, over the ${mib(limit)} limit; ` +
          `start a new session (without -c/--session) or move the file away`,
      );
    }
    const buffer = Buffer.allocUnsafe(stat.size);
    let filled = 0;
    while (filled < buffer.length) {
      const read = readSync(fd, buffer, filled, buffer.length - filled, filled);
      if (read === 0) break; // the file shrank meanwhile
      filled += read;
    }
    return buffer.subarray(0, filled);
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
 * Contract: throws like loadSession; a failed write-back is one more warning.
 */
export function openSession(path: string, header: () => SessionEntry): OpenedSession {
  const loaded: LoadedSession = existsSync(path)
    ? loadSession(path)
    : { messages: [], usage: new UsageTally().result(), warnings: [] };
  const writer = new SessionWriter(path, header);
  const { messages, warnings, usage } = loaded;
  if (loaded.tailRepair) {
    try {
      writer.append({ type: 'message', message: loaded.tailRepair });
    } catch (error) {
      warnings.push(`could not record the repair in ${path}: ${errorMessage(error)}`);
    }
  }
  return { writer, messages, warnings, usage };
}

export interface OpenedSession {
  writer: SessionWriter;
  messages: Message[];
  warnings: string[];
  usage: RecordedUsage;
}

/**
 * Appends entries to one session file. The file is created lazily with the first entry, so a
 * run without a prompt leaves nothing behind.
 * Contract: each append is one synchronous write of whole lines; a crash loses at most the
 * entry being written.
 */
export class SessionWriter {
  private started: boolean;

  constructor(
    readonly path: string,
    private readonly header: () => SessionEntry,
  ) {
    this.started = existsSync(path);
    if (this.started) {
      this.repairTail();
      // Transcripts hold what interceptors redacted: a file left readable by others is tightened.
      try {
        tightenMode(path);
        tightenMode(join(path, '..'));
      } catch {
        // Not ours to change (another owner); reading and appending still work.
      }
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
    if (!this.started) {
      ensurePrivateDir(join(this.path, '..'));
      text = JSON.stringify(this.header()) + '\n' + text;
      this.started = true;
    }
    appendFileSync(this.path, text, { mode: 0o600 });
  }

  get exists(): boolean {
    return this.started;
  }
}
