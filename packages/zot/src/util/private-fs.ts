// Files only the user may read (extension logs, session transcripts, saved tool outputs): 0700
// directories and 0600 files, tightened when they already exist with wider modes.
import { chmodSync, lstatSync, mkdirSync, statSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Strips the group and other permission bits of `path`, if it exists. Contract: throws like chmod. */
export function tightenMode(path: string): void {
  let mode: number;
  try {
    mode = statSync(path).mode & 0o7777;
  } catch {
    return;
  }
  if ((mode & 0o077) !== 0) chmodSync(path, mode & ~0o077);
}

/** Creates `dir` (missing parents too) 0700, or tightens it when it exists. Contract: throws like mkdir. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  tightenMode(dir);
}

const octal = (mode: number) => `0${(mode & 0o7777).toString(8)}`;

/** What keeps `stat` (of `path`) from being a directory only this user controls, if anything. */
function notPrivate(path: string, stat: Stats, uid: number): string | undefined {
  if (stat.isSymbolicLink()) return `${path} is a symbolic link`;
  if (!stat.isDirectory()) return `${path} is not a directory`;
  if (stat.uid !== uid) return `${path} belongs to another user (uid ${stat.uid})`;
  return undefined;
}

/**
 * Makes `dir` a directory that only this user can use, for files others must neither read nor
 * plant: created 0700 (with missing parents) when absent; when present, a real directory (not
 * a symlink) owned by this user, tightened to 0700 if wider; and its parent must not let
 * another user swap it (owned by this user or root, writable by no one else unless sticky).
 * Contract: throws an Error naming the directory, what is wrong and what to do.
 */
export function ensureOwnedPrivateDir(dir: string): void {
  const parentDir = dirname(dir);
  mkdirSync(parentDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const fix = 'remove it or set another directory (XDG_RUNTIME_DIR or ZOT_HOME)';
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (uid !== undefined) {
    const parent = statSync(parentDir); // a symlinked home (~/.local/state -> /data) is fine
    if (parent.uid !== uid && parent.uid !== 0) {
      throw new Error(`${parentDir} belongs to another user (uid ${parent.uid}): ${fix}`);
    }
    const sticky = (parent.mode & 0o1000) !== 0;
    if ((parent.mode & 0o022) !== 0 && !sticky) {
      throw new Error(
        `${parentDir} is writable by other users (mode ${octal(parent.mode)}): ${fix}`,
      );
    }
  }
  try {
    mkdirSync(dir, { mode: PRIVATE_DIR_MODE });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  if (uid === undefined) return; // Windows: modes and owners say little
  const problem = notPrivate(dir, lstatSync(dir), uid);
  if (problem) throw new Error(`${problem}; zot keeps private files there: ${fix}`);
  tightenMode(dir);
}
