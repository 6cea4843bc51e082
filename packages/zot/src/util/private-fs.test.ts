// ensureOwnedPrivateDir: a directory for private files that nobody else can read, plant in or swap.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ensureOwnedPrivateDir } from './private-fs.js';

const root = mkdtempSync(join(tmpdir(), 'zot-private-'));
after(() => rmSync(root, { recursive: true, force: true }));
const modeOf = (path: string) => statSync(path).mode & 0o7777;

test('made 0700 with its parents; one of ours left wider is tightened', () => {
  const dir = join(root, 'a', 'b', 'out');
  ensureOwnedPrivateDir(dir);
  assert.deepEqual([modeOf(dir), modeOf(join(root, 'a', 'b'))], [0o700, 0o700]);
  chmodSync(dir, 0o755);
  ensureOwnedPrivateDir(dir);
  assert.equal(modeOf(dir), 0o700);
});

test('refused: a file in its place, a parent others may write to (unless sticky)', () => {
  const file = join(root, 'file');
  writeFileSync(file, '');
  assert.throws(() => ensureOwnedPrivateDir(file), /\/file is not a directory; zot keeps/);
  const open = join(root, 'open');
  mkdirSync(open);
  chmodSync(open, 0o777);
  assert.throws(
    () => ensureOwnedPrivateDir(join(open, 'out')),
    /\/open is writable by other users \(mode 0777\): remove it or set another directory/,
  );
  chmodSync(open, 0o1777); // like /tmp: others cannot rename what is ours
  ensureOwnedPrivateDir(join(open, 'out'));
  assert.equal(modeOf(join(open, 'out')), 0o700);
});
