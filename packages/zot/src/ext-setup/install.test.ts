import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, test } from 'node:test';
import { classifySource, installExtension, locateInstalled, removeExtension } from './install.js';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'zot-install-')));
after(() => rmSync(base, { recursive: true, force: true }));

let counter = 0;
function fresh(): { src: string; home: string; extensions: string } {
  const top = join(base, `t${++counter}`);
  const src = join(top, 'src');
  const home = join(top, 'home');
  mkdirSync(src, { recursive: true });
  mkdirSync(home, { recursive: true });
  return { src, home, extensions: join(home, 'extensions') };
}

function writeExtension(dir: string, manifest: object = { name: 'hello', exec: 'node' }): void {
  mkdirSync(join(dir, 'lib'), { recursive: true });
  writeFileSync(join(dir, 'extension.json'), JSON.stringify(manifest));
  writeFileSync(join(dir, 'run.sh'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
  writeFileSync(join(dir, 'lib', 'data.txt'), 'data', { mode: 0o600 });
  symlinkSync('lib/data.txt', join(dir, 'data-link'));
}

/** Everything below `dir` (or "absent"), for before/after comparisons. */
function snapshot(dir: string): string[] | 'absent' {
  if (!existsSync(dir)) return 'absent';
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      const path = rel ? `${rel}/${name}` : name;
      const stat = lstatSync(join(dir, path));
      out.push(`${path}:${stat.mode.toString(8)}`);
      if (stat.isDirectory()) walk(path);
    }
  };
  walk('');
  return out;
}

const gitEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
};

