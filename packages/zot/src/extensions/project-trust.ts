// Trust decisions made inside a running zot (the TUI's trust dialog, `/trust`): what an untrusted
// project extension would run, and the user's answer: trust always (pinned in trust.json, as
// `zot ext trust` does), run once (this process only, pinned to the reviewed hash) or skip.
import type { ZotPaths } from '../config/paths.js';
import { discoverExtensions, type DiscoveredExtension } from './discovery.js';
import { argumentOutside, resolveExec } from './exec-resolve.js';
import { hashExtension } from './trust-hash.js';
import { trustAllFromEnv, trustGate, TrustStore } from './trust.js';

/** What the user is shown before deciding. Every string is raw: the front end escapes it. */
export interface TrustReview {
  name: string;
  dir: string;
  description?: string;
  /** `new`: never trusted; `changed`: trusted once, different now; `once`: running this session only. */
  state: 'new' | 'changed' | 'once';
  /** When the old content was trusted (`changed`). */
  trustedAt?: string;
  /** The program and its arguments, as they would be spawned. */
  argv: string[];
  files: number;
  bytes: number;
  /** Paths outside the directory the hash covers too (node_modules Node would search). */
  covered: string[];
  /** `sha256:<hex>` of everything above: what a decision pins. */
  hash: string;
}

export type TrustDecision = 'always' | 'once' | 'skip';

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
  /** Run once: extension directory -> the reviewed hash it may run with. */
  private readonly once = new Map<string, string>();

  constructor(private readonly options: ProjectTrustOptions) {
    this.store = new TrustStore(options.paths.trust);
    this.stored = trustGate(options.paths, options.env);
  }

  /** The host's `allow` hook: this process's run-once answers, then trust.json. */
  readonly gate = (entry: DiscoveredExtension): string | undefined => {
    // A run-once answer needs only the hash it pinned; trust.json is not read for it.
    const pinned = this.once.get(entry.dir);
    if (pinned !== undefined) {
      const now = hashExtension(entry);
      if (now.ok && now.hash === pinned) return undefined;
    }
    return this.stored(entry);
  };

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

  /** Applies one answer. Returns an error message, or undefined when it was applied. */
  decide(dir: string, hash: string, decision: TrustDecision): string | undefined {
    if (decision === 'skip') {
      this.once.delete(dir);
      return undefined;
    }
    const entry = this.projectEntries().find((candidate) => candidate.dir === dir);
    if (!entry) return `${dir} is no longer a project extension`;
    const name = entry.manifest!.name;
    const now = hashExtension(entry);
    if (!now.ok) return `cannot trust ${name}: ${now.error}`;
    if (now.hash !== hash) return `${name} changed while you reviewed it; review it again`;
    if (decision === 'once') {
      this.once.set(dir, hash);
      return undefined;
    }
    try {
      this.store.set(dir, name, hash);
      this.once.delete(dir);
      return undefined;
    } catch (error) {
      return `could not record the trust for ${name}: ${(error as Error).message}`;
    }
  }

  private projectEntries(): DiscoveredExtension[] {
    const { entries } = discoverExtensions({
      cwd: this.options.cwd,
      zotHome: this.options.paths.home,
      extPaths: [],
      noExt: false,
    });
    return entries.filter(
      (entry) =>
        entry.scope === 'project' &&
        entry.status === 'load' &&
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
    if (record?.hash === hashed.hash) return undefined;
    const manifest = entry.manifest!;
    const exec = resolveExec(manifest, this.options.env);
    const files = hashed.entries.filter((file) => file.kind === 'file');
    const state = this.once.get(entry.dir) === hashed.hash ? 'once' : record ? 'changed' : 'new';
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
    };
  }
}
