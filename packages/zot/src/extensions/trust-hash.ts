// The content hash trust pins a project extension to: its directory, plus what Node would load
// for it from the project without the reviewed code naming a path (bare imports resolved through
// parent node_modules, the package scope of a package.json above it).
import { closeSync, lstatSync, openSync, readFileSync, readSync, realpathSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { errorMessage } from '../util/errors.js';
import { isInside } from './manifest.js';
import {
  DEFAULT_TREE_LIMITS,
  lexists,
  walkTree,
  type TreeEntry,
  type TreeEntryKind,
  type TreeLimits,
} from './tree.js';
import { nodeCrypto } from '../util/builtins.js';

/** One hashed entry, as `zot ext trust` shows it. */
export interface HashedEntry {
  /** Relative to the extension directory with `/`; covered paths outside begin with `../`. */
  path: string;
  kind: TreeEntryKind;
  /** Whether the owner may execute it (files only). */
  executable: boolean;
  size: number;
  /** `sha256:<hex>` of a file's content. */
  sha256?: string;
  /** A symlink's target text. */
  target?: string;
}

/** A directory or file outside the extension directory that the hash covers too. */
export interface CoveredPath {
  /** Relative to the extension directory, e.g. `../node_modules`. */
  path: string;
  abs: string;
  reason: 'node_modules' | 'package scope';
  /** Entries listed for it (itself included) and their bytes. */
  entries: number;
  bytes: number;
}

export type ExtensionHash =
  | { ok: true; hash: string; entries: HashedEntry[]; covered: CoveredPath[] }
  | { ok: false; error: string };

export interface TrustTarget {
  /** The extension directory (real path). */
  dir: string;
  /** The directory holding `.zot`; without it only `dir` itself is hashed. */
  projectRoot?: string;
}

/** Bumped if the hashed representation ever changes (which invalidates every trust). */
const HASH_FORMAT = 'zot-trust-v1';

/**
 * Hashes every entry below `dir` except a top-level `.git` (git's own bookkeeping, rewritten by
 * every fetch), sorted by relative path, with its kind, the owner's exec bit for files, the
 * target of symlinks and the content of files; then, in a fixed order, every covered path (see
 * `coveredPaths`). With nothing covered the hash is what it was before coverage existed.
 * Contract: never throws; symlinks leaving their tree (or a covered path that is a symlink),
 * special files, an extension outside its project and runaway trees (one budget for all, see
 * DEFAULT_TREE_LIMITS) are errors, because their effect could not be pinned.
 */
export function hashExtension(target: TrustTarget, limits = DEFAULT_TREE_LIMITS): ExtensionHash {
  const covered = coveredPaths(target);
  if (!covered.ok) return covered;
  const used = { entries: 0, bytes: 0 };
  const subject =
    covered.paths.length > 0 ? `${target.dir} with the paths its trust covers` : target.dir;
  const walked = walkTree(target.dir, { exclude: (rel) => rel === '.git', limits, used, subject });
  if (!walked.ok) return walked;
  const tree = nodeCrypto().createHash('sha256');
  tree.update(`${HASH_FORMAT}\n`);
  const entries: HashedEntry[] = [];
  const add = (entry: RawEntry): string | undefined => {
    const hashed = hashEntry(entry);
    if ('error' in hashed) return hashed.error;
    tree.update(hashed.line);
    entries.push(hashed.entry);
    return undefined;
  };
  for (const entry of walked.entries) {
    const error = add(entry);
    if (error) return { ok: false, error };
  }
  const result: CoveredPath[] = [];
  for (const path of covered.paths) {
    const before = { entries: used.entries, bytes: used.bytes };
    const listed = listCovered(path, limits, used, subject);
    if (!listed.ok) return listed;
    for (const entry of listed.entries) {
      const error = add(entry);
      if (error) return { ok: false, error };
    }
    result.push({
      ...path,
      entries: used.entries - before.entries,
      bytes: used.bytes - before.bytes,
    });
  }
  return { ok: true, hash: `sha256:${tree.digest('hex')}`, entries, covered: result };
}

type RawEntry = TreeEntry;

function hashEntry(entry: RawEntry): { entry: HashedEntry; line: string } | { error: string } {
  const hashed: HashedEntry = {
    path: entry.rel,
    kind: entry.kind,
    executable: entry.kind === 'file' && (entry.mode & 0o100) !== 0,
    size: entry.size,
  };
  let detail = '';
  if (entry.kind === 'file') {
    const content = hashFile(entry.abs);
    if (typeof content !== 'string') return content;
    hashed.sha256 = content;
    detail = content;
  } else if (entry.kind === 'symlink') {
    hashed.target = entry.target!;
    detail = JSON.stringify(entry.target);
  }
  const line = `${entry.kind} ${hashed.executable ? 'x' : '-'} ${JSON.stringify(entry.rel)} ${detail}\n`;
  return { entry: hashed, line };
}

function hashFile(path: string): string | { error: string } {
  const hash = nodeCrypto().createHash('sha256');
  const buffer = Buffer.allocUnsafe(1024 * 1024);
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    for (;;) {
      const read = readSync(fd, buffer, 0, buffer.length, null);
      if (read === 0) break;
      hash.update(buffer.subarray(0, read));
    }
  } catch (error) {
    return { error: `cannot read ${path}: ${errorMessage(error)}` };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return `sha256:${hash.digest('hex')}`;
}

type Candidate = Omit<CoveredPath, 'entries' | 'bytes'>;

/**
 * What Node reads for the extension from the project outside its directory, nearest first:
 * `<parent>/node_modules` of every directory from the extension's parent up to and including
 * the project root (Node looks there for a bare `import 'x'` it cannot find below), and, when
 * the extension has no package.json of its own, the nearest package.json above it within the
 * project (its "type" decides how .js files run). Directories above the project root are the
 * user's, not the project's, and are not covered. A package scope with "imports" or "exports"
 * is refused: `#x` imports and self-references would load files anywhere in the project.
 * Contract: never throws; the extension must lie inside the project, symlinks resolved.
 */
function coveredPaths(target: TrustTarget):
  | { ok: true; paths: Candidate[] }
  | {
      ok: false;
      error: string;
    } {
  if (target.projectRoot === undefined) return { ok: true, paths: [] };
  let root: string;
  let dir: string;
  try {
    root = realpathSync(target.projectRoot);
    dir = realpathSync(target.dir);
  } catch (error) {
    return { ok: false, error: `cannot resolve ${target.dir}: ${errorMessage(error)}` };
  }
  if (dir === root || !isInside(root, dir)) {
    return {
      ok: false,
      error:
        `${target.dir} lies outside the project ${root} (through a symlink?); trust pins only ` +
        `what the project holds: load it with --ext or install it with zot ext install instead`,
    };
  }
  const paths: Candidate[] = [];
  const candidate = (abs: string, reason: Candidate['reason']): Candidate => ({
    path: relative(dir, abs).split(sep).join('/'),
    abs,
    reason,
  });
  for (let parent = dirname(dir); ; parent = dirname(parent)) {
    // Node never looks for node_modules/node_modules.
    if (basename(parent) !== 'node_modules') {
      const modules = join(parent, 'node_modules');
      if (lexists(modules)) paths.push(candidate(modules, 'node_modules'));
    }
    if (parent === root) break;
  }
  if (!lexists(join(dir, 'package.json'))) {
    for (let parent = dirname(dir); ; parent = dirname(parent)) {
      const manifest = join(parent, 'package.json');
      if (lexists(manifest)) {
        const problem = packageScopeProblem(manifest, dir);
        if (problem) return { ok: false, error: problem };
        paths.push(candidate(manifest, 'package scope'));
        break;
      }
      if (parent === root) break;
    }
  }
  return { ok: true, paths };
}

function packageScopeProblem(manifest: string, dir: string): string | undefined {
  let fields: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(readFileSync(manifest, 'utf8'));
    if (parsed && typeof parsed === 'object') fields = parsed as Record<string, unknown>;
  } catch {
    return undefined; // Node cannot use it either; it is hashed like any other covered file
  }
  const maps = ['imports', 'exports'].filter((field) => fields[field] !== undefined);
  if (maps.length === 0) return undefined;
  return (
    `${dir} has no package.json of its own, so Node resolves its imports in the package ` +
    `scope of ${manifest}, whose ${maps.map((f) => `"${f}"`).join(' and ')} can load files ` +
    `anywhere in the project, which trust cannot pin; add a package.json to ${dir} ` +
    `(e.g. {"type": "module"}) and trust it again`
  );
}

