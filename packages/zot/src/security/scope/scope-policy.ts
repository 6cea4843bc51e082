// What a scoped extension's sandbox holds: nothing but the system's programs and libraries, its
// interpreter's installation, its own directory (read-only), its data directory (writable) and
// what its permissions name, with the always-hidden paths covered wherever a mount would show
// them. The bwrap arguments and the macOS profile are both derived from this one list.
import { readdirSync } from 'node:fs';
import { basename, delimiter, dirname, isAbsolute, join, sep } from 'node:path';
import { ALWAYS_HIDDEN_IN_HOME, realPathOf, within, type RealPaths } from '../sandbox/policy.js';
import type { NetworkSetting } from '../sandbox/settings.js';
import type { ExtensionPermissions } from './permissions.js';
import {
  expandPathEntry,
  lstatKind,
  onPath,
  ScopeError,
  shebangOf,
  type ScopePlaces,
} from './scope-places.js';
import { ETC_HIDDEN, etcEntries, SYSTEM_ROOTS } from './scope-system.js';

export { expandPathEntry, onPath, shebangOf, type ScopePlaces } from './scope-places.js';
export {
  BASE_ENV,
  ETC_ENTRIES,
  PYCACHE_DIR,
  SYSTEM_ROOTS,
  scopedEnvironment,
} from './scope-system.js';

export type MountAccess = 'read-only' | 'writable' | 'hidden';

/** One mount inside the sandbox. */
export interface ScopeMount {
  /** A real path on the host, shown (or covered) at the same path inside. */
  path: string;
  access: MountAccess;
  kind: 'dir' | 'file';
  /** Why it is there, for messages: `permissions.fs.read: ${project}`, `the system`, ... */
  why: string;
}

export interface ScopePolicy {
  /** Shallow before deep; at one depth writable, read-only, then hidden (a deeper one wins). */
  mounts: ScopeMount[];
  /** Symbolic links to recreate inside (`/bin` -> `usr/bin`, a project reached through a link). */
  links: Array<{ path: string; target: string }>;
  network: NetworkSetting;
  /** Variable names passed through (besides the LC_* and ZOT_EXT_* families). */
  env: string[];
  /** Its own directory; none for a program run with `zot sandbox exec`. */
  extDir?: string;
  dataDir: string;
}

export interface ScopeInputs {
  permissions: ExtensionPermissions;
  /** The extension directory (real path); none for `zot sandbox exec` (`${ext}` is refused). */
  extDir?: string;
  /** Its data directory (exists). */
  dataDir: string;
  /** The project (zot's working directory, as hello_ack gives it). */
  project: string;
  home: string;
  zotHome: string;
  /** The program zot starts (the resolved `exec`, absolute). */
  command: string;
  /** PATH, for program names in `exec` and `#!/usr/bin/env x` lines. */
  path: string | undefined;
  /** More paths to hide (sandbox.deny_read). */
  denyRead?: readonly string[];
  /** Programs zot itself runs inside (Node, for the network forwarder). */
  helpers?: readonly string[];
  /** zot's own files the extension runs on (its Python SDK), read-only, and their variables. */
  provided?: { readOnly: readonly string[]; env: readonly string[] };
}

export type ScopeResult =
  | { ok: true; policy: ScopePolicy; notes: string[] }
  | { ok: false; error: string };

/** Most directories searched for Node's modules (a bound on hostile link farms). */
const MAX_MODULE_ROOTS = 256;

const depth = (path: string) => (path === sep ? 0 : path.split(sep).length - 1);
const ORDER: Record<MountAccess, number> = { writable: 0, 'read-only': 1, hidden: 2 };

/** Contract: never throws; an error names the permission or the program at fault. */
export function buildScope(inputs: ScopeInputs): ScopeResult {
  try {
    return new ScopeBuilder(inputs).build();
  } catch (error) {
    if (error instanceof ScopeError) return { ok: false, error: error.message };
    return { ok: false, error: `cannot build the sandbox: ${String(error)}` };
  }
}

class ScopeBuilder {
  private readonly mounts: ScopeMount[] = [];
  private readonly links = new Map<string, string>();
  private readonly notes: string[] = [];
  /** Real paths nothing may show, and why. */
  private readonly hidden: Array<{ real: string; why: string }> = [];
  private readonly extDir: string | undefined;
  private readonly dataDir: string;
  private readonly home: string;
  /** A program it runs is Node: it loads modules from the node_modules above its directory. */
  private usesNode = false;
  /** What this build found at each path it looked at: many paths are looked at again. */
  private readonly realPaths: RealPaths = new Map();
  private readonly kinds = new Map<string, ReturnType<typeof lstatKind>>();

