// What this process last recorded in a store: each stored file's blob id, mode and stat, and
// each directory's entries and tree id. With it a checkpoint needs no git process in the store: the files
// whose stat changed are read and hashed here, and only the trees of their directories, up to
// the root, are written again (as loose objects); every other directory keeps its tree id.
// Whatever this cannot do plainly (many or large changed files, a race that makes a name both a
// file and a directory) is left to git by returning undefined.
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readFileSync,
  readlinkSync,
  type Stats,
} from 'node:fs';
import { join } from 'node:path';
import { writeObject } from './loose-objects.js';
import {
  settled,
  signature,
  type CheckpointLimits,
  type Signature,
  type StoredFile,
} from './tree-list.js';

export interface TreeState {
  files: Map<string, StoredFile>;
  /** Each directory's entries by name ('' is the root): a file, or a subdirectory. */
  dirs: Map<string, Map<string, Entry>>;
  /** Tree id by directory. */
  trees: Map<string, string>;
  tree: string;
}

/** Most changed files, and bytes, hashed here in one checkpoint (more go to git). */
export const MAX_FRESH_FILES = 256;
export const MAX_FRESH_BYTES = 4 * 1024 * 1024;

const DIRECTORY = Symbol('directory');
type Entry = StoredFile | typeof DIRECTORY;

const parentOf = (path: string) => {
  const at = path.lastIndexOf('/');
  return at < 0 ? '' : path.slice(0, at);
};
const nameOf = (path: string) => path.slice(path.lastIndexOf('/') + 1);
const depthOf = (dir: string) => (dir === '' ? 0 : dir.split('/').length);

/** git's mode for a stored file: a link, an executable or a plain file. */
export function modeOf(mode: number): string {
  if ((mode & constants.S_IFMT) === constants.S_IFLNK) return '120000';
  return mode & 0o100 ? '100755' : '100644';
}

/**
 * Reads and stores one changed file as a blob, never following a symlink (a link's blob is its
 * target). Undefined when it is no longer a storable file of at most `maxBytes`.
 */
function storeFile(
  gitDir: string,
  root: string,
  path: string,
  stat: Stats,
  since: number,
  maxBytes: number,
): StoredFile | undefined {
  const abs = join(root, path);
  if (modeOf(stat.mode) === '120000') {
    const target = readlinkSync(abs, { encoding: 'buffer' });
    const id = writeObject(gitDir, 'blob', target);
    // The lstat came before the read: a link retargeted since has another stat next time.
    const sig = settled(stat, since) ? signature(stat) : undefined;
    return { mode: '120000', id, size: target.length, sig };
  }
  const fd = openSync(abs, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const opened = fstatSync(fd);
    if (!opened.isFile() || opened.size > maxBytes) return undefined;
    const content = readFileSync(fd);
    if (content.length > maxBytes) return undefined;
    const id = writeObject(gitDir, 'blob', content);
    // The stat taken before the read vouches for it only if nothing wrote the file near then.
    const sig = settled(opened, since) ? signature(opened) : undefined;
    return { mode: modeOf(opened.mode), id, size: content.length, sig };
  } finally {
    closeSync(fd);
  }
}

/**
 * Brings `state` (the last tree recorded) to `listing`: stores the fresh files, drops the
 * ones gone, and writes the trees of the directories that changed. Undefined when git should
 * do it instead (too many or too large changed files, a file that changed kind while read, a
 * name both a file and a directory); `state` is then spent. Contract: throws on a file system
 * error writing the store (`state` is then spent too).
 */
