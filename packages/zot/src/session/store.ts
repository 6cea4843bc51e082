// Session files: one JSONL transcript per run under sessions/<cwd-key>/, appended per message.
import { createHash, randomBytes } from 'node:crypto';
import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  statSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import type { Message } from '../providers/types.js';

export const SESSION_FORMAT_VERSION = 1;

/** A non-model line of the session file (compaction marker, audit record, ...). */
export type SessionEntry =
  | {
      type: 'session';
      version: number;
      cwd: string;
      created: string;
      provider: string;
      model: string;
    }
  | { type: 'message'; message: Message }
  | { type: 'compaction'; time: string; summary: string; kept: number }
  | { type: 'clear'; time: string }
  | { type: string; [key: string]: unknown };

export interface LoadedSession {
  messages: Message[];
  warnings: string[];
}

export function cwdKey(cwd: string): string {
  const name =
    basename(cwd)
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .slice(0, 40) || 'root';
  const hash = createHash('sha256').update(cwd).digest('hex').slice(0, 12);
  return `${name}-${hash}`;
}

export function sessionDir(sessionsRoot: string, cwd: string): string {
  return join(sessionsRoot, cwdKey(cwd));
}

export function newSessionPath(sessionsRoot: string, cwd: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return join(sessionDir(sessionsRoot, cwd), `${stamp}_${randomBytes(3).toString('hex')}.jsonl`);
}

/** The most recently written session of `cwd`, if any. */
export function newestSession(sessionsRoot: string, cwd: string): string | undefined {
  const dir = sessionDir(sessionsRoot, cwd);
  if (!existsSync(dir)) return undefined;
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.jsonl'))
    .map((name) => ({ path: join(dir, name), mtime: statSync(join(dir, name)).mtimeMs, name }))
    .sort((a, b) => b.mtime - a.mtime || b.name.localeCompare(a.name));
  return files[0]?.path;
}

export function summaryMessage(summary: string, time: string): Message {
  return {
    role: 'user',
    content: [
      { type: 'text', text: `Summary of the earlier conversation (compacted):\n\n${summary}` },
    ],
    time,
  };
}

function isMessage(value: unknown): value is Message {
  if (value === null || typeof value !== 'object') return false;
  const role = (value as { role?: unknown }).role;
  return (
    (role === 'user' || role === 'assistant' || role === 'tool') &&
    Array.isArray((value as Message).content)
  );
}

/**
 * Rebuilds the transcript from a session file.
 * Contract: never throws for bad content; unreadable lines (e.g. a line cut by a crash) are
 * skipped with a warning naming the file and line. Throws only when the file cannot be read.
 */
export function loadSession(path: string): LoadedSession {
  const text = readFileSync(path, 'utf8');
  let messages: Message[] = [];
  const warnings: string[] = [];
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    let entry: SessionEntry;
    try {
      entry = JSON.parse(line) as SessionEntry;
    } catch {
      const where = index === lines.length - 1 ? 'trailing line' : 'line';
      warnings.push(`${path}: skipped unreadable ${where} ${index + 1} (cut short by a crash?)`);
      return;
    }
    if (entry.type === 'message' && isMessage((entry as { message?: unknown }).message)) {
      messages.push((entry as { message: Message }).message);
    } else if (entry.type === 'compaction') {
      const { summary, kept, time } = entry as { summary: string; kept: number; time: string };
      messages = [
        summaryMessage(String(summary), String(time)),
        ...(kept > 0 ? messages.slice(-kept) : []),
      ];
    } else if (entry.type === 'clear') {
      messages = [];
    } else if (entry.type === 'message') {
      warnings.push(`${path}: skipped malformed message on line ${index + 1}`);
    }
  });
  return { messages, warnings };
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
    if (this.started) this.repairTail();
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
      mkdirSync(join(this.path, '..'), { recursive: true, mode: 0o700 });
      text = JSON.stringify(this.header()) + '\n' + text;
      this.started = true;
    }
    appendFileSync(this.path, text, { mode: 0o600 });
  }

  get exists(): boolean {
    return this.started;
  }
}
