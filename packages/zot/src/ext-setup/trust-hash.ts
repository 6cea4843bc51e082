// The content hash trust pins a project extension to: its directory, plus what Node would load
// for it from the repository without the reviewed code naming a path (bare imports resolved
// through the node_modules of every ancestor, the package scope of a package.json above it).
import { closeSync, constants, lstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { errorMessage } from '../util/errors.js';
import { repositoryRoot } from '../util/repository.js';
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
import { readRegularText } from '../util/regular-file.js';

/** A package.json bigger than this is no package scope Node would read in practice. */
const MAX_PACKAGE_JSON_BYTES = 1024 * 1024;

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
  | {
      ok: true;
      hash: string;
      entries: HashedEntry[];
      covered: CoveredPath[];
      /** How far up covered paths were looked for (see `trustBoundary`); absent without one. */
      boundary?: string;
    }
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
 * Contract: never throws; symlinks leaving their tree or leading into the `.git` left out (or a
 * covered path that is a symlink), special files, an extension outside its project and runaway
 * trees (one budget for all, see DEFAULT_TREE_LIMITS) are errors, because their effect could not
 * be pinned: refusing them is the only way the hash stays a pin of everything that runs.
 */
export function hashExtension(target: TrustTarget, limits = DEFAULT_TREE_LIMITS): ExtensionHash {
  const covered = coveredPaths(target);
  if (!covered.ok) return covered;
  const used = { entries: 0, bytes: 0 };
  const subject =
    covered.paths.length > 0 ? `${target.dir} with the paths its trust covers` : target.dir;
  const walked = walkTree(target.dir, { exclude: isTopGit, limits, used, subject });
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
  const hash = `sha256:${tree.digest('hex')}`;
  const boundary = covered.boundary !== undefined ? { boundary: covered.boundary } : {};
  return { ok: true, hash, entries, covered: result, ...boundary };
}

/** What the hash leaves out of the extension directory: its own top-level `.git`. */
export const isTopGit = (rel: string): boolean => rel === '.git';

/**
 * How far up the project the runtime's own lookups are pinned: the repository holding the
 * project root (a submodule counts as part of its superproject), or the project root itself
 * outside any repository. Directories above it are the user's. Contract: never throws.
 */
export function trustBoundary(projectRoot: string): string {
  let root: string;
  try {
    root = realpathSync(projectRoot);
  } catch {
    root = projectRoot;
  }
  return repositoryRoot(root) ?? root;
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
    // O_NONBLOCK: a FIFO swapped in after the walk cannot hang the hash (it reads as empty).
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
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
 * What Node reads for the extension outside its directory, nearest first: `<parent>/node_modules`
 * of every directory from the extension's parent up to and including the trust boundary (the
 * repository root: Node looks in every ancestor for a bare `import 'x'` it cannot find below,
 * so zot started in `repo/sub` still loads `repo/node_modules`), and, when the extension has no
 * package.json of its own, the nearest package.json above it within the boundary (its "type"
 * decides how .js files run). These are hashed rather than refused: they are ordinary project
 * content, and the review lists them. Directories above the boundary are the user's and are not
 * covered. A package scope with "imports" or "exports" is refused: `#x` imports and
 * self-references would load files anywhere in it.
 * Contract: never throws; the extension must lie inside the project, symlinks resolved.
 */
function coveredPaths(
  target: TrustTarget,
): { ok: true; paths: Candidate[]; boundary?: string } | { ok: false; error: string } {
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
  const boundary = trustBoundary(root);
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
    if (parent === boundary || dirname(parent) === parent) break;
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
      if (parent === boundary || dirname(parent) === parent) break;
    }
  }
  return { ok: true, paths, boundary };
}

function packageScopeProblem(manifest: string, dir: string): string | undefined {
  let fields: Record<string, unknown> = {};
  try {
    const read = readRegularText(manifest, { limit: MAX_PACKAGE_JSON_BYTES });
    if (!read.ok) return undefined; // Node cannot use it either
    const parsed: unknown = JSON.parse(read.text);
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
