// The sandbox policy for one launch: which paths are hidden, re-exposed read-only or writable,
// resolved to real paths (symlinks followed) and ordered so that the deepest rule wins. The
// bwrap arguments, the macOS profile and the file tools' checks are all derived from it.
import { lstatSync, readlinkSync, realpathSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import type { NetworkSetting, SandboxSettings } from './settings.js';

export type PathAccess = 'hidden' | 'read-only' | 'writable';

export interface PathRule {
  /** Real absolute path (symlinks resolved; for a missing path, its nearest existing parent's). */
  path: string;
  access: PathAccess;
  /** What put it there, for messages: `~/.ssh (always hidden)`, `sandbox.deny_read`, ... */
  source: string;
  /** What is there now: a mount covers a directory and a file differently; nothing to cover a missing one. */
  kind: 'dir' | 'file' | 'missing';
}

export interface SandboxPolicy {
  /** The project directory (real path): writable. */
  project: string;
  /** Every rule, shallow before deep (a deeper rule wins; at the same path: writable, read-only, hidden). */
  rules: PathRule[];
  /** Normalized: an empty host list is false. */
  network: NetworkSetting;
  /** Problems found resolving the settings (a missing allow_write path), for a warning. */
  notes: string[];
}

/** Credentials and state every sandbox hides, relative to the home directory. */
export const ALWAYS_HIDDEN_IN_HOME = [
  '.ssh',
  '.gnupg',
  '.aws',
  '.config/gcloud',
  '.kube',
  '.docker/config.json',
  '.netrc',
  '.git-credentials',
  '.config/gh',
];

export interface PolicyInputs {
  settings: SandboxSettings;
  /** The session's working directory. */
  project: string;
  home: string;
  /** $ZOT_HOME: hidden (auth, trust, sessions) except its skills, which the skill tool reads. */
  zotHome: string;
  /** More paths the sandbox may read although they lie under a hidden one (zot's saved tool outputs). */
  readable?: string[];
}

/**
 * The real path of `path`: symlinks resolved for the part that exists, the rest appended.
 * Contract: never throws; returns an absolute path.
 *
 * Every bash command and file-tool check resolves a dozen paths, many of them missing (most
 * homes have no ~/.gnupg): an lstat that returns nothing for a missing path comes first, so no
 * exception is built for it, and an existing one is resolved by the C library in one call.
 */
export function realPathOf(path: string, cache?: RealPaths): string {
  return cache?.get(path) ?? resolvePath(path, cache).real;
}

/**
 * Real paths of existing paths already resolved, for one policy or scope being built: many of
 * its paths share parents (every missing path under the home resolves the home again).
 */
export type RealPaths = Map<string, string>;

/**
 * The real path and what is there. An existing path that is not itself a symlink is the same
 * file as its real path, so its lstat tells the kind without another stat.
 */
function resolvePath(path: string, cache?: RealPaths): { real: string; kind?: PathRule['kind'] } {
  const rest: string[] = [];
  let current = path;
  let links = 0;
  for (let i = 0; i < 4096; i++) {
    // A parent seen before (the path itself is looked at, for its kind)
    const known = rest.length > 0 ? cache?.get(current) : undefined;
    if (known !== undefined) return { real: join(known, ...[...rest].reverse()) };
    const stat = lstatOrNothing(current);
    if (stat) {
      const real = nativeRealPath(current);
      if (real !== undefined) {
        cache?.set(current, real);
        if (rest.length > 0) return { real: join(real, ...[...rest].reverse()) };
        if (current !== path || stat.isSymbolicLink()) return { real };
        return { real, kind: stat.isDirectory() ? 'dir' : 'file' };
      }
      // A dangling symlink points somewhere all the same: follow it (a bounded number of times).
      const target = links < 40 && stat.isSymbolicLink() ? linkTarget(current) : undefined;
      if (target !== undefined) {
        links++;
        current = resolve(dirname(current), target);
        continue;
      }
    }
    const parent = dirname(current);
    if (parent === current) break;
    rest.push(basename(current));
    current = parent;
  }
  return { real: path };
}

/** lstat, or undefined for a path that is not there or cannot be looked at. */
function lstatOrNothing(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined; // ENOTDIR, EACCES, ELOOP: nothing to resolve here
  }
}

function nativeRealPath(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}

