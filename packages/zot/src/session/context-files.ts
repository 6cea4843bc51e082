// Project context files: AGENTS.md (or CLAUDE.md where a directory has no AGENTS.md) from the
// repository root down to the working directory, farthest first, nearest last, so the most
// specific instructions come last. Without a repository, only the working directory counts.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { readHead } from '../util/read-head.js';

/** Per file; the rest is cut with a note (documented in README, "Project context files"). */
export const MAX_CONTEXT_FILE_BYTES = 64 * 1024;

export interface ContextFile {
  path: string;
  text: string;
  truncated: boolean;
}

function repositoryRoot(cwd: string): string | undefined {
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

function readBounded(path: string): ContextFile | undefined {
  const head = readHead(path, MAX_CONTEXT_FILE_BYTES);
  if (!head) return undefined;
  let text = head.bytes.toString('utf8');
  // A cut file ends at its last whole line: never inside a line or a character.
  if (head.more) text = text.slice(0, Math.max(0, text.lastIndexOf('\n')));
  return { path, text: text.trim(), truncated: head.more };
}

/** The context files for `cwd`, farthest first. Contract: never throws. */
export function findContextFiles(cwd: string): ContextFile[] {
  const start = resolve(cwd);
  const root = repositoryRoot(start) ?? start;
  const dirs: string[] = [];
  for (let dir = start; ; dir = dirname(dir)) {
    dirs.unshift(dir);
    if (dir === root || dirname(dir) === dir) break;
  }
  const files: ContextFile[] = [];
  for (const dir of dirs) {
    const file = readBounded(join(dir, 'AGENTS.md')) ?? readBounded(join(dir, 'CLAUDE.md'));
    if (file && file.text !== '') files.push(file);
  }
  return files;
}

/** The system prompt section for the files, each under a heading naming its path. */
export function contextSection(files: ContextFile[]): string {
  if (files.length === 0) return '';
  const parts = files.map(
    (file) =>
      `## ${file.path}\n\n${file.text}` +
      (file.truncated
        ? `\n\n[cut at ${MAX_CONTEXT_FILE_BYTES / 1024} KiB; read the file for the rest]`
        : ''),
  );
  return `# Project context\n\nInstructions from the project's context files (nearest last):\n\n${parts.join('\n\n')}`;
}
