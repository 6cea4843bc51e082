// The project a directory belongs to: the nearest directory above it (itself included) that
// holds a `.git` of any kind, so a submodule or a worktree is a project of its own (unlike
// util/repository.ts, which goes on to the superproject), or the directory itself outside a
// repository. Files read from a project (context files, skills) must lie inside it once
// symlinks are resolved.
import { lstatSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** Contract: never throws; no git process. */
export function projectRoot(cwd: string): string {
  const start = resolve(cwd);
  for (let at = start; ; at = dirname(at)) {
    try {
      lstatSync(join(at, '.git'));
      return at;
    } catch {
      // no .git here: look further up
    }
    if (dirname(at) === at) return start;
  }
}
