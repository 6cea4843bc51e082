// Project context files: AGENTS.md (or CLAUDE.md where a directory has no AGENTS.md) from the
// repository root down to the working directory, farthest first, nearest last, so the most
// specific instructions come last. Without a repository, only the working directory counts.
// Skills are looked for in the same directories (tools/skills/catalog.ts).
// Each file must lie inside that project once symlinks are resolved: a committed AGENTS.md that
// links to ~/.ssh/config or another file outside would go to the provider with every request.
import { join } from 'node:path';
import { projectDirs, projectRoot } from '../util/repository.js';
import { readRegularText } from '../util/regular-file.js';

/** Per file; the rest is cut with a note (documented in README, "Project context files"). */
export const MAX_CONTEXT_FILE_BYTES = 64 * 1024;

export interface ContextFile {
  path: string;
  text: string;
  truncated: boolean;
}

/**
 * One context file, or undefined when there is none; a file that exists but cannot be used (a
 * FIFO, a link out of the project ...) is skipped with a warning naming it.
 */
function readBounded(
  path: string,
  root: string,
  warn: (message: string) => void,
): ContextFile | undefined {
  const read = readRegularText(path, { limit: MAX_CONTEXT_FILE_BYTES, over: 'cut', within: root });
  if (!read.ok) {
    if (!read.missing) warn(`context file skipped: ${read.error}`);
    return undefined;
  }
  let text = read.text;
  // A cut file ends at its last whole line: never inside a line or a character.
  if (read.more) text = text.slice(0, Math.max(0, text.lastIndexOf('\n')));
  return { path, text: text.trim(), truncated: read.more };
}

/**
 * The context files for `cwd`, farthest first; `warn` hears of each one skipped.
 * Contract: never throws.
 */
export function findContextFiles(
  cwd: string,
  warn: (message: string) => void = () => undefined,
): ContextFile[] {
  const root = projectRoot(cwd);
  const files: ContextFile[] = [];
  for (const dir of projectDirs(cwd).reverse()) {
    const file =
      readBounded(join(dir, 'AGENTS.md'), root, warn) ??
      readBounded(join(dir, 'CLAUDE.md'), root, warn);
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
