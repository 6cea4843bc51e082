// A process's later checkpoints, which write the changed blobs and trees themselves: against
// real git, each tree is the one git writes for the same files (git fsck accepts the store),
// a checkpoint starts one git process (the listing, in the user's repository) and none in the
// store, only the changed files are read, a rewrite that keeps size and mtime is still seen,
// and a prune sends the next checkpoint back through git.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { CheckpointStore } from './store.js';
import { DEFAULT_LIMITS, RACY_MARGIN_MS } from './tree-list.js';

const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();

/** Puts a `git` first on PATH that logs each run (its GIT_DIR, then its arguments). */
function logGit(t: TestContext, base: string): () => string[] {
  const bin = join(base, 'bin');
  const log = join(base, 'git.log');
  mkdirSync(bin);
  writeFileSync(log, '');
  writeFileSync(
    join(bin, 'git'),
    `#!/bin/sh\nprintf '%s %s\\n' "\${GIT_DIR:-user}" "$*" >> '${log}'\nexec '${realGit}' "$@"\n`,
    { mode: 0o755 },
  );
  const path = process.env.PATH;
  process.env.PATH = `${bin}${delimiter}${path ?? ''}`;
  t.after(() => {
    process.env.PATH = path;
  });
  let seen = 0;
  return () => {
    const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    const fresh = lines.slice(seen);
    seen = lines.length;
    return fresh;
  };
}

function project(t: TestContext, repository: boolean) {
  const base = mkdtempSync(join(tmpdir(), 'zot-tree-state-'));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const root = join(base, 'project');
  mkdirSync(join(root, 'a', 'b'), { recursive: true });
  mkdirSync(join(root, 'gone'));
  for (let i = 0; i < 30; i++) writeFileSync(join(root, `a/b/f${i}.txt`), `file ${i}\n`);
  writeFileSync(join(root, 'a.txt'), 'a dot\n');
  writeFileSync(join(root, 'a-b'), 'a dash\n');
  writeFileSync(join(root, 'gone', 'only.txt'), 'the only file\n');
  writeFileSync(join(root, 'x'), 'a file, then a directory\n');
  if (repository) {
    const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t' };
    execFileSync('git', ['init', '-q'], { cwd: root, env });
    writeFileSync(join(root, '.gitignore'), 'build/\n');
  }
  const home = join(base, 'home');
  const store = CheckpointStore.for(root, home, DEFAULT_LIMITS);
  const git = (...args: string[]) =>
    execFileSync(realGit, ['--git-dir', store.gitDir, ...args], { encoding: 'utf8' }).trim();
  /** The tree git itself writes for the files now: a new store's first checkpoint. */
  let fresh = 0;
  const gitsTree = async () => {
    const other = CheckpointStore.for(root, join(base, `other-${fresh++}`), DEFAULT_LIMITS);
    const taken = await other.snapshot('refs/zot/t/git', {});
    assert.ok(taken.ok, taken.ok ? '' : taken.reason);
    const tree = execFileSync(
      realGit,
      ['--git-dir', other.gitDir, 'rev-parse', 'refs/zot/t/git^{tree}'],
      {
        encoding: 'utf8',
      },
    ).trim();
    theirs = execFileSync(realGit, ['--git-dir', other.gitDir, 'ls-tree', '-r', '-t', tree], {
      encoding: 'utf8',
    }).trim();
    return tree;
  };
  let theirs = '';
  /** What the last `gitsTree` held, for a readable difference. */
  const theirsListing = () => theirs;
  let seq = 0;
  const snap = async () => {
    const taken = await store.snapshot(`refs/zot/t/${seq++}`, {});
    assert.ok(taken.ok, taken.ok ? '' : taken.reason);
    return git('rev-parse', `${taken.snapshot.commit}^{tree}`);
  };
  return { base, root, store, git, gitsTree, theirsListing, snap };
}

/** Loose objects in a git directory. */
function looseObjects(gitDir: string): Set<string> {
  const found = new Set<string>();
  for (const dir of readdirSync(join(gitDir, 'objects'))) {
    if (!/^[0-9a-f]{2}$/.test(dir)) continue;
    for (const name of readdirSync(join(gitDir, 'objects', dir))) found.add(dir + name);
  }
  return found;
}