function gitRepo(dir: string): string {
  const git = (...args: string[]) => {
    const result = spawnSync('git', args, { cwd: dir, env: gitEnv, encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
  };
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'init');
  return pathToFileURL(dir).href;
}

test('classifySource: paths, git URLs, and refused forms', () => {
  const cwd = base;
  mkdirSync(join(base, 'local'), { recursive: true });
  assert.deepEqual(classifySource('local', cwd), { kind: 'path', dir: join(base, 'local') });
  assert.deepEqual(classifySource('.', cwd), { kind: 'path', dir: base });
  for (const url of [
    'https://github.com/a/b.git',
    'ssh://git@host/x.git',
    'git://host/x',
    'file:///tmp/x',
    'git@github.com:a/b.git',
  ]) {
    assert.equal(classifySource(url, cwd).kind, 'git', url);
  }
  const refused: Array<[string, RegExp]> = [
    ['-uupload-pack=touch /tmp/x', /begins with "-"/],
    ['--upload-pack=evil', /begins with "-"/],
    ['ext::sh -c touch% /tmp/pwned', /git transport syntax/],
    ['ftp://host/x', /unsupported URL scheme "ftp:\/\/"/],
    ['nope/missing', /does not exist/],
    ['https://host/x\n--foo', /control characters/],
  ];
  for (const [source, pattern] of refused) {
    const result = classifySource(source, cwd);
    assert.equal(result.kind, 'error', source);
    assert.match((result as { error: string }).error, pattern);
  }
});

test('a directory is copied recursively, keeping modes and inner symlinks, named by its manifest', async () => {
  const { src, extensions } = fresh();
  writeExtension(src, { name: 'hello', version: '1.2.3', exec: './run.sh' });
  const result = await installExtension({
    source: src,
    cwd: base,
    extensionsDir: extensions,
    force: false,
  });
  assert.ok(result.ok, result.ok ? '' : result.error);
  assert.equal(result.dir, join(extensions, 'hello'));
  assert.equal(result.replaced, false);
  assert.equal(result.manifest.version, '1.2.3');
  assert.equal(statSync(join(result.dir, 'run.sh')).mode & 0o777, 0o755);
  assert.equal(statSync(join(result.dir, 'lib', 'data.txt')).mode & 0o777, 0o600);
  assert.equal(readlinkSync(join(result.dir, 'data-link')), 'lib/data.txt');
  assert.equal(readFileSync(join(result.dir, 'data-link'), 'utf8'), 'data');
  assert.deepEqual(readdirSync(extensions), ['hello'], 'no staging directory is left');
});

test('install . works from inside the extension', async () => {
  const { src, extensions } = fresh();
  writeExtension(src);
  const result = await installExtension({
    source: '.',
    cwd: src,
    extensionsDir: extensions,
    force: false,
  });
  assert.ok(result.ok, result.ok ? '' : result.error);
  assert.ok(existsSync(join(extensions, 'hello', 'run.sh')));
});

test('an escaping symlink anywhere in the tree refuses the install and copies nothing', async () => {
  for (const target of ['/etc/passwd', '../../outside', '../lib/../../x']) {
    const { src, home, extensions } = fresh();
    writeExtension(src);
    symlinkSync(target, join(src, 'lib', 'evil'));
    const before = snapshot(home);
    const result = await installExtension({
      source: src,
      cwd: base,
      extensionsDir: extensions,
      force: false,
    });
    assert.ok(!result.ok, target);
    assert.match(
      result.error,
      /lib\/evil is a symlink to .* outside .*; refused; nothing was installed/,
    );
    assert.deepEqual(snapshot(home), before, 'the home directory is untouched');
  }
});

test('invalid manifests, escaping exec and self-copies are refused with nothing left behind', async () => {
  const cases: Array<[object | string, RegExp]> = [
    ['{ nope', /invalid JSON/],
    [{ name: '../evil', exec: 'node' }, /invalid extension name/],
    [{ name: 'Bad Name', exec: 'node' }, /invalid extension name/],
    [{ name: 'noexec' }, /"exec" is required/],
    [{ name: 'escape', exec: '../outside.sh' }, /"exec" "..\/outside.sh" points outside/],
  ];
  for (const [manifest, pattern] of cases) {
    const { src, home, extensions } = fresh();
    writeExtension(src);
    writeFileSync(
      join(src, 'extension.json'),
      typeof manifest === 'string' ? manifest : JSON.stringify(manifest),
    );
    const result = await installExtension({
      source: src,
      cwd: base,
      extensionsDir: extensions,
      force: false,
    });
    assert.ok(!result.ok);
    assert.match(result.error, pattern);
    assert.deepEqual(snapshot(home), [], 'not even the extensions directory is created');
  }
  const { home, extensions } = fresh();
  writeExtension(home);
  const self = await installExtension({
    source: home,
    cwd: base,
    extensionsDir: extensions,
    force: false,
  });
  assert.ok(!self.ok);
  assert.match(self.error, /contains the extensions directory/);
});

test('an existing installation is refused without --force and replaced with it', async () => {
  const { src, extensions } = fresh();
  writeExtension(src, { name: 'hello', version: '1', exec: 'node' });
  const request = { source: src, cwd: base, extensionsDir: extensions, force: false };
  assert.ok((await installExtension(request)).ok);
  writeFileSync(join(extensions, 'hello', 'local-state.json'), '{}');
  writeFileSync(
    join(src, 'extension.json'),
    JSON.stringify({ name: 'hello', version: '2', exec: 'node' }),
  );
  const refused = await installExtension(request);
  assert.ok(!refused.ok);
  assert.match(refused.error, /already exists; pass --force/);
  assert.ok(existsSync(join(extensions, 'hello', 'local-state.json')), 'old copy untouched');
  const replaced = await installExtension({ ...request, force: true });
  assert.ok(replaced.ok);
  assert.equal(replaced.replaced, true);
  assert.equal(replaced.manifest.version, '2');
  assert.ok(!existsSync(join(extensions, 'hello', 'local-state.json')), 'old copy replaced');
  assert.deepEqual(readdirSync(extensions), ['hello']);
});

test('a local git repository installs through a file:// URL (shallow clone)', async () => {
  const { src, extensions } = fresh();
  writeExtension(src, { name: 'from-git', exec: './run.sh' });
  const url = gitRepo(src);
  const result = await installExtension({
    source: url,
    cwd: base,
    extensionsDir: extensions,
    force: false,
    env: gitEnv,
  });
  assert.ok(result.ok, result.ok ? '' : result.error);
  assert.equal(result.from, 'git');
  assert.equal(result.dir, join(extensions, 'from-git'));
  assert.equal(statSync(join(result.dir, 'run.sh')).mode & 0o777, 0o755);
  assert.ok(existsSync(join(result.dir, '.git', 'shallow')), 'cloned with --depth 1');
});

test('a clone without a manifest rolls back completely', async () => {
  const { src, extensions } = fresh();
  writeFileSync(join(src, 'README.md'), 'no manifest here');
  const url = gitRepo(src);
  mkdirSync(join(extensions, 'existing'), { recursive: true });
  writeFileSync(
    join(extensions, 'existing', 'extension.json'),
    '{"name":"existing","exec":"node"}',
  );
  const before = snapshot(extensions);
  const result = await installExtension({
    source: url,
    cwd: base,
    extensionsDir: extensions,
    force: false,
    env: gitEnv,
  });
  assert.ok(!result.ok);
  assert.match(result.error, /has no extension\.json at its root; nothing was installed/);
  assert.deepEqual(snapshot(extensions), before);

  const failed = await installExtension({
    source: pathToFileURL(join(base, 'no-such-repo')).href,
    cwd: base,
    extensionsDir: extensions,
    force: false,
    env: gitEnv,
  });
  assert.ok(!failed.ok);
  assert.match(failed.error, /git clone of .* exited with status \d+; nothing was installed/);
  assert.doesNotMatch(failed.error, /Cloning into/);
  assert.deepEqual(snapshot(extensions), before);
});

test('remove deletes only a real directory inside the extensions directory', () => {
  const { home, extensions } = fresh();
  mkdirSync(join(extensions, 'real', 'sub'), { recursive: true });
  const victim = join(home, 'victim');
  mkdirSync(victim);
  writeFileSync(join(victim, 'keep.txt'), 'precious');
  symlinkSync(victim, join(extensions, 'linked'));
  symlinkSync(victim, join(extensions, 'real', 'sub', 'inner-link'));
  writeFileSync(join(extensions, 'afile'), '');

  for (const name of ['../victim', 'a/b', 'a\\b', '..', '.', '', 'UPPER', '/abs']) {
    const result = removeExtension(extensions, name);
    assert.ok(!result.ok, name);
    assert.match(result.error, /invalid extension name/);
  }
  const linked = removeExtension(extensions, 'linked');
  assert.ok(!linked.ok);
  assert.match(linked.error, /is a symlink, not an installed copy/);
  assert.ok(!removeExtension(extensions, 'afile').ok);
  assert.match(
    (removeExtension(extensions, 'ghost') as { error: string }).error,
    /no extension named ghost/,
  );
  assert.ok(locateInstalled(extensions, 'real').ok);

  const removed = removeExtension(extensions, 'real');
  assert.ok(removed.ok);
  assert.ok(!existsSync(join(extensions, 'real')));
  assert.equal(
    readFileSync(join(victim, 'keep.txt'), 'utf8'),
    'precious',
    'links inside are not followed',
  );
});
