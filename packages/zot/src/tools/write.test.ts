import assert from 'node:assert/strict';
import {
  chmodSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  symlinkSync,
  lstatSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { makeContext, tempDir, textOf } from './test-helpers.js';
import { createWriteTool } from './write.js';

let dir = '';
let cleanup = (): void => {};
before(() => ({ dir, cleanup } = tempDir()));
after(() => cleanup());

const write = createWriteTool();
const run = (args: Record<string, unknown>) => write.execute(args, makeContext(dir));

test('creates parent directories and says the file is new', async () => {
  const output = await run({ path: 'a/b/c.txt', content: 'héllo' });
  assert.equal(output.isError, false);
  assert.equal(textOf(output), 'Wrote 6 bytes to a/b/c.txt (created a new file)');
  assert.equal(readFileSync(join(dir, 'a/b/c.txt'), 'utf8'), 'héllo');
});

test('overwrites, keeps the mode exactly, and leaves no temp file', async () => {
  const file = join(dir, 'script.sh');
  writeFileSync(file, 'old');
  chmodSync(file, 0o775); // group-write would be lost to a 022 umask on a fresh file
  const output = await run({ path: 'script.sh', content: 'new' });
  assert.equal(textOf(output), 'Wrote 3 bytes to script.sh (overwrote the existing file)');
  assert.equal(readFileSync(file, 'utf8'), 'new');
  assert.equal(statSync(file).mode & 0o7777, 0o775);
  assert.deepEqual(
    readdirSync(dir).filter((name) => name.endsWith('.tmp')),
    [],
  );
});

test('writes through a symlink, keeping the link', async () => {
  writeFileSync(join(dir, 'target.txt'), 'before');
  symlinkSync('target.txt', join(dir, 'link.txt'));
  await run({ path: 'link.txt', content: 'after' });
  assert.equal(lstatSync(join(dir, 'link.txt')).isSymbolicLink(), true);
  assert.equal(readFileSync(join(dir, 'target.txt'), 'utf8'), 'after');
});

test('refuses a directory and a path under a file', async () => {
  mkdirSync(join(dir, 'folder'));
  const folder = await run({ path: 'folder', content: 'x' });
  assert.equal(folder.isError, true);
  assert.equal(textOf(folder), 'write: folder is a directory');

  writeFileSync(join(dir, 'plain'), 'x');
  const under = await run({ path: 'plain/child.txt', content: 'x' });
  assert.equal(under.isError, true);
  assert.match(
    textOf(under),
    /^write: a parent of plain\/child.txt (is not|exists and is not) a directory$/,
  );
});

test('writes an empty file and expands ~', async () => {
  const tool = createWriteTool({ homeDir: dir });
  const output = await tool.execute({ path: '~/empty.txt', content: '' }, makeContext('/'));
  assert.equal(textOf(output), 'Wrote 0 bytes to ~/empty.txt (created a new file)');
  assert.equal(readFileSync(join(dir, 'empty.txt'), 'utf8'), '');
  assert.equal(write.preview?.({ path: 'x.ts', content: '' }), 'x.ts');
});

test('details: the path, the bytes written and whether the file is new', async () => {
  assert.deepEqual((await run({ path: 'd/new.txt', content: 'héllo' })).details, {
    kind: 'write',
    path: 'd/new.txt',
    bytes: 6,
    created: true,
  });
  assert.deepEqual((await run({ path: 'd/new.txt', content: '' })).details, {
    kind: 'write',
    path: 'd/new.txt',
    bytes: 0,
    created: false,
  });
});
