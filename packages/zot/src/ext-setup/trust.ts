// Trust for project-local extensions (issue 5): cloning a repository must never run its code.
// A project extension is spawned only when $ZOT_HOME/trust.json pins its current content hash.
import { readJsonObject, updateJsonObject, type JsonRead } from '../config/json-file.js';
import type { ZotPaths } from '../config/paths.js';
import type { DiscoveredExtension, ReplaceCheck } from './discovery.js';
import type { TreeLimits } from './tree.js';
import { hashExtension, type TrustTarget } from './trust-hash.js';
import {
  permissionsFromCanonical,
  widenedPermissions,
  type ExtensionPermissions,
} from '../security/scope/permissions.js';

/**
 * What `now` asks for beyond the permissions the record's review showed (empty when nothing is
 * wider, or when the record predates scopes). Contract: never throws.
 */
export function widenedSinceTrust(
  record: TrustRecord | undefined,
  now: ExtensionPermissions | undefined,
): string[] {
  if (record?.permissions === undefined || record.permissions === 'unscoped') return [];
  const before = permissionsFromCanonical(record.permissions);
  return before ? widenedPermissions(before, now) : [];
}

export interface TrustRecord {
  /** The manifest name when trusted (for display and for `untrust` of a vanished directory). */
  name: string;
  hash: string;
  trusted_at: string;
  /**
   * The global extension directory this project extension may replace (same name): set only by
   * a trust whose review said so. Without it, a clash keeps the global one.
   */
  replaces?: string;
  /**
   * The permissions the review showed, canonical (`unscoped` for none): a later review lists
   * what asks for more. Absent in records written before scopes existed.
   */
  permissions?: string;
}

interface TrustFile {
  version: 1;
  /** Keyed by the extension's real directory. */
  extensions: Record<string, TrustRecord>;
}

export type TrustRead =
  | { ok: true; records: Map<string, TrustRecord> }
  | { ok: false; error: string };

/** `$ZOT_HOME/trust.json`. Contract: reads never throw; writes are atomic and throw on failure. */
export class TrustStore {
  constructor(readonly path: string) {}

  read(): TrustRead {
    return recordsOf(this.path, readJsonObject<Partial<TrustFile>>(this.path));
  }

  /**
   * Records (or overwrites) the trust for `dir`; a concurrent change to another record is kept.
   * `replaces`: the global extension directory the review said this one replaces.
   */
  set(
    dir: string,
    name: string,
    hash: string,
    options: { replaces?: string | undefined; permissions?: string | undefined; now?: Date } = {},
  ): void {
    const now = options.now ?? new Date();
    this.update((records) => {
      const record: TrustRecord = { name, hash, trusted_at: now.toISOString() };
      if (options.replaces !== undefined) record.replaces = options.replaces;
      if (options.permissions !== undefined) record.permissions = options.permissions;
      records.set(dir, record);
      return true;
    });
  }

  /** Removes the records for these directories; returns how many existed. */
  remove(dirs: string[]): number {
    let removed = 0;
    this.update((records) => {
      for (const dir of dirs) if (records.delete(dir)) removed++;
      return removed > 0;
    });
    return removed;
  }

  /** A locked read-modify-write; `change` returns whether to write. */
  private update(change: (records: Map<string, TrustRecord>) => boolean): void {
    updateJsonObject<TrustFile>(this.path, 0o600, (raw) => {
      const read = recordsOf(this.path, raw);
      if (!read.ok) throw new Error(`${read.error}; fix or delete it, then try again`);
      if (!change(read.records)) return undefined;
      return { version: 1, extensions: Object.fromEntries(read.records) };
    });
  }
}

function recordsOf(path: string, read: JsonRead<Partial<TrustFile>>): TrustRead {
  if (!read.ok) return read;
  const records = new Map<string, TrustRecord>();
  const raw = read.value?.extensions;
  if (raw === undefined) return { ok: true, records };
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, error: `${path}: "extensions" must be an object` };
  }
  for (const [dir, record] of Object.entries(raw)) {
    const r = record as Partial<TrustRecord> | null;
    if (r && typeof r.name === 'string' && typeof r.hash === 'string') {
      records.set(dir, {
        name: r.name,
        hash: r.hash,
        trusted_at: typeof r.trusted_at === 'string' ? r.trusted_at : '',
        ...(typeof r.replaces === 'string' ? { replaces: r.replaces } : {}),
        ...(typeof r.permissions === 'string' ? { permissions: r.permissions } : {}),
      });
    }
  }
  return { ok: true, records };
}