function linkTarget(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

function kindOf(path: string): PathRule['kind'] {
  let stat: Stats | undefined;
  try {
    stat = statSync(path, { throwIfNoEntry: false });
  } catch {
    stat = undefined;
  }
  if (stat) return stat.isDirectory() ? 'dir' : 'file';
  // a dangling symlink: nothing to read through it
  return lstatOrNothing(path) ? 'file' : 'missing';
}

const ORDER: Record<PathAccess, number> = { writable: 0, 'read-only': 1, hidden: 2 };
const depth = (path: string) => (path === sep ? 0 : path.split(sep).length - 1);

/** `path` is `root` or below it. */
export function within(root: string, path: string): boolean {
  if (root === sep) return true;
  // Both normalized absolute paths (real paths are): a prefix ending at a separator. Builds of
  // a policy or scope compare every mount with every hidden path: no relative() for them.
  if (sep === '/' && normalizedAbsolute(root) && normalizedAbsolute(path))
    return path === root || (path.startsWith(root) && path.charCodeAt(root.length) === SLASH);
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..' + sep) && rel !== '..' && !rel.startsWith(sep));
}

const SLASH = 0x2f;

/** An empty, `.` or `..` component, or a trailing separator. */
const UNNORMALIZED = /\/\.{0,2}(?:\/|$)/;

/** Absolute, with no empty, `.` or `..` component and no trailing separator. */
const normalizedAbsolute = (path: string) =>
  path.charCodeAt(0) === SLASH && !UNNORMALIZED.test(path);

/** Contract: never throws; a path that cannot be resolved is kept as given. */
export function buildPolicy(inputs: PolicyInputs): SandboxPolicy {
  const notes: string[] = [];
  const rules: PathRule[] = [];
  const cache: RealPaths = new Map();
  const add = (path: string, access: PathAccess, source: string) => {
    const { real, kind } = resolvePath(path, cache);
    rules.push({ path: real, access, source, kind: kind ?? kindOf(real) });
  };
  for (const rel of ALWAYS_HIDDEN_IN_HOME)
    add(join(inputs.home, rel), 'hidden', `~/${rel} (always hidden)`);
  add(inputs.zotHome, 'hidden', '$ZOT_HOME (always hidden: keys, trust, sessions)');
  add(join(inputs.zotHome, 'skills'), 'read-only', '$ZOT_HOME/skills (readable: skills)');
  add(
    join(inputs.zotHome, 'extensions'),
    'read-only',
    '$ZOT_HOME/extensions (readable: installed extensions and their skills)',
  );
  for (const path of inputs.readable ?? []) add(path, 'read-only', 'saved tool outputs (readable)');
  for (const path of inputs.settings.denyRead) add(path, 'hidden', `sandbox.deny_read: ${path}`);
  add(inputs.project, 'writable', 'the project directory');
  for (const path of inputs.settings.allowWrite) {
    const before = rules.length;
    add(path, 'writable', `sandbox.allow_write: ${path}`);
    if (rules[before]!.kind === 'missing') {
      notes.push(`sandbox.allow_write: ${path} does not exist; it is not writable in the sandbox`);
    }
  }
  rules.sort((a, b) => depth(a.path) - depth(b.path) || ORDER[a.access] - ORDER[b.access]);
  const network =
    Array.isArray(inputs.settings.network) && inputs.settings.network.length === 0
      ? false
      : inputs.settings.network;
  return { project: realPathOf(inputs.project, cache), rules: dedupe(rules), network, notes };
}

/** One rule per path and access (the same path may be named twice, e.g. twice in deny_read). */
function dedupe(rules: PathRule[]): PathRule[] {
  const seen = new Set<string>();
  return rules.filter((rule) => {
    const key = `${rule.access}\0${rule.path}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The rule that decides for a real path (the deepest, the last in order), or none: read-only. */
export function ruleFor(policy: SandboxPolicy, realPath: string): PathRule | undefined {
  let found: PathRule | undefined;
  for (const rule of policy.rules) if (within(rule.path, realPath)) found = rule;
  return found;
}

export type FileOperation = 'read' | 'write';

/**
 * Why the sandbox refuses `operation` on `path` (symlinks resolved), or undefined when it allows
 * it. `tool` starts the message. Writes are allowed only under a writable rule; reads
 * everywhere but under a hidden one.
 */
export function fileAccessDenial(
  policy: SandboxPolicy,
  tool: string,
  path: string,
  operation: FileOperation,
): string | undefined {
  const real = realPathOf(path);
  const rule = ruleFor(policy, real);
  const shown = real === path ? path : `${path} (really ${real})`;
  if (rule?.access === 'hidden') {
    return (
      `${tool}: denied by the sandbox: ${shown} is hidden (${rule.source}). ` +
      `Nothing in the sandbox may ${operation === 'read' ? 'read' : 'write'} it.`
    );
  }
  if (operation === 'write' && rule?.access !== 'writable') {
    return (
      `${tool}: denied by the sandbox: ${shown} is outside the writable paths (the project ` +
      `${policy.project}${allowWriteList(policy)}). To allow it, add it to sandbox.allow_write ` +
      `in $ZOT_HOME/config.json, or switch the sandbox off with /sandbox off.`
    );
  }
  return undefined;
}

function allowWriteList(policy: SandboxPolicy): string {
  const extra = policy.rules
    .filter((rule) => rule.access === 'writable' && rule.path !== policy.project)
    .map((rule) => rule.path);
  return extra.length > 0 ? ` and sandbox.allow_write: ${extra.join(', ')}` : '';
}
