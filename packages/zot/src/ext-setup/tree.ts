// Walking an extension directory for trust hashing and install copying: every entry listed
// with its kind and mode, symlinks kept as links but never allowed to leave the tree.
import { lstatSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { errorMessage } from '../util/errors.js';
import { compareCodeUnits } from './discovery.js';
import { isInside } from './manifest.js';

export type TreeEntryKind = 'dir' | 'file' | 'symlink';

export interface TreeEntry {
  /** Relative to the root, with `/` separators on every platform. */
  rel: string;
  abs: string;
  kind: TreeEntryKind;
  /** Permission bits (`mode & 0o777`). */
  mode: number;
  /** Bytes for files, 0 otherwise. */
  size: number;
  /** The link text, for symlinks. */
  target?: string;
}

export interface TreeLimits {
  maxEntries: number;
  maxBytes: number;
}

/** Generous for any real extension (node_modules included), small enough to stop runaways. */
export const DEFAULT_TREE_LIMITS: TreeLimits = { maxEntries: 20_000, maxBytes: 512 * 1024 * 1024 };

export interface WalkOptions {
  limits?: TreeLimits;
  /** Counts shared by several walks under one set of limits; updated as entries are listed. */
  used?: { entries: number; bytes: number };
  /** What the limit errors name instead of `root` (e.g. when `used` spans several trees). */
  subject?: string;
  /**
   * Relative paths (with `/`) to leave out, with everything below them. A symlink leading into
   * one is refused: what the walk leaves out must not be reachable through what it lists.
   */
  exclude?: (rel: string) => boolean;
}

export type WalkResult =
  | { ok: true; root: string; entries: TreeEntry[] }
  | { ok: false; error: string };

/**
 * Lists everything below `root` (the root itself excluded), sorted by relative path.
 * Refuses symlinks that point outside the tree or into an excluded part (lexically or after
 * resolution), anything that is not a directory, regular file or symlink, and trees over the
 * limits.
 * Contract: never throws; symlinks are not followed; errors name the offending path.
 */
export function walkTree(root: string, options: WalkOptions = {}): WalkResult {
  const limits = options.limits ?? DEFAULT_TREE_LIMITS;
  let realRoot: string;
  try {
    realRoot = realpathSync(resolve(root));
    if (!lstatSync(realRoot).isDirectory())
      return { ok: false, error: `${root} is not a directory` };
  } catch (error) {
    return { ok: false, error: `cannot open ${root}: ${errorMessage(error)}` };
  }
  const entries: TreeEntry[] = [];
  const used = options.used ?? { entries: 0, bytes: 0 };
  const subject = options.subject ?? root;
  const pending: string[] = [''];
  while (pending.length > 0) {
    const relDir = pending.pop()!;
    const absDir = relDir === '' ? realRoot : join(realRoot, ...relDir.split('/'));
    let names: string[];
    try {
      names = readdirSync(absDir);
    } catch (error) {
      return { ok: false, error: `cannot read ${absDir}: ${errorMessage(error)}` };
    }
    for (const name of names) {
      const rel = relDir === '' ? name : `${relDir}/${name}`;
      if (options.exclude?.(rel)) continue;
      const abs = join(absDir, name);
      if (used.entries >= limits.maxEntries) {
        return {
          ok: false,
          error: `${subject} has more than ${limits.maxEntries} files and directories; refusing to process such a large tree (remove build output or caches from it)`,
        };
      }
      const entry = describe(realRoot, rel, abs, options.exclude);
      if ('error' in entry) return { ok: false, error: entry.error };
      used.entries++;
      used.bytes += entry.size;
      if (used.bytes > limits.maxBytes) {
        return {
          ok: false,
          error: `${subject} holds more than ${Math.round(limits.maxBytes / 1024 / 1024)} MiB; refusing to process such a large tree (remove build output or caches from it)`,
        };
      }
      entries.push(entry);
      if (entry.kind === 'dir') pending.push(rel);
    }
  }
  entries.sort((a, b) => compareCodeUnits(a.rel, b.rel));
  return { ok: true, root: realRoot, entries };
}

function describe(
  root: string,
  rel: string,
  abs: string,
  exclude: ((rel: string) => boolean) | undefined,
): TreeEntry | { error: string } {
  let stat;
  try {
    stat = lstatSync(abs);
  } catch (error) {
    return { error: `cannot read ${abs}: ${errorMessage(error)}` };
  }
  const mode = stat.mode & 0o777;
  if (stat.isDirectory()) return { rel, abs, kind: 'dir', mode, size: 0 };
  if (stat.isFile()) return { rel, abs, kind: 'file', mode, size: stat.size };
  if (!stat.isSymbolicLink()) {
    return { error: `${abs} is not a regular file, directory or symlink; refused` };
  }
  let target: string;
  try {
    target = readlinkSync(abs);
  } catch (error) {
    return { error: `cannot read the symlink ${abs}: ${errorMessage(error)}` };
  }
  const escaping = {
    error: `${abs} is a symlink to ${JSON.stringify(target)}, which points outside ${root}; refused`,
  };
  const lexical = resolve(dirname(abs), target);
  if (!isInside(root, lexical)) return escaping;
  let real: string | undefined;
  try {
    real = realpathSync(abs);
    if (!isInside(root, real)) return escaping;
  } catch {
    // A dangling link inside the tree stays dangling inside the tree: unless it leads into an
    // excluded part (checked below), where something could appear later.
  }
  for (const path of real === undefined ? [lexical] : [lexical, real]) {
    const left = excludedPart(root, path, exclude);
    if (left === undefined) continue;
    return {
      error:
        `${abs} is a symlink to ${JSON.stringify(target)}, which leads into ${join(root, left)}, ` +
        `a part left out here (so its content would never be checked); refused: put the file ` +
        `itself in place of the link`,
    };
  }
  return { rel, abs, kind: 'symlink', mode, size: 0, target };
}

/** The excluded relative path (`/` separators) that `path`, inside `root`, lies in, if any. */
function excludedPart(
  root: string,
  path: string,
  exclude: ((rel: string) => boolean) | undefined,
): string | undefined {
  if (!exclude) return undefined;
  const parts = relative(root, path)
    .split(sep)
    .filter((part) => part !== '');
  for (let end = 1; end <= parts.length; end++) {
    const prefix = parts.slice(0, end).join('/');
    if (exclude(prefix)) return prefix;
  }
  return undefined;
}

/** `rel` with the platform separator, for joining onto another root. */
export function nativeRel(rel: string): string {
  return rel.split('/').join(sep);
}

/** True when something (even a dangling symlink) is at `path`. Contract: never throws. */
export function lexists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
