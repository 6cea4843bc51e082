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
 * link is followed to where it points (a write through it creates its target). Never throws.
 */
export function realPath(absolute: string): string {
  const rest: string[] = [];
  let current = absolute;
  for (let hops = 0; ; ) {
    try {
      const real = realpathSync.native(current);
      return rest.length === 0 ? real : join(real, ...[...rest].reverse());
    } catch {
      const link = readLink(current);
      if (link !== undefined && hops++ < 40) {
        current = resolve(dirname(current), link);
        continue;
      }
      const parent = dirname(current);
      if (parent === current) return absolute;
      rest.push(basename(current));
      current = parent;
    }
  }
}

function readLink(path: string): string | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : undefined;
  } catch {
    return undefined;
  }
}

/** Writes to these never reach a file. */
export const HARMLESS_DEVICES = /^\/dev\/(null|stdout|stderr|stdin|tty|fd\/\d+)$/;
