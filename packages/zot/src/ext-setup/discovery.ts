// Finding extensions: --ext paths, then project-local, then global ones (design D2).
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { zotPaths } from '../config/paths.js';
import { errorMessage } from '../util/errors.js';
import { MANIFEST_FILE, readManifest, type Manifest } from './manifest.js';
import { urlEntry } from './remote-entry.js';

/** Where an entry came from; a later trust gate filters `project` entries. */
export type ExtensionScope = 'flag' | 'project' | 'global';

/** `load` entries are spawned; every other status is reported but never spawned. */
export type DiscoveryStatus =
  | 'load'
  | 'disabled'
  | 'shadowed'
  | 'theme-only'
  | 'skill-only'
  | 'error';

export interface DiscoveredExtension {
  scope: ExtensionScope;
  /** The extension directory: real path when it could be resolved, else as given (absolute). */
  dir: string;
  status: DiscoveryStatus;
  manifest?: Manifest;
  error?: string;
  shadowedBy?: { dir: string; scope: ExtensionScope };
  warnings: string[];
  /** Project entries: the directory holding `.zot` (trust covers paths from it upwards). */
  projectRoot?: string;
  /** A manifest with errors: the name it claims, when that name is valid (for clash warnings). */
  claimedName?: string;
  /** A project entry that took its name from a global one, as the user trusted it to. */
  replaces?: DiscoveredExtension;
  /** A project entry that gave way to the global one of its name: the warning (also in warnings). */
  clash?: string;
}

/**
 * Whether a project entry may take the name of the global `global`: only when the user trusted
 * it, with a review that said it replaces that one. Contract: never throws.
 */
export type ReplaceCheck = (project: DiscoveredExtension, global: DiscoveredExtension) => boolean;

export interface DiscoveryOptions {
  cwd: string;
  zotHome: string;
  /** `--ext` directories, in the order given; relative ones are taken from `cwd`. */
  extPaths: string[];
  /** `--no-ext`: skip project and global discovery; `--ext` paths still load. */
  noExt: boolean;
  /** `--ext-url` remote extensions, after the `--ext` paths, and the token variable they use. */
  extUrls?: readonly string[];
  extTokenEnv?: string | undefined;
  /** Without it no project entry replaces a global one: the global one keeps its name. */
  replaces?: ReplaceCheck;
}

export interface DiscoveryResult {
  entries: DiscoveredExtension[];
}

/** `<cwd>/.zot/extensions`, the project-local root. */
export function projectExtensionsDir(cwd: string): string {
  return join(resolve(cwd), '.zot', 'extensions');
}

/**
 * Lists every extension in load order with what will happen to it.
 * Contract: never throws for bad content; deterministic (code-unit order); the first entry with
 * a valid manifest claims its name, and later ones with the same name are `shadowed`, except
 * that a project entry never takes a name from a global one unless `replaces` allows it.
 */
export function discoverExtensions(options: DiscoveryOptions): DiscoveryResult {
  const entries: DiscoveredExtension[] = [];
  for (const path of options.extPaths) entries.push(flagEntry(resolve(options.cwd, path), path));
  for (const url of options.extUrls ?? []) entries.push(urlEntry(url, options.extTokenEnv));
  if (!options.noExt) {
    const globalRoot = zotPaths(options.zotHome).extensions;
    const projectRoot = projectExtensionsDir(options.cwd);
    // With ZOT_HOME=~/.zot and cwd=~ both roots are one directory; scan it once, as global,
    // so the user's own extensions neither shadow themselves nor wait for project trust.
    if (!sameDirectory(projectRoot, globalRoot)) {
      const project = resolve(options.cwd);
      for (const entry of scanRoot(projectRoot, 'project'))
        entries.push({ ...entry, projectRoot: project });
    }
    entries.push(...scanRoot(globalRoot, 'global'));
  }
  settleNames(entries, options.replaces);
  return { entries };
}

function flagEntry(dir: string, given: string): DiscoveredExtension {
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch (error) {
    return errorEntry('flag', dir, `--ext ${given}: cannot open ${dir} (${errorMessage(error)})`);
  }
  if (!isDir) return errorEntry('flag', dir, `--ext ${given}: ${dir} is not a directory`);
  return entryFor('flag', dir);
}

