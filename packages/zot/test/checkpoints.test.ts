// Checkpoints and `zot rewind`, end to end: the scripted model makes real bash tool calls in a
// real repository (or a plain directory) in a temp dir, and the files come back as they were.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { after, before, test, type TestContext } from 'node:test';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { makeSandbox, runZot, type ZotResult } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(async () => {
  await llm.close();
});

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    },
  });

/** Every file under `dir` (symlinks as their targets), keyed by relative path. */
function tree(dir: string, skip: (rel: string) => boolean = () => false): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const abs = join(at, name);
      const rel = relative(dir, abs);
      if (skip(rel)) continue;
      const stat = lstatSync(abs);
      if (stat.isSymbolicLink()) found.set(rel, `link:${readlinkSync(abs)}`);
      else if (stat.isDirectory()) walk(abs);
      else
        found.set(
          rel,
          `${stat.mode.toString(8)}:${createHash('sha256').update(readFileSync(abs)).digest('hex')}`,
        );
    }
  };
  walk(dir);
  return found;
}

/** The entries of the newest session file under `home`. */
function sessionEntries(home: string): Array<Record<string, unknown>> {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const abs = join(dir, name);
      if (lstatSync(abs).isDirectory()) walk(abs);
      else if (name.endsWith('.jsonl')) files.push(abs);
    }
  };
  walk(join(home, 'sessions'));
  const newest = files.sort((a, b) => lstatSync(b).mtimeMs - lstatSync(a).mtimeMs)[0];
  assert.ok(newest, `no session file under ${home}`);
  return readFileSync(newest, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function setup(t: TestContext, config?: unknown) {
  const box = makeSandbox();
  t.after(box.cleanup);
  if (config) writeFileSync(join(box.home, 'config.json'), JSON.stringify(config));
  return box;
}

/** One prompt whose model runs `command` with bash, then answers. */
async function bashTurn(
  box: { home: string; project: string },
  command: string,
  extra: string[] = [],
) {
  llm.script({ toolCalls: [{ name: 'bash', args: { command } }] }, { text: 'done' });
  const result = await runZot([...fakeLlmFlags(llm.url), ...extra, '-p', `run: ${command}`], {
    home: box.home,
    cwd: box.project,
  });
  assert.equal(result.code, 0, result.stderr);
  return result;
}

const rewind = (box: { home: string; project: string }, ...args: string[]): Promise<ZotResult> =>
  runZot(['rewind', ...args], { home: box.home, cwd: box.project });

function makeRepository(project: string) {
  git(project, 'init', '-q');
  writeFileSync(join(project, 'a.txt'), 'one\ntwo\nthree\n');
  writeFileSync(join(project, 'b.txt'), 'bee\n');
  writeFileSync(join(project, 'c.txt'), 'sea\n');
  writeFileSync(join(project, 'bin.dat'), Buffer.from([0, 1, 2, 255, 0, 10, 13]));
  writeFileSync(join(project, 'big.bin'), 'x'.repeat(4096));
  writeFileSync(join(project, '.gitignore'), 'build/\n');
  mkdirSync(join(project, 'build'));
  writeFileSync(join(project, 'build', 'out.o'), 'old build\n');
  git(project, 'add', '-A');
  git(project, 'commit', '-q', '-m', 'first');
  // A stash, an untracked file and a staged change: all of it must stay as it is.
  writeFileSync(join(project, 'a.txt'), 'one\ntwo\nthree\nstashed\n');
  git(project, 'stash', '-q');
  writeFileSync(join(project, 'untracked.txt'), 'mine\n');
  writeFileSync(join(project, 'c.txt'), 'sea\nstaged\n');
  git(project, 'add', 'c.txt');
}

test('rewind after bash ran sed -i, rm, mv, mkdir and wrote files restores the repository; .git is untouched', async (t) => {
  const box = setup(t, { checkpoints: { max_file_bytes: 1024 } });
  const { project } = box;
  makeRepository(project);
  const isGit = (rel: string) => rel === '.git';
  const before = tree(project, isGit);
  const dotGit = tree(join(project, '.git'));

  const first = await bashTurn(
    box,
    [
      'sed -i s/two/TWO/ a.txt',
      'rm b.txt',
      'mv c.txt moved.txt',
      'mkdir -p newdir/sub && echo new > newdir/sub/n.txt',
      "printf '\\001\\002\\003' > bin.dat",
      'echo more >> big.bin',
      'echo new build > build/out.o && echo extra > build/extra.o',
      "printf 'odd' > \"$(printf 'weird\\nname')\"",
      'ln -s a.txt link-to-a',
      'chmod +x untracked.txt',
    ].join(' && '),
  );
  assert.match(first.stderr, /checkpoint of turn 1 skipped "big\.bin" \(.*per-file limit\)/);

  const listed = await rewind(box, '--list');
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /^1 .*run: sed -i/m);
  assert.match(listed.stdout, /\+1 -1\s+a\.txt/);
  assert.match(listed.stdout, /\+0 -1\s+b\.txt/);
  assert.match(listed.stdout, /binary\s+bin\.dat/);
  assert.match(listed.stdout, /\+1 -0\s+newdir\/sub\/n\.txt/);
  assert.match(listed.stdout, /"weird\\nname"/);
  assert.doesNotMatch(listed.stdout, /build\//);

  const result = await rewind(box, '1');
  assert.equal(result.code, 0, result.stderr);
  const after = tree(project, isGit);
  // Everything is back, except what the checkpoint never held: the ignored build directory and
  // the file over the size bound keep their new content.
  const expected = new Map(before);
  expected.set('build/out.o', after.get('build/out.o')!);
  expected.set('build/extra.o', after.get('build/extra.o')!);
  expected.set('big.bin', after.get('big.bin')!);
  assert.deepEqual(after, expected);
  assert.equal(readFileSync(join(project, 'build', 'out.o'), 'utf8'), 'new build\n');
  assert.ok(!existsSync(join(project, 'newdir')), 'the directory made by the turn is gone');
  assert.deepEqual(tree(join(project, '.git')), dotGit, 'the user .git is byte for byte the same');
  assert.match(git(project, 'stash', 'list'), /stash@\{0\}/);
});

test('a file edited outside zot after the turn is a conflict: named, exit 1, not overwritten; --force overwrites and the rewind can be undone', async (t) => {
  const box = setup(t);
  const { project } = box;
  makeRepository(project);
  await bashTurn(box, 'echo zot >> a.txt && echo zot > created.txt');
  writeFileSync(join(project, 'a.txt'), 'my own edit\n');

  const refused = await rewind(box, '1');
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /a\.txt changed outside zot/);
  assert.equal(readFileSync(join(project, 'a.txt'), 'utf8'), 'my own edit\n');
  assert.ok(existsSync(join(project, 'created.txt')), 'nothing was restored');

  const forced = await rewind(box, '1', '--force');
  assert.equal(forced.code, 0, forced.stderr);
  assert.equal(readFileSync(join(project, 'a.txt'), 'utf8'), 'one\ntwo\nthree\n');
  assert.ok(!existsSync(join(project, 'created.txt')));
  const undo = /`zot rewind (\d+)` undoes it/.exec(forced.stdout)?.[1];
  assert.equal(undo, '2');

  const undone = await rewind(box, undo!);
  assert.equal(undone.code, 0, undone.stderr);
  assert.equal(readFileSync(join(project, 'a.txt'), 'utf8'), 'my own edit\n');
  assert.equal(readFileSync(join(project, 'created.txt'), 'utf8'), 'zot\n');
});

