// A new store's first checkpoint of a repository, seeded from the user's own objects: against
// real git, the blobs of unchanged files come from the repository (no loose copy is written),
// the tree is the one git writes for the files, the user's .git stays byte for byte, and a
// repository missing an object costs the seeding only.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { test, type TestContext } from 'node:test';
import { MIN_SEEDED_FILES } from './seed.js';
import { CheckpointStore } from './store.js';
import { DEFAULT_LIMITS } from './tree-list.js';

const env = {
  ...process.env,
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@t',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@t',
};

/** Every file under `dir`, by relative path, with a hash of its bytes. */
function digest(dir: string): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const abs = join(at, name);
      if (lstatSync(abs).isDirectory()) walk(abs);
      else
        found.set(relative(dir, abs), createHash('sha256').update(readFileSync(abs)).digest('hex'));
    }
  };
  walk(dir);
  return found;
}

function repository(t: TestContext) {
  const base = mkdtempSync(join(tmpdir(), 'zot-seed-'));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const root = join(base, 'project');
  for (const dir of ['a', 'b']) mkdirSync(join(root, dir), { recursive: true });
  for (let i = 0; i < MIN_SEEDED_FILES + 20; i++)
    writeFileSync(join(root, i % 2 ? 'a' : 'b', `f${i}.txt`), `file ${i}\n`.repeat(20));
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: root, env, encoding: 'utf8' }).trim();
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'files');
  appendFileSync(join(root, 'a/f1.txt'), 'changed\n');
  writeFileSync(join(root, 'untracked.txt'), 'new\n');
  const store = CheckpointStore.for(root, join(base, 'home'), DEFAULT_LIMITS);
  const ours = (...args: string[]) =>
    execFileSync('git', ['--git-dir', store.gitDir, ...args], { encoding: 'utf8' }).trim();
  /** The tree git writes for the files now, in a scratch repository of the test's own. */
  const expected = () => {
    const scratch = join(base, `scratch-${Date.now()}-${Math.random()}`);
    const scratchEnv = { ...env, GIT_DIR: scratch, GIT_WORK_TREE: root };
    execFileSync('git', ['init', '-q', '--bare', scratch], { env });
    execFileSync('git', ['add', '-A'], { cwd: root, env: scratchEnv });
    return execFileSync('git', ['write-tree'], {
      cwd: root,
      env: scratchEnv,
      encoding: 'utf8',
    }).trim();
  };
  const loose = (id: string) =>
    existsSync(join(store.gitDir, 'objects', id.slice(0, 2), id.slice(2)));
  return { root, store, git, ours, expected, loose };
}

test('a new store copies the blobs the repository holds and writes only what differs', async (t) => {
  const { root, store, git, ours, expected, loose } = repository(t);
  const before = digest(join(root, '.git'));
  const taken = await store.snapshot('refs/zot/t/1', {});
  assert.ok(taken.ok, taken.ok ? '' : taken.reason);
  assert.equal(ours('rev-parse', 'refs/zot/t/1^{tree}'), expected());
  const unchanged = git('hash-object', 'b/f0.txt');
  assert.equal(loose(unchanged), false, 'an unchanged file is not written again');
  ours('cat-file', '-e', unchanged);
  assert.equal(loose(git('hash-object', 'a/f1.txt')), true, 'a changed file is stored');
  assert.equal(loose(git('hash-object', 'untracked.txt')), true, 'a new file is stored');
  ours('fsck', '--strict', '--no-dangling');
  assert.deepEqual(digest(join(root, '.git')), before, "the user's .git is untouched");
});

test('a repository missing an object costs the seeding only', async (t) => {
  const { root, store, git, ours, expected } = repository(t);
  const id = git('hash-object', 'b/f2.txt');
  unlinkSync(join(root, '.git', 'objects', id.slice(0, 2), id.slice(2)));
  const taken = await store.snapshot('refs/zot/t/1', {});
  assert.ok(taken.ok, taken.ok ? '' : taken.reason);
  assert.equal(ours('rev-parse', 'refs/zot/t/1^{tree}'), expected());
  ours('fsck', '--strict', '--no-dangling');
});