  constructor(private readonly inputs: ScopeInputs) {
    this.extDir = inputs.extDir === undefined ? undefined : this.real(inputs.extDir);
    this.dataDir = this.real(inputs.dataDir);
    this.home = this.real(inputs.home);
    for (const rel of ALWAYS_HIDDEN_IN_HOME)
      this.hidden.push({
        real: this.real(join(inputs.home, rel)),
        why: `~/${rel} (always hidden)`,
      });
    this.hidden.push({
      real: this.real(inputs.zotHome),
      why: '$ZOT_HOME (always hidden: keys, trust, sessions)',
    });
    for (const path of inputs.denyRead ?? [])
      this.hidden.push({ real: this.real(path), why: `sandbox.deny_read: ${path}` });
    for (const path of ETC_HIDDEN) this.hidden.push({ real: path, why: 'private keys in /etc' });
  }

  private real(path: string): string {
    return realPathOf(path, this.realPaths);
  }

  private kind(path: string): ReturnType<typeof lstatKind> {
    if (this.kinds.has(path)) return this.kinds.get(path);
    const kind = lstatKind(path);
    this.kinds.set(path, kind);
    return kind;
  }

  build(): ScopeResult {
    const { permissions } = this.inputs;
    this.system();
    this.runtime(this.inputs.command, `the program it runs (${this.inputs.command})`);
    for (const helper of this.inputs.helpers ?? []) this.runtime(helper, `zot's ${helper}`);
    for (const path of this.inputs.provided?.readOnly ?? [])
      this.add(this.real(path), this.real(path), 'read-only', `zot's own ${path}`);
    if (this.extDir !== undefined)
      this.add(this.extDir, this.extDir, 'read-only', 'its own directory', true);
    this.add(this.dataDir, this.dataDir, 'writable', 'its data directory', true);
    const places: ScopePlaces = {
      project: this.inputs.project,
      ...(this.extDir !== undefined ? { extDir: this.extDir } : {}),
      dataDir: this.dataDir,
      home: this.inputs.home,
    };
    for (const entry of permissions.fs.read)
      this.declared(expandPathEntry(entry, places), 'read-only', `permissions.fs.read: ${entry}`);
    for (const entry of permissions.fs.write)
      this.declared(expandPathEntry(entry, places), 'writable', `permissions.fs.write: ${entry}`);
    this.programs(permissions.exec, places);
    if (this.usesNode && this.extDir !== undefined) this.nodeModules(this.extDir);
    this.cover();
    const mounts = dedupe(this.mounts).sort(
      (a, b) => depth(a.path) - depth(b.path) || ORDER[a.access] - ORDER[b.access],
    );
    // A link inside a mounted directory is there already (and could not be made: read-only).
    const shown = mounts.filter((mount) => mount.access !== 'hidden' && mount.kind === 'dir');
    // A link inside a hidden directory would show a name there: the real path must do.
    const links = [...this.links]
      .filter(([path]) => !shown.some((mount) => within(mount.path, path)))
      .filter(([path]) => !this.hidden.some((rule) => within(rule.real, path)))
      .map(([path, target]) => ({ path, target }));
    return {
      ok: true,
      policy: {
        mounts,
        links,
        network: permissions.net,
        env: [...permissions.env, ...(this.inputs.provided?.env ?? [])],
        ...(this.extDir !== undefined ? { extDir: this.extDir } : {}),
        dataDir: this.dataDir,
      },
      notes: this.notes,
    };
  }

  private system(): void {
    for (const root of SYSTEM_ROOTS) {
      const kind = this.kind(root);
      if (kind === 'link') this.link(root, 'the system');
      else if (kind === 'dir')
        this.add(root, root, 'read-only', 'the system (programs, libraries)');
    }
    for (const { name, kind } of etcEntries()) {
      const path = join('/etc', name);
      this.kinds.set(path, kind);
      if (kind === 'link') this.link(path, 'system configuration');
      else if (kind) this.add(path, path, 'read-only', 'system configuration');
    }
  }

