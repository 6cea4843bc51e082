// The one reader of files zot did not write: regular files only, bounded, never blocking, and
// (when asked) never outside a directory, whatever links lead there.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { readRegularFile, readRegularText } from './regular-file.js';

function box(t: { after(fn: () => void): void }): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'zot-regular-')));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test(
  'a FIFO, a directory and a missing file are refused without blocking, each named',
  { skip: process.platform === 'win32' },
  (t) => {
    const dir = box(t);
    const fifo = join(dir, 'pipe');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
    const read = readRegularFile(fifo, { limit: 10 });
    assert.deepEqual(read, {
      ok: false,
      missing: false,
      error: `${fifo} is a FIFO; only regular files are read`,
    });
    assert.deepEqual(readRegularFile(dir, { limit: 10 }), {
      ok: false,
      missing: false,
      error: `${dir} is a directory; only regular files are read`,
    });
    const gone = readRegularFile(join(dir, 'gone'), { limit: 10 });
    assert.ok(!gone.ok && gone.missing, 'a missing file is "missing", which callers skip quietly');
  },
);

test('a file over the limit is refused whole, or cut with "more" when asked', (t) => {
  const dir = box(t);
  const file = join(dir, 'big.md');
  writeFileSync(file, '\uFEFF' + 'x'.repeat(2000));
  const refused = readRegularFile(file, { limit: 1024 });
  assert.ok(!refused.ok && /over the 1 KiB limit; not read/.test(refused.error), String(refused));
  const cut = readRegularText(file, { limit: 1024, over: 'cut' });
  assert.ok(cut.ok && cut.more && cut.text === 'x'.repeat(1021), 'cut, BOM dropped');
  const whole = readRegularText(file, { limit: 4096 });
  assert.ok(whole.ok && !whole.more && whole.text.length === 2000);
  // Files that report size 0 but have content (/proc) are read all the same.
  if (process.platform === 'linux') {
    const proc = readRegularText('/proc/self/status', { limit: 64 * 1024 });
    assert.ok(proc.ok && proc.text.includes('Name:'), 'a /proc file');
  }
});

test('`within`: links that stay inside are followed, links that leave are refused naming the target', (t) => {
  const dir = box(t);
  const project = join(dir, 'project');
  mkdirSync(join(project, 'docs'), { recursive: true });
  writeFileSync(join(dir, 'secret.txt'), 'SECRET');
  writeFileSync(join(project, 'docs', 'real.md'), 'INSIDE');
  symlinkSync(join(dir, 'secret.txt'), join(project, 'out.md'));
  symlinkSync(join(project, 'docs', 'real.md'), join(project, 'in.md'));
  // a linked directory on the way counts too
  symlinkSync(dir, join(project, 'up'));
  const inside = readRegularText(join(project, 'in.md'), { limit: 100, within: project });
  assert.ok(inside.ok && inside.text === 'INSIDE');
  for (const path of [join(project, 'out.md'), join(project, 'up', 'secret.txt')]) {
    const read = readRegularText(path, { limit: 100, within: project });
    assert.deepEqual(read, {
      ok: false,
      missing: false,
      error: `${path} leads to ${join(dir, 'secret.txt')}, outside ${project}; not read (files outside it are never sent)`,
    });
  }
});