export type TrustState =
  | { state: 'trusted'; hash: string; record: TrustRecord }
  | { state: 'untrusted'; hash: string }
  | { state: 'changed'; hash: string; record: TrustRecord }
  | { state: 'error'; error: string };

/**
 * Whether the extension's current content (its directory and the paths trust covers, see
 * `hashExtension`) is the content that was trusted. Contract: never throws.
 */
export function trustStateOf(
  target: TrustTarget,
  store: TrustStore,
  limits?: TreeLimits,
): TrustState {
  const read = store.read();
  if (!read.ok) return { state: 'error', error: read.error };
  const record = read.records.get(target.dir);
  const hashed = hashExtension(target, limits);
  if (!hashed.ok) return { state: 'error', error: hashed.error };
  if (!record) return { state: 'untrusted', hash: hashed.hash };
  if (record.hash !== hashed.hash) return { state: 'changed', hash: hashed.hash, record };
  return { state: 'trusted', hash: hashed.hash, record };
}

/** `ZOT_TRUST_PROJECT_EXTENSIONS=1` trusts every project extension for one run (CI). */
export function trustAllFromEnv(env: NodeJS.ProcessEnv): boolean {
  const value = env.ZOT_TRUST_PROJECT_EXTENSIONS;
  return value === '1' || value === 'true';
}

/**
 * The `allow` hook of HostOptions. Global extensions (installed by the user) and `--ext` paths
 * are trusted by the user's own act; a project extension runs only when its current content
 * hash is the trusted one, or when ZOT_TRUST_PROJECT_EXTENSIONS=1.
 * Contract: never throws; a refusal is a message that names `zot ext trust <name>`.
 */
export function trustGate(
  paths: Pick<ZotPaths, 'trust'>,
  env: NodeJS.ProcessEnv = process.env,
  limits?: TreeLimits,
): (entry: DiscoveredExtension) => string | undefined {
  const store = new TrustStore(paths.trust);
  return (entry) => {
    if (entry.scope !== 'project' || trustAllFromEnv(env)) return undefined;
    const name = entry.manifest?.name ?? entry.dir;
    const what = `project extension ${name} (${entry.dir})`;
    const state = trustStateOf(entry, store, limits);
    switch (state.state) {
      case 'trusted':
        return undefined;
      case 'untrusted':
        return (
          `${what} is not trusted, so it was not started; review it, then run ` +
          `\`zot ext trust ${name}\` (or set ZOT_TRUST_PROJECT_EXTENSIONS=1 for one run)`
        );
      case 'changed':
        return (
          `${what} changed since you trusted it, so it was not started; review the changes, ` +
          `then run \`zot ext trust ${name}\` again`
        );
      case 'error':
        return `${what} was not started: its trust cannot be checked (${state.error}); see \`zot ext trust ${name}\``;
    }
  };
}

/**
 * The `replaces` check of discovery from trust.json: a project extension takes the name of the
 * global one at `global.dir` only when its record says it replaces exactly that directory and
 * its content is still the trusted content. ZOT_TRUST_PROJECT_EXTENSIONS does not grant this:
 * replacing one of the user's own extensions always needs a review that said so.
 * Contract: never throws; anything unreadable means "no".
 */
export function storedReplacement(
  paths: Pick<ZotPaths, 'trust'>,
  limits?: TreeLimits,
): ReplaceCheck {
  const store = new TrustStore(paths.trust);
  return (project, global) => {
    if (project.scope !== 'project' || global.scope !== 'global') return false;
    const read = store.read();
    const record = read.ok ? read.records.get(project.dir) : undefined;
    if (record?.replaces !== global.dir) return false;
    const hashed = hashExtension(project, limits);
    return hashed.ok && hashed.hash === record.hash;
  };
}
