import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { withFileLock } from './file-lock.js';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'zot-lock-')));
after(() => rmSync(base, { recursive: true, force: true }));
let counter = 0;
const fresh = () => join(base, `d${++counter}`, 'state.json');

/** The pid of a process that has exited and been reaped. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.on('close', resolve));
  return child.pid!;
}

test('the lock is held during fn, released after it, also when fn throws', () => {
  const path = fresh();
  const result = withFileLock(path, () => {
    assert.ok(existsSync(`${path}.lock`));
    return 42;
  });
  assert.equal(result, 42);
  assert.ok(!existsSync(`${path}.lock`));
  assert.throws(
    () =>
      withFileLock(path, () => {
        throw new Error('inside');
      }),
    /inside/,
  );
  assert.ok(!existsSync(`${path}.lock`));
});

test('a live holder makes others wait, then fail with a message naming the lock and holder', () => {
  const path = fresh();
  withFileLock(path, () => {
    assert.throws(
      () => withFileLock(path, () => 'never', { waitMs: 100 }),
      new RegExp(`state\\.json\\.lock is held by process ${process.pid}; gave up after 100 ms`),
    );
  });
});

test('a lock left by a dead process, or too old, is taken over', async () => {
  const path = fresh();
  withFileLock(path, () => undefined); // creates the directory
  writeFileSync(`${path}.lock`, `${await deadPid()} left-behind\n`);
  assert.equal(
    withFileLock(path, () => 'taken', { waitMs: 60_000 }),
    'taken',
  );
  // Alive (our own pid) but older than staleMs: pid reuse must not block forever.
  writeFileSync(`${path}.lock`, `${process.pid} ancient\n`);
  utimesSync(`${path}.lock`, new Date(0), new Date(0));
  assert.equal(
    withFileLock(path, () => 'old', { waitMs: 60_000, staleMs: 1000 }),
    'old',
  );
  assert.deepEqual(readdirSync(join(path, '..')), [], 'no lock or moved-aside file is left');
});