  /** The hidden rule `real` falls under, unless it is the extension's own directory or data. */
  private hiddenOver(real: string): { real: string; why: string } | undefined {
    if ((this.extDir !== undefined && within(this.extDir, real)) || within(this.dataDir, real))
      return undefined;
    return this.hidden.find((rule) => within(rule.real, real));
  }

  /**
   * A path the extension asked for: refused (the whole start) when it leads into a hidden
   * path, left out with a note when it does not exist.
   */
  private declared(path: string, access: MountAccess, why: string): void {
    const real = this.real(path);
    const hidden = this.hiddenOver(real);
    if (hidden) {
      const shown = real === path ? path : `${path} (really ${real})`;
      throw new ScopeError(
        `${why}: ${shown} is hidden from every sandbox (${hidden.why}); an extension cannot be given it`,
      );
    }
    if (this.kind(real) === undefined) {
      this.notes.push(`${why}: ${path} does not exist; it is not in the sandbox`);
      return;
    }
    this.add(path, real, access, why);
  }

  /**
   * Mounts `real` at `path`. When `path` is reached through a symbolic link, the real path is
   * mounted and the link recreated, so both names work inside.
   */
  private add(path: string, real: string, access: MountAccess, why: string, own = false): void {
    const kind = this.kind(real);
    if (kind === undefined || kind === 'link') return;
    if (!own) {
      const hidden = this.hiddenOver(real);
      if (hidden) throw new ScopeError(`${why}: ${real} lies in ${hidden.why}; refused`);
    }
    this.mounts.push({ path: real, access, kind, why });
    if (path !== real && this.real(dirname(path)) === dirname(path)) this.links.set(path, real);
  }

  private link(path: string, why: string): void {
    const real = this.real(path);
    const kind = this.kind(real);
    if (kind === undefined) return;
    this.links.set(path, real);
    if (!this.mounts.some((mount) => within(mount.path, real)))
      this.add(real, real, 'read-only', why);
  }

  /**
   * A program and what it needs to start: its installation (the directory above its `bin`,
   * e.g. ~/.nvm/versions/node/v20 or ~/.pyenv for a shim), and for a `#!` script its
   * interpreter the same way. Never the home directory itself or anything above it.
   */
  private runtime(program: string, why: string, seen = new Set<string>()): void {
    if (seen.has(program) || seen.size > 8) return;
    seen.add(program);
    const real = this.real(program);
    if (/^node(js)?[\d.]*$/.test(basename(real))) this.usesNode = true;
    for (const path of new Set([program, real])) this.installation(path, why);
    if (program !== real && this.real(dirname(program)) === dirname(program))
      this.links.set(program, real);
    const shebang = shebangOf(real);
    if (!shebang) return;
    const [interpreter, named] = shebang;
    if (interpreter) this.runtime(interpreter, `the interpreter of ${why}`, seen);
    if (named) {
      const found = onPath(named, this.inputs.path);
      if (found) this.runtime(found, `the interpreter of ${why}`, seen);
      else this.notes.push(`${why}: ${named} (its #! line) is not on PATH`);
    }
  }

  private installation(path: string, why: string): void {
    if (!isAbsolute(path) || SYSTEM_ROOTS.some((root) => within(root, path))) return;
    if (this.extDir !== undefined && within(this.extDir, path)) return;
    const dir = dirname(path);
    const parent = ['bin', 'sbin', 'shims'].includes(basename(dir)) ? dirname(dir) : dir;
    // An installation at the home directory (~/bin/tool) or above: the program alone.
    const opensHome = within(parent, this.home) || parent === sep;
    const target = opensHome ? path : parent;
    const hidden = this.hiddenOver(this.real(target));
    if (hidden) throw new ScopeError(`${why}: ${target} lies in ${hidden.why}; refused`);
    this.add(target, this.real(target), 'read-only', why);
  }