test('a directory that is not a repository is checkpointed whole and rewound', async (t) => {
  const box = setup(t);
  const { project } = box;
  writeFileSync(join(project, 'notes.md'), '# notes\n');
  mkdirSync(join(project, 'src'));
  writeFileSync(join(project, 'src', 'main.c'), 'int main(){}\n');
  const before = tree(project);
  await bashTurn(box, 'rm -r src && echo changed > notes.md && mkdir out && echo o > out/o.txt');
  const result = await rewind(box, '1');
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(tree(project), before);
});

test('symlinks are stored as links and never followed out of the tree', async (t) => {
  const box = setup(t);
  const { project } = box;
  const outside = join(project, '..', 'outside');
  mkdirSync(outside);
  writeFileSync(join(outside, 'keep.txt'), 'outside\n');
  mkdirSync(join(project, 'd'));
  writeFileSync(join(project, 'd', 'keep.txt'), 'inside\n');
  symlinkSync('d/keep.txt', join(project, 'rel-link'));
  const before = tree(project);
  // The turn swaps the directory for a link to the outside one and adds a link out.
  await bashTurn(box, `rm -r d && ln -s ${outside} d && ln -s ${outside}/keep.txt out-link`);
  const result = await rewind(box, '1');
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(tree(project), before);
  assert.equal(readFileSync(join(outside, 'keep.txt'), 'utf8'), 'outside\n');
  assert.deepEqual(readdirSync(outside), ['keep.txt']);
});

