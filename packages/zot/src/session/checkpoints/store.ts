// The checkpoint store of one project: a bare git repository of zot's own under
// $ZOT_HOME/checkpoints/, with its own index, whose work tree is the project. git's content
// addressing makes an unchanged file cost nothing, and its index's stat cache means only
// changed files are read again. The user's repository, index, HEAD, refs and stash are never
// written: the only git command run in it is a read-only `ls-files`.
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { projectRoot } from '../../util/repository.js';
import { ensurePrivateDir } from '../../util/private-fs.js';
import { cwdKey } from '../store.js';
import { GitError, nulList, runGit } from './git.js';
import { listTree, type CheckpointLimits, type Skipped } from './tree-list.js';

/**
 * Attributes that win over the project's .gitattributes: content is stored and written back
 * byte for byte, with no filter, end-of-line or encoding conversion.
 */
const ATTRIBUTES = '* -text -eol -ident -filter -working-tree-encoding -crlf\n';

/** The most skipped paths a checkpoint names (the count is always kept). */
const MAX_SKIPPED_LISTED = 200;

export interface Snapshot {
  commit: string;
  skipped: Skipped[];
  /** Skipped paths beyond the ones listed. */
  moreSkipped: number;
  files: number;
  bytes: number;
}

export type SnapshotResult = { ok: true; snapshot: Snapshot } | { ok: false; reason: string };

export interface FileChange {
  path: string;
  /** Lines added and removed; undefined for a binary file. */
  added?: number;
  removed?: number;
}

const isHex40 = (text: string) => /^[0-9a-f]{40}$/.test(text);

export class CheckpointStore {
  private ready: Promise<void> | undefined;
  private dir: string | undefined;
  /** What this process last put in the store's index (saves listing it again each turn). */
  private indexed: { paths: Set<string>; stamp: string } | undefined;

  /** The index file's size and times: another zot writing the same store changes them. */
  private indexStamp(): string {
    try {
      const stat = statSync(join(this.gitDir, 'index'));
      return `${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.ino}`;
    } catch {
      return 'none';
    }
  }

  private constructor(
    /** The directory checkpoints cover: the repository's top level, or the working directory. */
    readonly root: string,
    readonly repository: boolean,
    private readonly limits: CheckpointLimits,
    private readonly zotHome: string,
  ) {}

  /**
   * The store for `cwd`'s project under `zotHome`. Contract: never throws; runs no process and
   * loads nothing more (a run that calls no tool pays nothing).
   */
  static for(cwd: string, zotHome: string, limits: CheckpointLimits): CheckpointStore {
    const project = projectRoot(cwd);
    const repository = existsSync(join(project, '.git'));
    const root = repository ? project : resolve(cwd);
    return new CheckpointStore(root, repository, limits, resolve(zotHome));
  }

  /** zot's git directory for this project: $ZOT_HOME/checkpoints/<name>-<hash>.git. */
  get gitDir(): string {
    this.dir ??= join(this.zotHome, 'checkpoints', `${cwdKey(this.root)}.git`);
    return this.dir;
  }

  private env(index = join(this.gitDir, 'index')): Record<string, string> {
    return { GIT_DIR: this.gitDir, GIT_WORK_TREE: this.root, GIT_INDEX_FILE: index };
  }

  private git(args: string[], input?: Buffer | string, index?: string): Promise<Buffer> {
    return runGit({
      args,
      cwd: this.root,
      git: this.env(index),
      ...(input !== undefined ? { input } : {}),
    });
  }