function scanRoot(root: string, scope: ExtensionScope): DiscoveredExtension[] {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    return [
      errorEntry(scope, root, `cannot read extensions directory ${root}: ${errorMessage(error)}`),
    ];
  }
  const found: DiscoveredExtension[] = [];
  // Hidden names are skipped: they include install's temporary directories.
  for (const name of names.filter((n) => !n.startsWith('.')).sort(compareCodeUnits)) {
    const dir = join(root, name);
    const probe = probeManifest(dir);
    if (probe === 'skip') continue;
    found.push(probe === 'present' ? entryFor(scope, dir) : errorEntry(scope, dir, probe.error));
  }
  return found;
}

/** Directories without a manifest and stray files are skipped; an unreadable one is an error. */
function probeManifest(dir: string): 'present' | 'skip' | { error: string } {
  try {
    // statSync follows symlinks, so a linked working copy counts as an extension directory.
    if (!statSync(dir).isDirectory()) return 'skip';
    statSync(join(dir, MANIFEST_FILE));
    return 'present';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'skip';
    return { error: `cannot read ${join(dir, MANIFEST_FILE)}: ${errorMessage(error)}` };
  }
}

function entryFor(scope: ExtensionScope, dir: string): DiscoveredExtension {
  const result = readManifest(dir);
  if (!result.ok) {
    const entry = errorEntry(scope, realOr(dir), result.error);
    return result.name === undefined ? entry : { ...entry, claimedName: result.name };
  }
  const { manifest, warnings } = result;
  return {
    scope,
    dir: manifest.dir,
    status: statusOf(manifest),
    manifest,
    warnings: [...warnings],
  };
}

function statusOf(manifest: Manifest): DiscoveryStatus {
  if (!manifest.enabled) return 'disabled';
  if (manifest.kind === 'theme') return 'theme-only';
  if (manifest.kind === 'skills') return 'skill-only';
  return 'load';
}

function errorEntry(scope: ExtensionScope, dir: string, error: string): DiscoveredExtension {
  return { scope, dir, status: 'error', error, warnings: [] };
}

// Every entry with a valid manifest (loadable, disabled, theme- or skill-only) claims its name,
// so disabling a project copy does not silently bring the global one back. But content nobody
// reviewed must never decide which of the user's own extensions run: against a global entry, a
// project one keeps the name only when the user trusted it to replace that one. `--ext` paths
// are the user's own choice and claim their names first.
function settleNames(entries: DiscoveredExtension[], mayReplace: ReplaceCheck | undefined): void {
  const groups = new Map<string, DiscoveredExtension[]>();
  for (const entry of entries) {
    if (!entry.manifest) continue;
    const group = groups.get(entry.manifest.name);
    if (group) group.push(entry);
    else groups.set(entry.manifest.name, [entry]);
  }
  for (const group of groups.values()) {
    let owner = group[0]!;
    const global = group.find((entry) => entry.scope === 'global');
    if (owner.scope === 'project' && global) {
      if (mayReplace?.(owner, global)) {
        owner.replaces = global;
        global.warnings.push(
          `replaced in this project by ${owner.dir}, which you trusted to replace it`,
        );
      } else owner = global;
    }
    for (const entry of group) {
      if (entry === owner) continue;
      entry.status = 'shadowed';
      entry.shadowedBy = { dir: owner.dir, scope: owner.scope };
      if (entry.scope === 'project' && owner.scope === 'global') noteClash(entry, owner);
    }
  }
  // A broken project manifest never claims a name, but its clash is still worth saying.
  for (const entry of entries) {
    if (entry.scope !== 'project' || entry.claimedName === undefined) continue;
    const global = groups.get(entry.claimedName)?.find((other) => other.scope === 'global');
    if (global) noteClash(entry, global);
  }
}

function noteClash(project: DiscoveredExtension, global: DiscoveredExtension): void {
  project.clash = clashWarning(project, global);
  project.warnings.push(project.clash);
}

/** Names both paths and what it takes to let the project entry replace the global one. */
export function clashWarning(project: DiscoveredExtension, global: DiscoveredExtension): string {
  const name = global.manifest!.name;
  return (
    `project extension ${project.dir} has the name of your global extension ${name} ` +
    `(${global.dir}); the global one is kept and the project one is not loaded. A project ` +
    `extension replaces one of yours only when you trust it to: review it with ` +
    `\`zot ext trust ${name} --replace\`, or rename it`
  );
}

function sameDirectory(a: string, b: string): boolean {
  return realOr(a) === realOr(b);
}

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Plain UTF-16 code-unit order, independent of locale. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
