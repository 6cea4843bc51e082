// Files only the user may read (extension logs, session transcripts): 0700 directories and
// 0600 files, tightened when they already exist with wider modes.
import { chmodSync, mkdirSync, statSync } from 'node:fs';

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
