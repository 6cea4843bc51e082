// The checkpoint store of one project: a bare git repository of zot's own under
// $ZOT_HOME/checkpoints/, with its own index, whose work tree is the project. git's content
// addressing makes an unchanged file cost nothing. A process's first checkpoint goes through
// the store's index (whose stat cache means only changed files are read again); later ones
// compare each file's lstat with the one recorded and write the few changed blobs and trees
// themselves (tree-state.ts), so a turn's checkpoint starts one git process: the listing.
// The user's repository, index, HEAD, refs and stash are never written: the only git command
// run in it is a read-only `ls-files`.
import { appendFileSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { projectRoot } from '../../util/repository.js';
import { ensurePrivateDir } from '../../util/private-fs.js';
import { cwdKey } from '../store.js';
import { GitError, nulList, runGit } from './git.js';
import { usesSha1, writeCommit, writeRef } from './loose-objects.js';
import {
  listPaths,
  restatKnown,
  sizePaths,
  type CheckpointLimits,
  type Listing,
  type Skipped,
  type StoredFile,
} from './tree-list.js';
import { MIN_SEEDED_FILES, seedFromRepository } from './seed.js';
import { recordTree, stateFromListing, type TreeState } from './tree-state.js';

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

export type SnapshotResult =
  | { ok: true; snapshot: Snapshot }
  | { ok: false; reason: string; lasting?: true };

/** A file in the store that grows each time checkpoints are dropped (see pruneStamp). */
const DROPPED = 'zot-dropped';

/** Times a held index lock is waited out (25 ms, doubling: about 1.6 s in all). */
const LOCK_RETRIES = 6;

export interface Difference {
  /** git's letter: A (only in `to`), D (only in `from`), M, T. */
  status: string;
  path: string;
  /** Its mode and blob id in `to` (zeros when it is not there). */
  mode: string;
  id: string;
}

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
  /**
   * The last tree this process recorded, file by file (a later checkpoint hashes only what
   * changed and writes only the trees above it), valid while `pruneStamp` says no prune ran:
   * one may delete objects it names.
   */
  private state: (TreeState & { stamp: string }) | undefined;

  /** Changes when checkpoints are dropped (by any process: see dropRefs) or the store is made anew. */
  private pruneStamp(): string {
    const dropped = statSync(join(this.gitDir, DROPPED), { throwIfNoEntry: false });
    const objects = statSync(join(this.gitDir, 'objects'), { throwIfNoEntry: false });
    return `${objects?.ino ?? 'none'}:${dropped?.mtimeMs ?? 'none'}:${dropped?.size ?? ''}`;
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

  /** `excluded`, when ZOT_HOME lies in the tree (else no path needs the check). */
  private get exclusion(): ((abs: string) => boolean) | undefined {
    const rel = relative(this.root, this.zotHome);
    return rel.startsWith('..') || isAbsolute(rel) ? undefined : this.excluded;
  }

  /**
   * Records the tree as a commit under `ref` (refs/zot/...), with `meta` in its message.
   * Contract: never throws; a failure or a tree over the limits is `{ ok: false, reason }`
   * (`lasting` when trying again cannot help: a tree over the limits, git missing).
   */
  async snapshot(ref: string, meta: Record<string, unknown>): Promise<SnapshotResult> {
    try {
      await this.init();
      const since = Date.now();
      const stamp = this.pruneStamp();
      const state = this.state?.stamp === stamp ? this.state : undefined;
      // Whatever fails below leaves the tree unknown: git looks at every file next time.
      this.state = undefined;
      // Without a recorded tree git will need its index's paths: listed meanwhile.
      const indexed = state ? undefined : this.indexedPaths();
      // Each recorded file's lstat against the one recorded, while git lists the tree: only
      // the changed and the new are looked at again, and read.
      const [listed, restated] = await Promise.all([
        listPaths(this.root, this.repository, this.limits, this.exclusion),
        state ? restatKnown(this.root, state.files) : undefined,
      ]);
      if (!listed.ok) return listed;
      const listing = await sizePaths(this.root, listed.paths, this.limits, state?.files, restated);
      if (!listing.ok) return listing;
      const sha1 = usesSha1(this.gitDir);
      const next =
        (state && sha1
          ? await recordTree(this.gitDir, this.root, state, listing, this.limits, since)
          : undefined) ??
        (await this.recordWithGit(
          listing,
          state?.files,
          await (indexed ?? this.indexedPaths()),
          since,
          sha1,
        ));
      if (!isHex40(next.tree)) return { ok: false, reason: `git write-tree gave ${next.tree}` };
      if (next.files) this.state = { ...next, stamp } as TreeState & { stamp: string };
      const skipped = listing.skipped.slice(0, MAX_SKIPPED_LISTED);
      const moreSkipped = listing.skipped.length - skipped.length;
      const message = JSON.stringify({ ...meta, root: this.root, skipped, moreSkipped });
      const commit = await this.commit(ref, next.tree, message);
      if (!isHex40(commit)) return { ok: false, reason: `git commit-tree gave ${commit}` };
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
      return {
        ok: false,
        reason: `the checkpoint of ${this.root} failed: ${message}`,
        ...(error instanceof GitError && error.code === null ? { lasting: true as const } : {}),
      };
    }
  }

  /** The paths in the store's index; a failure is the caller's (when it waits for them). */
  private indexedPaths(): Promise<string[]> {
    const paths = this.git(['ls-files', '-z']).then(nulList);
    paths.catch(() => {});
    return paths;
  }

  /**
   * The tree of `listing` written by git through the store's index: every listed file is
   * handed to update-index, which reads again only the ones whose stat differs from its index
   * entry. Then (a SHA-1 store) the tree is listed back, so later checkpoints can do without
   * git. Contract: rejects with a GitError.
   */
  private async recordWithGit(
    listing: Extract<Listing, { ok: true }>,
    known: ReadonlyMap<string, StoredFile> | undefined,
    indexed: string[],
    since: number,
    sha1: boolean,
  ): Promise<Partial<TreeState> & { tree: string }> {
    const keep = new Set(listing.files);
    // A new store of a repository: the blobs the user's repository has are copied first.
    if (indexed.length === 0 && this.repository && sha1 && keep.size >= MIN_SEEDED_FILES)
      await seedFromRepository(this.root, this.gitDir, keep, this.limits.maxTotalBytes);
    const stale = indexed.filter((path) => !keep.has(path));
    // A stale path still on disk (ignored now, or skipped) must be forced out of the index;
    // one that is gone leaves with --remove.
    const present = stale.filter((path) => existsSync(join(this.root, path)));
    const kept = new Set(present);
    const gone = stale.filter((path) => !kept.has(path));
    if (present.length > 0) {
      await this.writeIndex(
        ['update-index', '-z', '--force-remove', '--stdin'],
        present.map((path) => path + '\0').join(''),
      );
    }
    await this.writeIndex(
      ['update-index', '-z', '--add', '--remove', '--replace', '--stdin'],
      [...listing.files, ...gone].map((path) => path + '\0').join(''),
    );
    const tree = (await this.writeIndex(['write-tree'])).toString('utf8').trim();
    if (!sha1 || !isHex40(tree)) return { tree };
    const items = nulList(await this.git(['ls-tree', '-r', '-t', '-z', '--full-tree', tree]));
    return stateFromListing(tree, items, listing, known, since) ?? { tree };
  }

  /** A commit of `tree` under `ref`: written directly into a SHA-1 store, else by git. */
  private async commit(ref: string, tree: string, message: string): Promise<string> {
    if (usesSha1(this.gitDir)) {
      const commit = writeCommit(this.gitDir, tree, message);
      writeRef(this.gitDir, ref, commit);
      return commit;
    }
    const commit = (await this.git(['commit-tree', tree], message)).toString('utf8').trim();
    if (isHex40(commit) || /^[0-9a-f]{64}$/.test(commit))
      await this.git(['update-ref', ref, commit]);
    return commit;
  }

  /**
   * A git command that writes the store's index: another zot checkpointing the same project
   * may hold its lock for a moment, so a held lock is waited out (up to about 2 s) before it
   * counts as a failure. Contract: rejects with a GitError.
   */
  private async writeIndex(args: string[], input?: string): Promise<Buffer> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.git(args, input);
      } catch (error) {
        const locked = error instanceof GitError && /index\.lock/.test(error.stderr);
        if (!locked || attempt >= LOCK_RETRIES) throw error;
        await new Promise((resolve) => setTimeout(resolve, 25 * 2 ** attempt));
      }
    }
  }

  /**
   * What `commit` records: its tree, and the paths its checkpoint skipped (from its message).
   * Contract: rejects with a GitError.
   */
  async commitInfo(commit: string): Promise<{ tree: string; skipped: Set<string> }> {
    const body = (await this.git(['cat-file', 'commit', commit])).toString('utf8');
    const tree = /^tree ([0-9a-f]+)\n/.exec(body)?.[1] ?? '';
    const message = body.slice(body.indexOf('\n\n') + 2);
    try {
      const meta = JSON.parse(message) as { skipped?: Array<{ path?: unknown }> };
      const skipped = new Set(
        (meta.skipped ?? []).flatMap((entry) =>
          typeof entry.path === 'string' ? [entry.path] : [],
        ),
      );
      return { tree, skipped };
    } catch {
      return { tree, skipped: new Set() };
    }
  }

  /**
   * Records `tree` (the tree a complete rewind restored, which the files now are) as a
   * checkpoint under `ref` without listing the files again. Contract: rejects on a git or file
   * system error.
   */
  async record(ref: string, tree: string, meta: Record<string, unknown>): Promise<string> {
    if (!isHex40(tree)) throw new Error(`not a tree id: ${tree}`);
    const message = JSON.stringify({ ...meta, root: this.root, skipped: [], moreSkipped: 0 });
    return this.commit(ref, tree, message);
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

  /**
   * Paths that differ between two checkpoints, with git's status letter (A, D, M, T) and the
   * mode and blob id each has in `to`. Contract: rejects with a GitError.
   */
  async differences(from: string, to: string): Promise<Difference[]> {
    const items = nulList(
      await this.git(['diff-tree', '-r', '-z', '--no-renames', '--raw', from, to]),
    );
    // -z --raw: ":srcmode dstmode srcid dstid status" then the path, each NUL-terminated.
    const found: Difference[] = [];
    for (let at = 0; at + 1 < items.length; at += 2) {
      const [, mode = '', , id = '', status = ''] = items[at]!.slice(1).split(' ');
      found.push({ status, path: items[at + 1]!, mode, id });
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
   * Writes `paths` as they are in `commit` into the work tree and the store's own index (one
   * git command, which records their new stat: the next checkpoint finds them unchanged
   * instead of reading them again). Paths are taken literally; git's checkout refuses to write
   * through a symlinked directory. Contract: rejects with a GitError.
   */
  async writeBack(commit: string, paths: readonly string[]): Promise<void> {
    if (paths.length === 0) return;
    // The written files are read again at the next checkpoint (they were just written).
    for (const path of paths) {
      const known = this.state?.files.get(path);
      if (known) known.sig = undefined;
    }
    await this.writeIndex(
      [
        '--literal-pathspecs',
        'restore',
        `--source=${commit}`,
        '--staged',
        '--worktree',
        '--pathspec-from-file=-',
        '--pathspec-file-nul',
      ],
      paths.map((path) => path + '\0').join(''),
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
    // First, so that every process's recorded tree (whose objects a gc may now delete) is
    // dropped before any object goes.
    this.state = undefined;
    appendFileSync(join(this.gitDir, DROPPED), '.');
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
    this.state = undefined;
    await this.git(['-c', 'gc.auto=0', 'gc', '--quiet', '--prune=1.hour.ago']);
  }
}
