import assert from 'node:assert/strict';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import {
  argumentOutside,
  resolveExec,
  type ExecManifest,
  type ExecResolution,
} from './exec-resolve.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'zot-exec-')));
after(() => rmSync(root, { recursive: true, force: true }));

let counter = 0;
function extDir(files: Record<string, number> = {}): string {
  const dir = join(root, 'extensions', `ext-${++counter}`);
  mkdirSync(dir, { recursive: true });
  for (const [name, mode] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), '#!/bin/sh\n');
    chmodSync(join(dir, name), mode);
  }
  return dir;
}

function manifest(dir: string, exec: string | undefined, args: string[] = []): ExecManifest {
  return { dir, exec, args, manifestPath: join(dir, 'extension.json') };
}

function expectError(result: ExecResolution, pattern: RegExp): string {
  assert.equal(result.ok, false, 'expected an exec error');
  if (result.ok) throw new Error('unreachable');
  assert.match(result.error, pattern);
  assert.match(result.error, /extension\.json: "exec"/);
  return result.error;
}

test('./hello.py that is executable resolves to its absolute path, with args copied', () => {
  const dir = extDir({ 'hello.py': 0o755 });
  const args = ['--flag'];
  const result = resolveExec(manifest(dir, './hello.py', args));
  assert.deepEqual(result, { ok: true, command: join(dir, 'hello.py'), args: ['--flag'] });
  if (result.ok) assert.notEqual(result.args, args);
});

test('a nested path and an absolute path inside the directory are fine', () => {
  const dir = extDir({ 'bin/run': 0o700 });
  assert.deepEqual(resolveExec(manifest(dir, 'bin/run')), {
    ok: true,
    command: join(dir, 'bin/run'),
    args: [],
  });
  assert.deepEqual(resolveExec(manifest(dir, join(dir, 'bin/run'))), {
    ok: true,
    command: join(dir, 'bin/run'),
    args: [],
  });
});

test('a symlink inside the directory to a file inside it is fine', () => {
  const dir = extDir({ 'real.sh': 0o755 });
  symlinkSync('real.sh', join(dir, 'link.sh'));
  assert.deepEqual(resolveExec(manifest(dir, './link.sh')), {
    ok: true,
    command: join(dir, 'link.sh'),
    args: [],
  });
});

test('a file that is not executable suggests chmod +x or an interpreter', () => {
  const dir = extDir({ 'hello.py': 0o644 });
  const error = expectError(resolveExec(manifest(dir, './hello.py')), /is not executable/);
  assert.ok(error.includes(`chmod +x ${join(dir, 'hello.py')}`), error);
  assert.ok(error.includes('"exec": "python3", "args": ["hello.py"]'), error);
  const js = extDir({ 'index.js': 0o644 });
  assert.match(
    expectError(resolveExec(manifest(js, './index.js')), /not executable/),
    /"exec": "node"/,
  );
});

test('a missing file is an error naming it', () => {
  const dir = extDir();
  const error = expectError(
    resolveExec(manifest(dir, './missing.sh')),
    /"\.\/missing\.sh" not found/,
  );
  assert.ok(error.includes(join(dir, 'missing.sh')), error);
});

test('a directory is not a file', () => {
  const dir = extDir({ 'bin/x': 0o755 });
  expectError(resolveExec(manifest(dir, './bin')), /is not a file/);
});

test('a symlink pointing outside the directory is refused', () => {
  const outside = join(root, 'outside.sh');
  writeFileSync(outside, '#!/bin/sh\n', { mode: 0o755 });
  const dir = extDir();
  symlinkSync(outside, join(dir, 'run.sh'));
  expectError(resolveExec(manifest(dir, './run.sh')), /resolves outside the extension directory/);
  const dirLink = extDir();
  symlinkSync(root, join(dirLink, 'up'));
  expectError(resolveExec(manifest(dirLink, 'up/outside.sh')), /resolves outside/);
});

test('../outside.sh is refused whether or not it exists', () => {
  const dir = extDir();
  writeFileSync(join(dir, '..', 'outside.sh'), '#!/bin/sh\n', { mode: 0o755 });
  expectError(resolveExec(manifest(dir, '../outside.sh')), /"\.\.\/outside\.sh" resolves outside/);
  expectError(resolveExec(manifest(dir, '../nothing.sh')), /resolves outside/);
  expectError(resolveExec(manifest(dir, './a/../../outside.sh')), /resolves outside/);
});

test('an absolute path outside the directory is refused', () => {
  const dir = extDir();
  expectError(
    resolveExec(manifest(dir, process.execPath)),
    /resolves outside the extension directory/,
  );
  expectError(resolveExec(manifest(dir, '/bin/sh')), /resolves outside/);
});

test('a bare word is looked up on PATH', () => {
  const dir = extDir();
  const result = resolveExec(manifest(dir, 'node', ['index.js']));
  assert.ok(result.ok, JSON.stringify(result));
  assert.equal(realpathSync(result.command), realpathSync(process.execPath));
  assert.deepEqual(result.args, ['index.js']);
});