/** The entries of one covered path, itself first; relative paths start from the extension. */
function listCovered(
  path: Candidate,
  limits: TreeLimits,
  used: { entries: number; bytes: number },
  subject: string,
): { ok: true; entries: RawEntry[] } | { ok: false; error: string } {
  let stat;
  try {
    stat = lstatSync(path.abs);
  } catch (error) {
    return { ok: false, error: `cannot read ${path.abs}: ${errorMessage(error)}` };
  }
  const mode = stat.mode & 0o777;
  if (stat.isSymbolicLink()) {
    return {
      ok: false,
      error:
        `${path.abs} is a symlink, and trust covers it (${path.reason}) but cannot pin what it ` +
        `points to; replace it with a real directory or file, or load the extension with --ext`,
    };
  }
  used.entries++;
  if (stat.isFile()) {
    used.bytes += stat.size;
    return {
      ok: true,
      entries: [{ rel: path.path, abs: path.abs, kind: 'file', mode, size: stat.size }],
    };
  }
  if (!stat.isDirectory()) {
    return { ok: false, error: `${path.abs} is not a regular file or directory; refused` };
  }
  const walked = walkTree(path.abs, { limits, used, subject });
  if (!walked.ok) return walked;
  const self: RawEntry = { rel: path.path, abs: path.abs, kind: 'dir', mode, size: 0 };
  return {
    ok: true,
    entries: [self, ...walked.entries.map((e) => ({ ...e, rel: `${path.path}/${e.rel}` }))],
  };
}