test('--no-checkpoints and the setting turn checkpoints off', async (t) => {
  const box = setup(t);
  await bashTurn(box, 'echo x > x.txt', ['--no-checkpoints']);
  const listed = await rewind(box, '--list');
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /no checkpoints in this session/);
  assert.ok(!existsSync(join(box.home, 'checkpoints')), 'no store was made');

  const off = setup(t, { checkpoints: { enabled: false } });
  await bashTurn(off, 'echo x > x.txt');
  assert.ok(!existsSync(join(off.home, 'checkpoints')), 'no store was made');
});

test('a tree over the total bound is not checkpointed, with a note saying how to change that', async (t) => {
  const box = setup(t, { checkpoints: { max_files: 3 } });
  for (const name of ['1', '2', '3', '4']) writeFileSync(join(box.project, name), name);
  const result = await bashTurn(box, 'echo x > 1');
  assert.match(
    result.stderr,
    /checkpoints are off for this session: .*more than 3 files.*--no-checkpoints/,
  );
});

test('zot rewind: --help, usage errors exit 2, an unknown turn exits 1', async (t) => {
  const box = setup(t);
  const help = await rewind(box, '--help');
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Usage: zot rewind --list/);
  for (const args of [[], ['abc'], ['--list', '1'], ['1', '--session']]) {
    const bad = await rewind(box, ...args);
    assert.equal(bad.code, 2, `${args.join(' ')}: ${bad.stderr}`);
  }
  await bashTurn(box, 'echo x > x.txt');
  const missing = await rewind(box, '7');
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /there is no turn 7; this session has turns 1 to 1/);
});

test('zot rewind --conversation moves the session back to before the turn; -c continues from there, the files stay', async (t) => {
  const box = setup(t);
  await bashTurn(box, 'echo first > first.txt');
  await bashTurn(box, 'echo second > second.txt', ['-c']);
  const moved = await rewind(box, '2', '--conversation');
  assert.equal(moved.code, 0, moved.stderr);
  assert.match(moved.stdout, /moved the conversation back to before turn 2 \(4 messages kept\)/);
  assert.ok(existsSync(join(box.project, 'second.txt')), '--conversation alone leaves the files');
  // The branch left has its plain summary, as a rewind in the TUI or over RPC writes.
  const summaries = sessionEntries(box.home).filter((entry) => entry.type === 'branch_summary');
  assert.equal(summaries.length, 1, JSON.stringify(summaries));
  assert.equal(summaries[0]!.by, 'zot');
  assert.match(String(summaries[0]!.summary), /run: echo second/);

  llm.script({ text: 'continued' });
  const from = llm.requests.length;
  const next = await runZot([...fakeLlmFlags(llm.url), '-c', '-p', 'next'], {
    home: box.home,
    cwd: box.project,
  });
  assert.equal(next.code, 0, next.stderr);
  const sent = JSON.stringify(llm.requests[from]!.body.messages);
  assert.match(sent, /run: echo first/);
  assert.doesNotMatch(sent, /run: echo second/);

  const both = await rewind(box, '1', '--code', '--conversation');
  assert.equal(both.code, 0, both.stderr);
  assert.ok(!existsSync(join(box.project, 'first.txt')));
  assert.ok(!existsSync(join(box.project, 'second.txt')));
  assert.match(both.stdout, /\(0 messages kept\)/);
});
