// Branch names as `git` itself reports them, in a real repository, a worktree and a detached HEAD.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { gitBranch } from './git-branch.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();

test('the branch of a repository, from a subdirectory, a worktree and a detached HEAD', (t) => {
  const root = mkdtempSync(join(tmpdir(), 'zot-git-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const repo = join(root, 'repo');
  mkdirSync(join(repo, 'deep', 'er'), { recursive: true });
  git(repo, 'init', '-q', '-b', 'feature/x');
  git(repo, 'commit', '-q', '--allow-empty', '-m', 'one');
  assert.equal(gitBranch(join(repo, 'deep', 'er')), git(repo, 'branch', '--show-current'));

  git(repo, 'worktree', 'add', '-q', '-b', 'other', join(root, 'wt'));
  assert.equal(gitBranch(join(root, 'wt')), 'other');

  git(repo, 'checkout', '-q', '--detach');
  assert.equal(gitBranch(repo), git(repo, 'rev-parse', '--short=7', 'HEAD'));
  assert.equal(gitBranch(root), undefined, 'outside a repository');
});

test(
  'a FIFO for HEAD or .git gives no branch and does not block',
  { skip: process.platform === 'win32' },
  (t) => {
    const root = mkdtempSync(join(tmpdir(), 'zot-git-'));
    t.after(() => rmSync(root, { recursive: true, force: true }));
    mkdirSync(join(root, 'repo', '.git'), { recursive: true });
    execFileSync('mkfifo', [join(root, 'repo', '.git', 'HEAD')]);
    assert.equal(gitBranch(join(root, 'repo')), undefined);
    mkdirSync(join(root, 'wt'));
    execFileSync('mkfifo', [join(root, 'wt', '.git')]);
    assert.equal(gitBranch(join(root, 'wt')), undefined);
  },
);
