// Trust decisions made inside a running zot (the TUI's trust dialog, `/trust`): what an untrusted
// project extension would run, and the user's answer: trust always (pinned in trust.json, as
// `zot ext trust` does), run once (this process only, pinned to the reviewed hash) or skip.
// A project extension with the name of a global one is reviewed as replacing it, and only an
// answer to that review lets it run in the global one's place.
import type { ZotPaths } from '../config/paths.js';
import { discoverExtensions, type DiscoveredExtension, type ReplaceCheck } from './discovery.js';
import { argumentOutside, resolveExec } from './exec-resolve.js';
import { hashExtension } from './trust-hash.js';
import {
  storedReplacement,
  trustAllFromEnv,
  trustGate,
  TrustStore,
  widenedSinceTrust,
} from './trust.js';
import {
  canonicalPermissions,
  describePermissions,
  summarizePermissions,
} from '../security/scope/permissions.js';

/** What the user is shown before deciding. Every string is raw: the front end escapes it. */

import type { TrustDecision, TrustReview } from '../contract/front-end.js';
export type { TrustDecision, TrustReview };

export interface ProjectTrustOptions {
  paths: Pick<ZotPaths, 'trust' | 'home'>;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** `--no-ext`: no project extension runs, so none is asked about. */
  noExt?: boolean;
}

/**
 * The trust gate of one zot process plus its in-process answers. Contract: never throws; a
 * decision on content that changed since its review is refused (the user saw something else).
 */
export class ProjectTrust {
  private readonly store: TrustStore;
  private readonly stored: (entry: DiscoveredExtension) => string | undefined;
  private readonly storedReplaces: ReplaceCheck;
  /** Run once: extension directory -> the reviewed hash it may run with (and what it replaces). */
  private readonly once = new Map<string, { hash: string; replaces?: string }>();

  constructor(private readonly options: ProjectTrustOptions) {
    this.store = new TrustStore(options.paths.trust);
    this.stored = trustGate(options.paths, options.env);
    this.storedReplaces = storedReplacement(options.paths);
  }

  /** The host's `allow` hook: this process's run-once answers, then trust.json. */
  readonly gate = (entry: DiscoveredExtension): string | undefined => {
    // A run-once answer needs only the hash it pinned; trust.json is not read for it.
    if (this.onceHolds(entry)) return undefined;
    return this.stored(entry);
  };

  /** Discovery's `replaces` hook: a run-once answer to a review that said so, or trust.json. */
  readonly mayReplace: ReplaceCheck = (project, global) => {
    const once = this.once.get(project.dir);
    if (once?.replaces === global.dir && this.onceHolds(project)) return true;
    return this.storedReplaces(project, global);
  };

  private onceHolds(entry: DiscoveredExtension): boolean {
    const pinned = this.once.get(entry.dir);
    if (pinned === undefined) return false;
    const now = hashExtension(entry);
    return now.ok && now.hash === pinned.hash;
  }

  /** Project extensions that would run but are not trusted (or only for this session). */
  reviews(): TrustReview[] {
    if (this.options.noExt || trustAllFromEnv(this.options.env)) return [];
    const reviews: TrustReview[] = [];
    for (const entry of this.projectEntries()) {
      const review = this.reviewOf(entry);
      if (review) reviews.push(review);
    }
    return reviews;
  }

  /**
   * Applies one answer. `replaces`: the global directory the review said this one replaces (it
   * must still be the one it clashes with). Returns an error message, or undefined when applied.
   */
  decide(
    dir: string,
    hash: string,
    decision: TrustDecision,
    replaces?: string,
  ): string | undefined {
    if (decision === 'skip') {
      this.once.delete(dir);
      return undefined;
    }
    const entry = this.projectEntries().find((candidate) => candidate.dir === dir);
    if (!entry) return `${dir} is no longer a project extension`;
    const name = entry.manifest!.name;
    const now = hashExtension(entry);
    if (!now.ok) return `cannot trust ${name}: ${now.error}`;
    if (now.hash !== hash || clashOf(entry)?.dir !== replaces)
      return `${name} changed while you reviewed it; review it again`;
    if (decision === 'once') {
      this.once.set(dir, replaces !== undefined ? { hash, replaces } : { hash });
      return undefined;
    }
    try {
      const permissions = canonicalPermissions(entry.manifest!.permissions);
      this.store.set(dir, name, hash, { replaces, permissions });
      this.once.delete(dir);
      return undefined;
    } catch (error) {
      return `could not record the trust for ${name}: ${(error as Error).message}`;
    }
  }

  /** Project extensions that would run, or would run in place of a global one of that name. */
  private projectEntries(): DiscoveredExtension[] {
    const { entries } = discoverExtensions({
      cwd: this.options.cwd,
      zotHome: this.options.paths.home,
      extPaths: [],
      noExt: false,
      replaces: this.mayReplace,
    });
    // Of several project entries with a global one's name, only the first can replace it.
    const first = new Set<DiscoveredExtension>();
    const named = new Set<string>();
    for (const entry of entries) {
      if (entry.scope !== 'project' || !entry.manifest || named.has(entry.manifest.name)) continue;
      named.add(entry.manifest.name);
      first.add(entry);
    }
    return entries.filter(
      (entry) =>
        entry.scope === 'project' &&
        (entry.status === 'load' || (first.has(entry) && clashOf(entry) !== undefined)) &&
        entry.manifest?.kind === 'process' &&
        entry.manifest.enabled &&
        argumentOutside(entry.manifest) === undefined,
    );
  }

  private reviewOf(entry: DiscoveredExtension): TrustReview | undefined {
    const read = this.store.read();
    const hashed = hashExtension(entry);
    if (!read.ok || !hashed.ok) return undefined; // the gate's refusal already names the problem
    const record = read.records.get(entry.dir);
    // Trusted content: nothing to ask, also when it was trusted without replacing a global one.
    if (record?.hash === hashed.hash) return undefined;
    const manifest = entry.manifest!;
    const exec = resolveExec(manifest, this.options.env);
    const files = hashed.entries.filter((file) => file.kind === 'file');
    const state =
      this.once.get(entry.dir)?.hash === hashed.hash ? 'once' : record ? 'changed' : 'new';
    const clash = clashOf(entry);
    return {
      name: manifest.name,
      dir: entry.dir,
      ...(manifest.description !== undefined ? { description: manifest.description } : {}),
      state,
      ...(record ? { trustedAt: record.trusted_at } : {}),
      argv: exec.ok ? [exec.command, ...exec.args] : [manifest.exec ?? '', ...manifest.args],
      files: files.length,
      bytes: files.reduce((sum, file) => sum + file.size, 0),
      covered: hashed.covered.map((path) => path.path),
      hash: hashed.hash,
      ...(clash ? { replaces: { name: manifest.name, dir: clash.dir } } : {}),
      scoped: manifest.permissions !== undefined,
      permissions: describePermissions(manifest.permissions),
      summary: manifest.permissions ? summarizePermissions(manifest.permissions) : [],
      widened: widenedSinceTrust(record, manifest.permissions),
    };
  }
}

/** The global extension a project entry clashes with: the one it replaces or gives way to. */
function clashOf(entry: DiscoveredExtension): { dir: string } | undefined {
  if (entry.replaces) return { dir: entry.replaces.dir };
  if (entry.status === 'shadowed' && entry.shadowedBy?.scope === 'global') return entry.shadowedBy;
  return undefined;
}
