// The repository a directory belongs to, found as git finds it: an ancestor holding `.git`.
import { lstatSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * The repository enclosing `start`: the nearest ancestor (or `start` itself) whose `.git` is a
 * directory. A `.git` file (a worktree or a submodule) is noted and the search goes
 * on, so a submodule belongs to its superproject; a worktree outside any other repository is
 * its own root. Undefined outside any repository. Contract: never throws; no git process.
 */
export function repositoryRoot(start: string): string | undefined {
  let found: string | undefined;
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    const dotGit = join(dir, '.git');
    if (present(dotGit)) {
      found = dir;
      if (isDirectory(dotGit)) return dir;
    }
    if (dirname(dir) === dir) return found;
  }
}

function present(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