  private init(): Promise<void> {
    this.ready ??= (async () => {
      if (!existsSync(join(this.gitDir, 'HEAD'))) {
        ensurePrivateDir(join(this.zotHome, 'checkpoints'));
        await runGit({ args: ['init', '-q', '--bare', this.gitDir], cwd: this.root });
      }
      mkdirSync(join(this.gitDir, 'info'), { recursive: true });
      writeFileSync(join(this.gitDir, 'info', 'attributes'), ATTRIBUTES);
    })().catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  /** zot's own state is never part of a checkpoint (a project that holds ZOT_HOME). */
  private readonly excluded = (abs: string): boolean => {
    const rel = relative(this.zotHome, abs);
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  };

  /**
   * Records the tree as a commit under `ref` (refs/zot/...), with `meta` in its message.
   * Contract: never throws; a failure or a tree over the limits is `{ ok: false, reason }`.
   */
  async snapshot(ref: string, meta: Record<string, unknown>): Promise<SnapshotResult> {
    try {
      await this.init();
      const known =
        this.indexed && this.indexed.stamp === this.indexStamp() ? this.indexed.paths : undefined;
      // Whatever fails below leaves the index unknown: it is listed again next time.
      this.indexed = undefined;
      const [listing, indexed] = await Promise.all([
        listTree(this.root, this.repository, this.limits, this.excluded),
        known ?? this.git(['ls-files', '-z']).then((out) => new Set(nulList(out))),
      ]);
      if (!listing.ok) return listing;
      const keep = new Set(listing.files);
      const stale = [...indexed].filter((path) => !keep.has(path));
      if (stale.length > 0) {
        await this.git(
          ['update-index', '-z', '--force-remove', '--stdin'],
          stale.map((path) => path + '\0').join(''),
        );
      }
      if (listing.files.length > 0) {
        await this.git(
          ['update-index', '-z', '--add', '--remove', '--replace', '--stdin'],
          listing.files.map((path) => path + '\0').join(''),
        );
      }
      const tree = (await this.git(['write-tree'])).toString('utf8').trim();
      this.indexed = { paths: keep, stamp: this.indexStamp() };
      const skipped = listing.skipped.slice(0, MAX_SKIPPED_LISTED);
      const moreSkipped = listing.skipped.length - skipped.length;
      const message = JSON.stringify({ ...meta, root: this.root, skipped, moreSkipped });
      const commit = (await this.git(['commit-tree', tree], message)).toString('utf8').trim();
      if (!isHex40(commit)) return { ok: false, reason: `git commit-tree gave ${commit}` };
      await this.git(['update-ref', ref, commit]);
      return {
        ok: true,
        snapshot: {
          commit,
          skipped,
          moreSkipped,
          files: listing.files.length,
          bytes: listing.bytes,
        },
      };
    } catch (error) {
      const message = error instanceof GitError ? error.message : String(error);
      return { ok: false, reason: `the checkpoint of ${this.root} failed: ${message}` };
    }
  }

  /** What `commit`'s message recorded: its skipped paths. Contract: rejects with a GitError. */
  async skippedAt(commit: string): Promise<Set<string>> {
    const body = (await this.git(['cat-file', 'commit', commit])).toString('utf8');
    const message = body.slice(body.indexOf('\n\n') + 2);
    try {
      const meta = JSON.parse(message) as { skipped?: Array<{ path?: unknown }> };
      return new Set(
        (meta.skipped ?? []).flatMap((entry) =>
          typeof entry.path === 'string' ? [entry.path] : [],
        ),
      );
    } catch {
      return new Set();
    }
  }

  /** Files that differ between two checkpoints, with line counts. Contract: rejects with a GitError. */
  async changes(from: string, to: string): Promise<FileChange[]> {
    const out = nulList(
      await this.git(['diff-tree', '-r', '-z', '--no-renames', '--numstat', from, to]),
    );
    // -z --numstat: "added\tremoved\tpath" per NUL-terminated item.
    return out.map((item) => {
      const [added, removed, ...rest] = item.split('\t');
      const path = rest.join('\t');
      return added === '-' ? { path } : { path, added: Number(added), removed: Number(removed) };
    });
  }

  /** Paths that differ between two checkpoints, with git's status letter (A, D, M, T). */
  async differences(from: string, to: string): Promise<Array<{ status: string; path: string }>> {
    const items = nulList(
      await this.git(['diff-tree', '-r', '-z', '--no-renames', '--name-status', from, to]),
    );
    const found: Array<{ status: string; path: string }> = [];
    for (let at = 0; at + 1 < items.length; at += 2) {
      found.push({ status: items[at]!, path: items[at + 1]! });
    }
    return found;
  }

  /** A unified diff between two checkpoints (for a preview), cut at `maxBytes`. */
  async diffText(from: string, to: string, maxBytes = 256 * 1024): Promise<string> {
    const out = await this.git(['diff-tree', '-r', '-p', '--no-renames', '--no-color', from, to]);
    return out.length > maxBytes
      ? out.subarray(0, maxBytes).toString('utf8') + '\n[diff cut]\n'
      : out.toString('utf8');
  }

  /**
   * Writes `paths` as they are in `commit` into the work tree (through a scratch index, never
   * the store's own). git's checkout refuses to write through a symlinked directory.
   */
  async writeBack(commit: string, paths: string[]): Promise<void> {
    if (paths.length === 0) return;
    const scratch = join(this.gitDir, 'restore-index');
    await this.git(['read-tree', commit], undefined, scratch);
    await this.git(
      ['checkout-index', '-f', '-z', '--stdin'],
      paths.map((path) => path + '\0').join(''),
      scratch,
    );
  }

  /**
   * Of `paths` (relative to the root), the ones the user's repository ignores now (never
   * deleted by a restore). Outside a repository: none.
   */
  async ignored(paths: string[]): Promise<Set<string>> {
    if (!this.repository || paths.length === 0) return new Set();
    const out = await runGit({
      args: ['check-ignore', '-z', '--stdin'],
      cwd: this.root,
      input: paths.map((path) => path + '\0').join(''),
      okCodes: [1],
    });
    return new Set(nulList(out));
  }

  /** Removes refs (checkpoints) under `prefix`. Contract: rejects with a GitError. */
  async dropRefs(refs: string[]): Promise<void> {
    if (refs.length === 0) return;
    await this.git(['update-ref', '--stdin'], refs.map((ref) => `delete ${ref}\n`).join(''));
  }

  /** Every checkpoint ref with its commit time (seconds). */
  async refs(): Promise<Array<{ ref: string; time: number }>> {
    await this.init();
    const out = (
      await this.git(['for-each-ref', '--format=%(committerdate:unix) %(refname)', 'refs/zot/'])
    ).toString('utf8');
    return out
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const space = line.indexOf(' ');
        return { time: Number(line.slice(0, space)), ref: line.slice(space + 1) };
      });
  }

  /** Removes objects no checkpoint uses any more (ones younger than an hour are kept: a
   * checkpoint being written right now is safe). */
  async collect(): Promise<void> {
    await this.git(['-c', 'gc.auto=0', 'gc', '--quiet', '--prune=1.hour.ago']);
  }
}