/** Waits until every file written so far is older than the racy margin (its stat then vouches). */
async function settle(root: string): Promise<void> {
  const newest = Math.max(
    ...readdirSync(root, { recursive: true }).map(
      (name) => statSync(join(root, String(name))).ctimeMs,
    ),
  );
  const wait = newest + RACY_MARGIN_MS + 50 - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

test('each later checkpoint writes the tree git writes, through every kind of change', async (t) => {
  const { root, git, gitsTree, theirsListing, snap } = project(t, true);
  assert.equal(await snap(), await gitsTree());
  const steps: Array<[string, () => void]> = [
    ['a file changed deep down', () => appendFileSync(join(root, 'a/b/f3.txt'), 'more\n')],
    [
      'new files in new directories',
      () => {
        mkdirSync(join(root, 'a/new/deeper'), { recursive: true });
        writeFileSync(join(root, 'a/new/deeper/n.txt'), 'new\n');
        writeFileSync(join(root, 'a/b/f30.txt'), 'thirty\n');
      },
    ],
    ['a directory emptied', () => unlinkSync(join(root, 'gone/only.txt'))],
    ['made executable', () => chmodSync(join(root, 'a/b/f4.txt'), 0o755)],
    ['a symlink', () => symlinkSync('a/b/f5.txt', join(root, 'link'))],
    [
      'a file that becomes a directory',
      () => {
        unlinkSync(join(root, 'x'));
        mkdirSync(join(root, 'x'));
        writeFileSync(join(root, 'x/y'), 'inside\n');
      },
    ],
    [
      'names that sort apart as bytes',
      () => {
        writeFileSync(join(root, 'a0'), 'zero\n');
        writeFileSync(join(root, 'é.txt'), 'accent\n');
        writeFileSync(join(root, 'a/b/\u{1F600}'), 'astral\n');
        writeFileSync(join(root, 'a/b/\uFF21'), 'fullwidth\n');
      },
    ],
    [
      'an ignored directory and a removal',
      () => {
        mkdirSync(join(root, 'build'));
        writeFileSync(join(root, 'build/out.o'), 'ignored\n');
        unlinkSync(join(root, 'a/b/f0.txt'));
      },
    ],
    ['nothing', () => {}],
  ];
  for (const [what, change] of steps) {
    change();
    const ours = await snap();
    const theirs = await gitsTree();
    if (ours !== theirs) assert.equal(git('ls-tree', '-r', '-t', ours), theirsListing(), what);
  }
  git('fsck', '--strict', '--no-dangling');
});

test('a later checkpoint starts one git process, in the user repository, and reads only the changed files', async (t) => {
  const { base, root, store, gitsTree, snap } = project(t, true);
  const runs = logGit(t, base);
  await settle(root);
  await snap();
  assert.ok(
    runs().some((line) => line.startsWith(store.gitDir)),
    'the first goes through git',
  );
  for (const name of ['a/b/f1.txt', 'a/b/f2.txt', 'a.txt']) appendFileSync(join(root, name), '!\n');
  const before = looseObjects(store.gitDir);
  const tree = await snap();
  const lines = runs();
  assert.equal(lines.length, 1, lines.join('\n'));
  assert.match(lines[0]!, /^user .*ls-files/);
  // Three blobs, and the trees of a/b, a and the root (the commit is the seventh).
  const added = [...looseObjects(store.gitDir)].filter((id) => !before.has(id));
  assert.equal(added.length, 7);
  assert.equal(tree, await gitsTree());
});

test('outside a repository a later checkpoint starts no process at all', async (t) => {
  const { base, root, snap, gitsTree } = project(t, false);
  const runs = logGit(t, base);
  await snap();
  runs();
  appendFileSync(join(root, 'a/b/f7.txt'), 'changed\n');
  const tree = await snap();
  assert.deepEqual(runs(), []);
  assert.equal(tree, await gitsTree());
});

test('a rewrite that keeps the size and the modification time is still seen', async (t) => {
  const { root, snap, gitsTree } = project(t, true);
  await settle(root);
  const first = await snap();
  const path = join(root, 'a/b/f9.txt');
  const { atime, mtime } = statSync(path);
  writeFileSync(path, 'FILE 9\n');
  utimesSync(path, atime, mtime);
  const second = await snap();
  assert.notEqual(second, first);
  assert.equal(second, await gitsTree());
});

test('after another process drops checkpoints the next one goes through git again', async (t) => {
  const { base, root, store, snap, gitsTree } = project(t, true);
  const runs = logGit(t, base);
  await snap();
  appendFileSync(join(root, 'a.txt'), 'one\n');
  await snap();
  runs();
  // Another process drops old checkpoints (a gc may then delete what they alone held).
  const other = CheckpointStore.for(root, join(base, 'home'), DEFAULT_LIMITS);
  await other.dropRefs(['refs/zot/t/0']);
  appendFileSync(join(root, 'a.txt'), 'two\n');
  const tree = await snap();
  assert.ok(runs().some((line) => line.startsWith(store.gitDir) && / write-tree/.test(line)));
  assert.equal(tree, await gitsTree());
});
