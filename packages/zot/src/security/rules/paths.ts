// Paths as the rules see them: absolute, and with symbolic links resolved, so that a link
// cannot walk around a rule. A path that does not exist yet resolves through its deepest
// existing ancestor (where it would be created).
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';

/** `~` and `~/x` expand to `home`; relative paths resolve against `cwd`. */
export function absolutePath(cwd: string, path: string, home: string): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  return isAbsolute(path) ? resolve(path) : resolve(cwd, path);
}

/**
 * The real path of `absolute`, or of its deepest existing ancestor plus the rest. A dangling
 * link is followed to where it points (a write through it creates its target). `cache` keeps
 * directories resolved during one judgement. Never throws.
 */
export function realPath(absolute: string, cache?: Map<string, string>, hops = 0): string {
  const known = cache?.get(absolute);
  if (known !== undefined) return known;
  let real: string;
  // lstat first: a path that does not exist costs no exception
  const stat = lstatOf(absolute);
  const parent = dirname(absolute);
  if (stat?.isSymbolicLink() && hops < 40) {
    real = realPath(resolve(parent, readLink(absolute) ?? ''), cache, hops + 1);
  } else if (stat) {
    try {
      real = realpathSync.native(absolute);
    } catch {
      real =
        parent === absolute ? absolute : join(realPath(parent, cache, hops), basename(absolute));
    }
  } else if (parent === absolute) real = absolute;
  else real = join(realPath(parent, cache, hops), basename(absolute));
  cache?.set(absolute, real);
  return real;
}

function lstatOf(path: string) {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined; // not a directory on the way, no permission: as if absent
  }
}

function readLink(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

/** Writes to these never reach a file. */
export const HARMLESS_DEVICES = /^\/dev\/(null|stdout|stderr|stdin|tty|fd\/\d+)$/;
