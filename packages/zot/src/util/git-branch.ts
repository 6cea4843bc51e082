// The git branch of a directory, for the status bar: read from .git/HEAD (no `git` process),
// walking up to the repository root; worktrees and submodules (a `.git` file) included.
import { readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';

/** HEAD files are tiny; anything bigger is not one. */
const MAX_HEAD_BYTES = 4096;

function gitDir(start: string): string | undefined {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    const dotGit = join(dir, '.git');
    try {
      const stat = statSync(dotGit);
      if (stat.isDirectory()) return dotGit;
      if (stat.isFile() && stat.size <= MAX_HEAD_BYTES) {
        const match = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, 'utf8'));
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
    const head = join(dir, 'HEAD');
    if (statSync(head).size > MAX_HEAD_BYTES) return undefined;
    const text = readFileSync(head, 'utf8').trim();
    const ref = /^ref:\s*refs\/heads\/(.+)$/.exec(text);
    if (ref) return ref[1];
    return /^[0-9a-f]{7,64}$/i.test(text) ? text.slice(0, 7) : undefined;
  } catch {
    return undefined;
  }
}
