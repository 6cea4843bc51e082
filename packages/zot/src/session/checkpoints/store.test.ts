// The checkpoint store against real git in temp dirs: what a later checkpoint hands git (only
// what changed, a same-size rewrite in the same instant included), the commits and refs zot
// writes itself (git fsck accepts them), and a held index lock: waited out, or costing one
// checkpoint without turning checkpoints off.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { Checkpointer } from './checkpointer.js';
import { CheckpointStore } from './store.js';
import { DEFAULT_LIMITS } from './tree-list.js';

function project(t: TestContext) {
  const base = mkdtempSync(join(tmpdir(), 'zot-store-'));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const root = join(base, 'project');
  mkdirSync(root);
  for (let i = 0; i < 20; i++) writeFileSync(join(root, `f${i}.txt`), `file ${i}\n`);
  const store = CheckpointStore.for(root, join(base, 'home'), DEFAULT_LIMITS);
  const git = (...args: string[]) =>
    execFileSync('git', ['--git-dir', store.gitDir, ...args], { encoding: 'utf8' });
  return { root, store, git };
}

async function snap(store: CheckpointStore, ref: string) {
  const result = await store.snapshot(ref, { phase: 'test' });
  assert.ok(result.ok, result.ok ? '' : result.reason);
  return result.snapshot.commit;
}

test('later checkpoints see each change, a same-size rewrite at once included; git fsck passes', async (t) => {
  const { root, store, git } = project(t);
  const first = await snap(store, 'refs/zot/t/1');
  // Same size, written right after the checkpoint: the stat may not tell; git's racy check must.
  writeFileSync(join(root, 'f1.txt'), 'FILE 1\n');
  writeFileSync(join(root, 'new.txt'), 'new\n');
  unlinkSync(join(root, 'f2.txt'));
  const second = await snap(store, 'refs/zot/t/2');
  writeFileSync(join(root, 'f1.txt'), 'file!1\n');
  const third = await snap(store, 'refs/zot/t/3');
  const fourth = await snap(store, 'refs/zot/t/4'); // nothing changed
  assert.equal(git('show', `${first}:f1.txt`), 'file 1\n');
  assert.equal(git('show', `${second}:f1.txt`), 'FILE 1\n');
  assert.equal(git('show', `${third}:f1.txt`), 'file!1\n');
  assert.equal(git('show', `${second}:new.txt`), 'new\n');
  assert.deepEqual(
    git('ls-tree', '--name-only', second).split('\n').filter(Boolean).includes('f2.txt'),
    false,
  );
  assert.equal(git('rev-parse', `${third}^{tree}`), git('rev-parse', `${fourth}^{tree}`));
  assert.equal(git('rev-parse', 'refs/zot/t/3').trim(), third);
  git('fsck', '--strict', '--no-dangling');
  assert.match(git('cat-file', '-p', third), /^tree [0-9a-f]{40}\nauthor zot <zot@localhost> /);
});

// The index is git's, used by a process's first checkpoint of a store and by a rewind's
// write-back: another zot's lock on it is waited out, or costs one checkpoint.
test('a held index lock is waited out', async (t) => {
  const { root, store } = project(t);
  await snap(store, 'refs/zot/t/1');
  writeFileSync(join(root, 'f3.txt'), 'changed while locked\n');
  const lock = join(store.gitDir, 'index.lock');
  writeFileSync(lock, '');
  setTimeout(() => unlinkSync(lock), 60);
  // Another process's store: its first checkpoint goes through the index.
  await snap(CheckpointStore.for(root, join(root, '..', 'home'), DEFAULT_LIMITS), 'refs/zot/t/2');
  assert.equal(existsSync(lock), false);
});

test('a lock held too long costs that checkpoint only: checkpoints stay on', async (t) => {
  const { root, store } = project(t);
  const warnings: string[] = [];
  const recorded: number[] = [];
  const checkpointer = new Checkpointer({
    store,
    sessionKey: 's',
    record: (entry) => recorded.push(entry.turn),
    warn: (message) => warnings.push(message),
  });
  const lock = join(store.gitDir, 'index.lock');
  mkdirSync(store.gitDir, { recursive: true });
  writeFileSync(lock, '');
  checkpointer.startTurn('one');
  await checkpointer.beforeToolCall();
  assert.match(warnings.join('\n'), /no checkpoint for turn 1 \(before\): .*index\.lock/);
  assert.doesNotMatch(warnings.join('\n'), /checkpoints are off/);
  await checkpointer.endTurn();
  unlinkSync(lock);
  writeFileSync(join(root, 'f4.txt'), 'changed\n');
  checkpointer.startTurn('two');
  await checkpointer.beforeToolCall();
  await checkpointer.endTurn();
  assert.deepEqual(recorded, [1, 1]);
  assert.deepEqual(
    (await checkpointer.list()).map((turn) => [turn.label, turn.files.length]),
    [['two', 0]],
  );
});

test('a rewind and its undo, each recorded without listing again, round-trip the files', async (t) => {
  const { root, store, git } = project(t);
  const entries: Array<{ turn: number; phase: string; commit: string }> = [];
  const checkpointer = new Checkpointer({
    store,
    sessionKey: 's',
    record: (entry) => entries.push(entry),
    warn: (message) => assert.fail(message),
  });
  const read = (name: string) => readFileSync(join(root, name), 'utf8');
  checkpointer.startTurn('change things');
  await checkpointer.beforeToolCall();
  writeFileSync(join(root, 'f1.txt'), 'one, changed\n');
  unlinkSync(join(root, 'f2.txt'));
  mkdirSync(join(root, 'sub'));
  writeFileSync(join(root, 'sub', 'new.txt'), 'new\n');
  await checkpointer.endTurn();

  const back = await checkpointer.rewind(1);
  assert.ok(back.ok, JSON.stringify(back));
  assert.deepEqual([back.restored.sort(), back.removed], [['f1.txt', 'f2.txt'], ['sub/new.txt']]);
  assert.equal(read('f1.txt'), 'file 1\n');
  assert.equal(read('f2.txt'), 'file 2\n');
  assert.equal(existsSync(join(root, 'sub')), false);
  const tree = (commit: string) => git('rev-parse', `${commit}^{tree}`);
  const [before1, , , after2] = entries;
  assert.equal(
    tree(after2!.commit),
    tree(before1!.commit),
    'the rewind recorded the restored tree',
  );
  // A checkpoint now (nothing changed) agrees with it.
  const now = await snap(store, 'refs/zot/t/now');
  assert.equal(tree(now), tree(before1!.commit));

  const undo = await checkpointer.rewind(back.undoTurn);
  assert.ok(undo.ok, JSON.stringify(undo));
  assert.equal(read('f1.txt'), 'one, changed\n');
  assert.equal(existsSync(join(root, 'f2.txt')), false);
  assert.equal(read('sub/new.txt'), 'new\n');
  const turns = await checkpointer.list();
  assert.deepEqual(
    turns.map((turn) => [turn.label, turn.files.map((file) => file.path).sort()]),
    [
      ['change things', ['f1.txt', 'f2.txt', 'sub/new.txt']],
      ['rewind to turn 1', ['f1.txt', 'f2.txt', 'sub/new.txt']],
      ['rewind to turn 2', ['f1.txt', 'f2.txt', 'sub/new.txt']],
    ],
  );
  git('fsck', '--strict', '--no-dangling');
});
