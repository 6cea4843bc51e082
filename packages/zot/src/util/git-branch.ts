// The git branch of a directory, for the status bar: read from .git/HEAD (no `git` process),
// walking up to the repository root; worktrees and submodules (a `.git` file) included.
import { statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { readRegularText } from './regular-file.js';

/** HEAD files are tiny; anything bigger is not one. */
const MAX_HEAD_BYTES = 4096;

function gitDir(start: string): string | undefined {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    const dotGit = join(dir, '.git');
    try {
      const stat = statSync(dotGit);
      if (stat.isDirectory()) return dotGit;
      if (stat.isFile()) {
        const read = readRegularText(dotGit, { limit: MAX_HEAD_BYTES });
        const match = read.ok ? /^gitdir:\s*(.+?)\s*$/m.exec(read.text) : null;
        if (match) return isAbsolute(match[1]!) ? match[1]! : resolve(dir, match[1]!);
      }
    } catch {
      // no .git here: look further up
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * The branch checked out in `cwd`'s repository; the short commit for a detached HEAD;
 * undefined outside a repository. Contract: never throws.
 */
export function gitBranch(cwd: string): string | undefined {
  try {
    const dir = gitDir(cwd);
    if (!dir) return undefined;
    // A project's HEAD may be anything, a FIFO included: read without blocking, bounded.
    const read = readRegularText(join(dir, 'HEAD'), { limit: MAX_HEAD_BYTES });
    if (!read.ok) return undefined;
    const text = read.text.trim();
    const ref = /^ref:\s*refs\/heads\/(.+)$/.exec(text);
    if (ref) return ref[1];
    return /^[0-9a-f]{7,64}$/i.test(text) ? text.slice(0, 7) : undefined;
  } catch {
    return undefined;
  }
}
