// This directory's session files as the runtime sees them: list (for /sessions), open (resume),
// create (/new), rename and delete. Each file is read through the same bounded loader as
// `--session`.
import { existsSync, lstatSync, readdirSync, statSync, unlinkSync, utimesSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { textOf } from '../agent/content-text.js';
import { errorMessage } from '../util/errors.js';
import { ErrorWithKind } from '../contract/errors.js';
import type { SessionEntry } from './entries.js';
import {
  checkSessionFile,
  loadSession,
  newSessionPath,
  openSession,
  sessionDir,
  SessionWriter,
} from './store.js';
import type { OpenedSession } from './store.js';
export type { RecordedUsage } from './recorded-usage.js';

export type { SessionSummary } from '../contract/summaries.js';
import type { SessionSummary } from '../contract/summaries.js';

export interface SessionFiles {
  /** Newest first, at most MAX_LISTED. Contract: never throws. */
  list(): SessionSummary[];
  /** Contract: throws an Error naming the file when it cannot be used. */
  open(path: string): OpenedSession;
  create(): SessionWriter;
  /**
   * Names a session; returns the name as kept (trimmed). The file keeps its modification time,
   * so a rename does not move the session to the top of the list.
   * Contract: throws an Error for an empty or multi-line name, or naming the file.
   */
  rename(path: string, name: string): string;
  /**
   * Deletes a session file of this directory. Contract: throws an Error naming the file when it
   * is not one of this directory's zot session files (a path from elsewhere is never deleted).
   */
  delete(path: string): void;
}

/** Enough for any directory a person browses; older files stay on disk. */
export const MAX_LISTED = 200;
const MAX_NAME = 100;

/** `name` trimmed, as a session is named. Contract: throws saying what is wrong with it. */
export function sessionName(name: string): string {
  const clean = name.trim();
  if (clean === '') throw new Error('a session name cannot be empty');
  if (/[\p{Cc}]/u.test(clean)) throw new Error('a session name is one line of plain text');
  if (clean.length > MAX_NAME) throw new Error(`a session name has at most ${MAX_NAME} characters`);
  return clean;
}

export function sessionFiles(root: string, cwd: string, header: () => SessionEntry): SessionFiles {
  const dir = sessionDir(root, cwd);
  return {
    list: () => listSessions(dir),
    open(path) {
      if (!existsSync(path)) throw new ErrorWithKind('not_found', `no session file at ${path}`);
      return openSession(path, header, root);
    },
    create: () => new SessionWriter(newSessionPath(root, cwd), header, root),
    rename(path, name) {
      const clean = sessionName(name);
      if (!existsSync(path)) throw new Error(`no session file at ${path}`);
      const before = statSync(path);
      // The writer checks the file as a resume does: a regular file, a zot session.
      new SessionWriter(path, header, root).append({
        type: 'name',
        time: new Date().toISOString(),
        name: clean,
      });
      try {
        utimesSync(path, before.atime, before.mtime);
      } catch {
        // The name is kept; the session only moves up the list.
      }
      return clean;
    },
    delete(path) {
      const full = resolve(path);
      if (dirname(full) !== resolve(dir) || !full.endsWith('.jsonl'))
        throw new Error(`${path} is not one of this directory's sessions; nothing was deleted`);
      if (!lstatSync(full, { throwIfNoEntry: false })?.isFile())
        throw new Error(`no session file at ${path}`);
      // Refuses a file that is not a zot session (checkSessionFile names why).
      checkSessionFile(full);
      unlinkSync(full);
    },
  };
}

/** The recorded sessions of `cwd`, newest first (ACP's session/list). Contract: never throws. */
export function listSessionsOf(root: string, cwd: string): SessionSummary[] {
  return listSessions(sessionDir(root, cwd));
}

function listSessions(dir: string): SessionSummary[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const files: Array<{ path: string; mtime: number }> = [];
  for (const name of names) {
    if (!name.endsWith('.jsonl')) continue;
    const path = join(dir, name);
    try {
      const stat = statSync(path);
      if (stat.isFile()) files.push({ path, mtime: stat.mtimeMs });
    } catch {
      // vanished or unreadable: not listed
    }
  }
  files.sort((a, b) => b.mtime - a.mtime || b.path.localeCompare(a.path));
  return files.slice(0, MAX_LISTED).map(({ path, mtime }) => summarise(path, mtime));
}

function summarise(path: string, mtime: number): SessionSummary {
  const modified = new Date(mtime).toISOString();
  try {
    const loaded = loadSession(path);
    const first = loaded.messages.find((message) => message.role === 'user');
    const prompt = first ? textOf(first.content).trim().split('\n')[0]!.slice(0, 200) : '';
    return {
      path,
      ...(loaded.name !== undefined ? { name: loaded.name } : {}),
      modified,
      ...(loaded.usage.model !== undefined ? { model: loaded.usage.model } : {}),
      message_count: loaded.messages.length,
      answered: loaded.messages.some(
        (message) => message.role === 'assistant' && message.content.length > 0,
      ),
      cost_usd: loaded.usage.totals.cost_usd,
      ...(loaded.tree.branchCount > 1 ? { branches: loaded.tree.branchCount } : {}),
      first_prompt: prompt,
    };
  } catch (error) {
    return {
      path,
      modified,
      message_count: 0,
      answered: false,
      cost_usd: 0,
      first_prompt: '',
      error: errorMessage(error),
    };
  }
}