test('PATH order wins, non-executable and relative entries are skipped', () => {
  const first = extDir({ tool: 0o644 });
  const second = extDir({ tool: 0o755 });
  const third = extDir({ tool: 0o755 });
  const env = { PATH: ['', 'relative', first, second, third].join(':') };
  assert.deepEqual(resolveExec(manifest(extDir(), 'tool'), env), {
    ok: true,
    command: join(second, 'tool'),
    args: [],
  });
});

test('an unknown bare word is an error naming it', () => {
  const dir = extDir();
  const error = expectError(
    resolveExec(manifest(dir, 'no-such-program-zot')),
    /"no-such-program-zot" was not found on PATH/,
  );
  assert.ok(error.startsWith(join(dir, 'extension.json')));
  expectError(resolveExec(manifest(dir, 'node'), {}), /"node" was not found on PATH/);
});

test('a bare word never resolves to a file in the extension directory', () => {
  const dir = extDir({ tool: 0o755 });
  expectError(resolveExec(manifest(dir, 'tool'), { PATH: '' }), /not found on PATH/);
});

test('on win32, PATHEXT extensions are tried (Path spelled in any case)', () => {
  const bin = extDir({ 'tool.CMD': 0o644, 'plain.exe': 0o644 });
  const env = { Path: `${bin};`, PATHEXT: '.EXE;.CMD' };
  assert.deepEqual(resolveExec(manifest(extDir(), 'tool'), env, 'win32'), {
    ok: true,
    command: join(bin, 'tool.CMD'),
    args: [],
  });
  assert.deepEqual(resolveExec(manifest(extDir(), 'plain.exe'), env, 'win32'), {
    ok: true,
    command: join(bin, 'plain.exe'),
    args: [],
  });
  expectError(resolveExec(manifest(extDir(), 'plain.cmd'), env, 'win32'), /not found on PATH/);
});

test('a missing exec is an error', () => {
  expectError(resolveExec(manifest(extDir(), undefined)), /is missing/);
});

test('argumentOutside: project extension arguments naming paths must stay inside', () => {
  const dir = extDir({ 'main.py': 0o644, 'lib/x.js': 0o644 });
  const outsideFile = join(root, 'outside.js');
  writeFileSync(outsideFile, '');
  symlinkSync(outsideFile, join(dir, 'lib', 'link.js'));
  symlinkSync(root, join(dir, 'up'));
  const check = (args: string[]) => argumentOutside(manifest(dir, 'node', args));
  for (const args of [
    ['main.py'],
    ['./lib/x.js', '--flag', '-v', '--mode=fast', '-m', 'pkg.mod'],
    ['lib/missing/deeper.js', '--require=./lib/x.js', '-r./lib/x.js'],
    ['https://example.com/api', '..x', 'a..b', '.'],
  ]) {
    assert.equal(check(args), undefined, args.join(' '));
  }
  for (const [args, index] of [
    [['../../x.js'], 0],
    [['main.py', outsideFile], 1],
    [['--require=../x.js'], 0],
    [['--import', '../x.mjs'], 1],
    [['-r../x.js'], 0],
    [['lib/../../x.js'], 0],
    [['..'], 0],
    [[`file://${outsideFile}`], 0],
    [['lib/link.js'], 0],
    [['up/outside.js'], 0],
    [['up/not-there/x.js'], 0],
    [['-e', 'x', '--x=/etc/passwd'], 2],
  ] as Array<[string[], number]>) {
    const error = check(args);
    assert.ok(error, `${args.join(' ')} must be refused`);
    assert.ok(
      error.includes(`"args"[${index}] ${JSON.stringify(args[index])} names a path outside`),
      error,
    );
    assert.match(error, /extension\.json: /);
  }
});

test('an exec or an argument leading into the extension’s .git is refused: the hash leaves it out', () => {
  const dir = extDir({ '.git/payload.sh': 0o755, 'run.sh': 0o755, 'lib/real.py': 0o644 });
  symlinkSync('.git/payload.sh', join(dir, 'main.sh'));
  symlinkSync('.git', join(dir, 'gitlink'));
  for (const exec of ['./.git/payload.sh', './main.sh', './gitlink/payload.sh']) {
    const error = expectError(resolveExec(manifest(dir, exec)), /resolves into .*\.git, which/);
    assert.ok(error.includes(join(dir, '.git')), error);
  }
  assert.ok(resolveExec(manifest(dir, './run.sh')).ok);
  const check = (args: string[]) => argumentOutside(manifest(dir, 'python3', args));
  // A bare word is not taken for a path (`main.sh`): the hash refuses that link itself.
  for (const args of [
    ['.git/payload.sh'],
    ['./main.sh'],
    ['--x=gitlink/new.py'],
    ['.git/missing.py'],
  ]) {
    const error = check(args);
    assert.match(error ?? '', /"args"\[0\] .* names a path inside .*\.git, which the trust hash/);
  }
  assert.equal(check(['lib/real.py', '.gitignore', 'lib/.git/x']), undefined);
});