export async function recordTree(
  gitDir: string,
  root: string,
  state: TreeState,
  listing: { files: readonly string[]; fresh: ReadonlyMap<string, Stats> },
  limits: CheckpointLimits,
  since: number,
): Promise<TreeState | undefined> {
  let freshBytes = 0;
  let freshKnown = 0;
  for (const [path, stat] of listing.fresh) {
    freshBytes += stat.size;
    if (state.files.has(path)) freshKnown++;
  }
  if (listing.fresh.size > MAX_FRESH_FILES || freshBytes > MAX_FRESH_BYTES) return undefined;
  // Every listed file that is not fresh was recorded: if the recorded ones still listed are
  // all of them, none is gone (and the listing need not be searched).
  const stillListed = listing.files.length - listing.fresh.size + freshKnown;
  const gone: string[] = [];
  if (stillListed < state.files.size) {
    const listed = new Set(listing.files);
    for (const path of state.files.keys()) if (!listed.has(path)) gone.push(path);
  }
  const changed: Array<[string, StoredFile]> = [];
  let read = 0;
  for (const [path, stat] of listing.fresh) {
    let stored: StoredFile | undefined;
    try {
      stored = storeFile(gitDir, root, path, stat, since, limits.maxFileBytes);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Gone, or turned into a link or a directory since the lstat: git looks again.
      if (code === 'ENOENT' || code === 'ELOOP' || code === 'EISDIR' || code === 'ENOTDIR')
        return undefined;
      throw error;
    }
    if (!stored) return undefined;
    const old = state.files.get(path);
    if (old && old.id === stored.id && old.mode === stored.mode) {
      old.sig = stored.sig; // the same content: only its stat is new
    } else {
      changed.push([path, stored]);
    }
    // Yield now and then: up to MAX_FRESH_BYTES are read, hashed and compressed here.
    read += stored.size;
    if (read > 512 * 1024) {
      read = 0;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  return applyChanges(gitDir, state, gone, changed);
}

/**
 * `state` with the `gone` paths removed and the `changed` files set, each directory on their
 * way to the root written again (the others keep their tree ids). Undefined when a name would
 * be both a file and a directory. Contract: throws on a file system error.
 */
export function applyChanges(
  gitDir: string,
  state: TreeState,
  gone: readonly string[],
  changed: ReadonlyArray<readonly [string, StoredFile]>,
): TreeState | undefined {
  if (gone.length === 0 && changed.length === 0) return state;
  const dirty = new Set<string>();
  for (const path of gone) {
    state.files.delete(path);
    let name = nameOf(path);
    let emptied = true;
    for (let dir = parentOf(path); ; ) {
      dirty.add(dir);
      // A directory left empty goes from its parent too.
      if (emptied) {
        const entries = state.dirs.get(dir);
        entries?.delete(name);
        emptied = dir !== '' && (!entries || entries.size === 0);
        if (emptied) {
          state.dirs.delete(dir);
          state.trees.delete(dir);
        }
      }
      if (dir === '') break;
      name = nameOf(dir);
      dir = parentOf(dir);
    }
  }
  for (const [path, file] of changed) {
    state.files.set(path, file);
    let entry: Entry = file;
    let name = nameOf(path);
    for (let dir = parentOf(path); ; ) {
      let entries = state.dirs.get(dir);
      if (!entries) {
        entries = new Map();
        state.dirs.set(dir, entries);
      }
      const had = entries.get(name);
      if (had !== undefined && (had === DIRECTORY) !== (entry === DIRECTORY)) return undefined;
      entries.set(name, entry);
      dirty.add(dir);
      if (dir === '') break;
      entry = DIRECTORY;
      name = nameOf(dir);
      dir = parentOf(dir);
    }
  }
  for (const dir of dirty) {
    if (dir !== '' && !state.dirs.has(dir)) dirty.delete(dir);
  }
  // Deepest first, so a subdirectory's new id is known before its parent's tree is written.
  for (const dir of [...dirty].sort((a, b) => depthOf(b) - depthOf(a))) {
    const rows: Array<{ key: Buffer; head: Buffer; id: Buffer }> = [];
    for (const [name, entry] of state.dirs.get(dir) ?? []) {
      if (entry === DIRECTORY) {
        const id = state.trees.get(dir === '' ? name : `${dir}/${name}`);
        if (!id) return undefined;
        rows.push({
          key: Buffer.from(`${name}/`),
          head: Buffer.from(`40000 ${name}\0`),
          id: Buffer.from(id, 'hex'),
        });
      } else {
        rows.push({
          key: Buffer.from(name),
          head: Buffer.from(`${entry.mode} ${name}\0`),
          id: Buffer.from(entry.id, 'hex'),
        });
      }
    }
    // git orders a tree's entries by name as bytes, a directory's name taken with a '/'.
    rows.sort((a, b) => Buffer.compare(a.key, b.key));
    const body = Buffer.concat(rows.flatMap((row) => [row.head, row.id]));
    state.trees.set(dir, writeObject(gitDir, 'tree', body));
  }
  state.tree = state.trees.get('')!;
  return state;
}

/**
 * The state of `tree` as `git ls-tree -r -t -z --full-tree` lists it. Each file's stat is the
 * one of `listing`, taken before git stored it (a file that changed since, or too near it,
 * gets none: it is read again next time); a file `known` recorded and `listing` did not find
 * fresh keeps its stat if git stored the same content.
 */
export function stateFromListing(
  tree: string,
  lsTree: readonly string[],
  listing: { fresh: ReadonlyMap<string, Stats> },
  known: ReadonlyMap<string, StoredFile> | undefined,
  since: number,
): TreeState | undefined {
  const files = new Map<string, StoredFile>();
  const dirs = new Map<string, Map<string, Entry>>([['', new Map()]]);
  const trees = new Map<string, string>([['', tree]]);
  const enter = (path: string, entry: Entry) => {
    const dir = parentOf(path);
    let entries = dirs.get(dir);
    if (!entries) {
      entries = new Map();
      dirs.set(dir, entries);
    }
    entries.set(nameOf(path), entry);
  };
  for (const item of lsTree) {
    // "mode type id\tpath"
    const tab = item.indexOf('\t');
    const [mode = '', type = '', id = ''] = item.slice(0, tab).split(' ');
    const path = item.slice(tab + 1);
    if (tab < 0 || !/^[0-9a-f]{40}$/.test(id)) return undefined;
    if (type === 'tree') {
      trees.set(path, id);
      enter(path, DIRECTORY);
      continue;
    }
    if (type !== 'blob') return undefined;
    const stat = listing.fresh.get(path);
    const old = stat ? undefined : known?.get(path);
    let sig: Signature | undefined;
    if (stat) {
      sig = settled(stat, since) && modeOf(stat.mode) === mode ? signature(stat) : undefined;
    } else if (old) {
      sig = old.id === id && old.mode === mode ? old.sig : undefined;
    }
    const file = { mode, id, size: stat?.size ?? old?.size ?? 0, sig };
    files.set(path, file);
    enter(path, file);
  }
  return { files, dirs, trees, tree };
}
