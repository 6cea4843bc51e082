// Project context files: AGENTS.md (or CLAUDE.md where a directory has no AGENTS.md) from the
// repository root down to the working directory, farthest first, nearest last, so the most
// specific instructions come last. Without a repository, only the working directory counts.
import { existsSync, openSync, readSync, closeSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

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
  try {
    if (!statSync(path).isFile()) return undefined;
    const fd = openSync(path, 'r');
    try {
      const buffer = Buffer.alloc(MAX_CONTEXT_FILE_BYTES + 1);
      const read = readSync(fd, buffer, 0, buffer.length, 0);
      const truncated = read > MAX_CONTEXT_FILE_BYTES;
      // Cut on a line boundary, never inside a character.
      let text = buffer.subarray(0, Math.min(read, MAX_CONTEXT_FILE_BYTES)).toString('utf8');
      if (truncated)
        text = text.slice(0, Math.max(0, text.lastIndexOf('\n'))).replace(/\uFFFD$/, '');
      return { path, text: text.trim(), truncated };
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
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
