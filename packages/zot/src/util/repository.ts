// Where a directory's repository and project are, found as git finds a repository: an ancestor
// holding `.git`. One place for the walk, so that context files, skills, trust and caches agree.
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

/**
 * The project `cwd` belongs to: the nearest directory above it (itself included) holding a
 * `.git` of any kind, so a submodule or a worktree is a project of its own (unlike
 * repositoryRoot), or `cwd` itself outside a repository. Files zot reads from a project
 * (context files, skills) are looked for up to it and must lie inside it once symlinks are
 * resolved. Contract: never throws; no git process.
 */
export function projectRoot(cwd: string): string {
  const start = resolve(cwd);
  for (let at = start; ; at = dirname(at)) {
    if (present(join(at, '.git'))) return at;
    if (dirname(at) === at) return start;
  }
}

/** `cwd` and every directory above it up to its project root, nearest first. */
export function projectDirs(cwd: string): string[] {
  const start = resolve(cwd);
  const root = projectRoot(start);
  const dirs: string[] = [];
  for (let dir = start; ; dir = dirname(dir)) {
    dirs.push(dir);
    if (dir === root || dirname(dir) === dir) return dirs;
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
