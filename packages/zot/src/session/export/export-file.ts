// Exporting a session to a file: which session, which format, where it goes. Shared by `/export`
// (every mode) and `zot export`.
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, extname, join, resolve } from 'node:path';
import { ErrorWithKind } from '../../contract/errors.js';
import type { Message } from '../../providers/types.js';
import { readSessionFile, sessionDir } from '../store.js';
import { documentFromMessages, documentFromSessionBytes, type ExportDocument } from './document.js';
import { renderHtml } from './html.js';
import { renderMarkdown } from './markdown.js';

export type ExportFormat = 'html' | 'md';

/** The format a file name asks for: Markdown for .md/.markdown, HTML otherwise. */
export function formatOfPath(path: string): ExportFormat {
  const ext = extname(path).toLowerCase();
  return ext === '.md' || ext === '.markdown' ? 'md' : 'html';
}

/** `zot-session-<session file name>.<ext>`, or a timestamp for a session with no file. */
export function defaultExportName(sessionFile: string | undefined, format: ExportFormat): string {
  const stem = sessionFile
    ? basename(sessionFile).replace(/\.jsonl$/, '')
    : new Date().toISOString().replace(/[:.]/g, '-');
  return `zot-session-${stem.replace(/[^A-Za-z0-9._-]/g, '_')}.${format}`;
}

/** The export of a session file. Contract: throws an Error naming the file when it cannot be read. */
export function documentOfFile(file: string): ExportDocument {
  return documentFromSessionBytes(readSessionFile(file), file);
}

/** What a running session exports: its file when one was written, else the transcript it holds. */
export function documentOfSession(about: {
  file: string | undefined;
  messages: readonly Message[];
  cwd: string;
  model: string;
  name?: string;
}): ExportDocument {
  if (about.file && existsSync(about.file)) return documentOfFile(about.file);
  return documentFromMessages(about.messages, about);
}

export function renderExport(doc: ExportDocument, format: ExportFormat): string {
  return format === 'md' ? renderMarkdown(doc) : renderHtml(doc);
}

/** Writes an export. Contract: throws an Error naming the file and what to do when it cannot. */
export function writeExport(path: string, text: string): void {
  try {
    writeFileSync(path, text);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new Error(`cannot write the export to ${path} (${code}); give another file name`);
  }
}

/** How many messages an export holds (for the confirmation line). */
export function messageCount(doc: ExportDocument): number {
  return doc.items.filter((item) => item.kind === 'message' && item.message.role !== 'tool').length;
}

/**
 * The session file `ref` names for the directory `cwd`: an existing path, else a session of
 * `cwd` whose file name is `ref` (with or without .jsonl) or ends with `_ref` (the random part)
 * or starts with it (a timestamp prefix). Contract: throws ErrorWithKind('not_found') naming
 * what was looked for, or an Error listing the candidates when `ref` is ambiguous.
 */
export function findSessionFile(ref: string, sessionsRoot: string, cwd: string): string {
  if (existsSync(ref)) return resolve(ref);
  const dir = sessionDir(sessionsRoot, cwd);
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.jsonl'));
  } catch {
    // no sessions of this directory
  }
  const id = ref.replace(/\.jsonl$/, '');
  const exact = names.filter((name) => name === `${id}.jsonl`);
  const matches =
    exact.length > 0
      ? exact
      : names.filter((name) => {
          const stem = name.slice(0, -'.jsonl'.length);
          return stem.endsWith(`_${id}`) || stem.startsWith(id);
        });
  const files = matches
    .map((name) => join(dir, name))
    .filter((path) => {
      try {
        return statSync(path).isFile();
      } catch {
        return false;
      }
    });
  if (files.length === 1) return files[0]!;
  if (files.length === 0)
    throw new ErrorWithKind(
      'not_found',
      `no session file ${ref}, and no session of ${cwd} has that id (zot rewind --list or /sessions show them)`,
    );
  throw new Error(
    `${ref} names ${files.length} sessions of ${cwd}: ${files
      .slice(0, 5)
      .map((file) => basename(file, '.jsonl'))
      .join(', ')}${files.length > 5 ? ', …' : ''}; give more of the id`,
  );
}