  private programs(exec: true | string[], places: ScopePlaces): void {
    if (exec === true) {
      for (const dir of (this.inputs.path ?? '').split(delimiter)) {
        if (!isAbsolute(dir)) continue;
        const real = this.real(dir);
        // Never the home directory (or above it), never into a hidden one.
        if (this.kind(real) !== 'dir' || within(real, this.home) || this.hiddenOver(real)) continue;
        if (SYSTEM_ROOTS.some((root) => within(root, real))) continue;
        const up = dirname(real);
        const prefix =
          ['bin', 'sbin', 'shims'].includes(basename(real)) && !within(up, this.home) ? up : real;
        this.add(prefix, prefix, 'read-only', `permissions.exec: true (PATH entry ${dir})`);
      }
      return;
    }
    for (const entry of exec) {
      const why = `permissions.exec: ${entry}`;
      if (!entry.includes('/') && !entry.startsWith('~') && !entry.startsWith('$')) {
        const found = onPath(entry, this.inputs.path);
        if (found) this.runtime(found, why);
        else this.notes.push(`${why}: not found on PATH; not in the sandbox`);
        continue;
      }
      const path = expandPathEntry(entry, places);
      const real = this.real(path);
      const hidden = this.hiddenOver(real);
      if (hidden) throw new ScopeError(`${why}: ${real} lies in ${hidden.why}; refused`);
      if (this.kind(real) === undefined) {
        this.notes.push(`${why}: ${path} does not exist; not in the sandbox`);
        continue;
      }
      this.runtime(path, why);
    }
  }

  /**
   * What Node reads for it outside its directory: the node_modules directories a bare import
   * searches (its own and every one above it), and the same again from wherever a package in
   * them links to (npm workspaces, `npm link`: Node resolves a linked package's imports from
   * its real path); and the package.json above it when it has none (its "type" decides how .js
   * files load). Read-only; hidden paths stay out; at most MAX_MODULE_ROOTS places.
   */
  private nodeModules(extDir: string): void {
    const why = 'node_modules Node searches';
    const visited = new Set<string>();
    const queue = [extDir];
    while (queue.length > 0 && visited.size < MAX_MODULE_ROOTS) {
      const from = queue.shift()!;
      if (visited.has(from)) continue;
      visited.add(from);
      for (let dir = from; ; dir = dirname(dir)) {
        if (basename(dir) !== 'node_modules') {
          const modules = join(dir, 'node_modules');
          if (!visited.has(modules) && this.kind(modules) === 'dir' && !this.hiddenOver(modules)) {
            visited.add(modules);
            if (!within(extDir, modules)) this.add(modules, modules, 'read-only', why, true);
            for (const target of linkedPackages(modules)) {
              if (this.hiddenOver(target)) continue;
              this.add(target, target, 'read-only', `${why} (a linked package)`, true);
              queue.push(target);
            }
          }
        }
        if (dirname(dir) === dir) break;
      }
    }
    if (this.kind(join(extDir, 'package.json')) !== undefined) return;
    for (let dir = dirname(extDir); ; dir = dirname(dir)) {
      const manifest = join(dir, 'package.json');
      if (this.kind(manifest) === 'file') {
        if (!this.hiddenOver(manifest))
          this.add(manifest, manifest, 'read-only', 'its package scope', true);
        break;
      }
      if (dirname(dir) === dir) break;
    }
  }

  /** Covers every hidden path that a mount would show, at the place it appears inside. */
  private cover(): void {
    const covers: ScopeMount[] = [];
    for (const mount of this.mounts) {
      if (mount.access === 'hidden' || mount.kind !== 'dir') continue;
      for (const rule of this.hidden) {
        // Its own directories below a hidden one are covered too, then mounted again deeper.
        if (!within(mount.path, rule.real) || rule.real === mount.path) continue;
        const kind = this.kind(rule.real);
        if (kind !== 'dir' && kind !== 'file') continue;
        covers.push({ path: rule.real, access: 'hidden', kind, why: rule.why });
      }
    }
    this.mounts.push(...covers);
  }
}

/** Real directories the links directly in `modules` (and in its @scope directories) lead to. */
function linkedPackages(modules: string): string[] {
  const targets: string[] = [];
  const visit = (dir: string, scoped: boolean) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names.slice(0, 4096)) {
      const path = join(dir, name);
      const kind = lstatKind(path);
      if (kind === 'link') {
        const real = realPathOf(path);
        if (lstatKind(real) === 'dir' && !within(modules, real)) targets.push(real);
      } else if (kind === 'dir' && !scoped && name.startsWith('@')) visit(path, true);
    }
  };
  visit(modules, false);
  return targets;
}

/** One mount per path and access; a path both readable and writable is writable. */
function dedupe(mounts: ScopeMount[]): ScopeMount[] {
  const seen = new Set<string>();
  const writable = new Set(mounts.filter((m) => m.access === 'writable').map((m) => m.path));
  return mounts.filter((mount) => {
    if (mount.access === 'read-only' && writable.has(mount.path)) return false;
    const key = `${mount.access}\0${mount.path}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
