import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { readHead } from './read-head.js';

test('readHead reads up to its bound, and refuses a FIFO without waiting for a writer', () => {
  const dir = mkdtempSync(join(tmpdir(), 'zot-read-head-'));
  const file = join(dir, 'AGENTS.md');
  writeFileSync(file, 'abcdef');
  assert.deepEqual(readHead(file, 4), { bytes: Buffer.from('abcd'), more: true });
  const fifo = join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  // a project's AGENTS.md or settings file may be a FIFO: opening it blocked until now
  assert.equal(readHead(fifo, 4), undefined);
});
