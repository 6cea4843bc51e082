import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { SessionWriter } from './store.js';

const root = mkdtempSync(join(tmpdir(), 'zot-store-'));
after(() => rmSync(root, { recursive: true, force: true }));
const modeOf = (path: string) => statSync(path).mode & 0o777;
const header = () => ({
  type: 'session' as const,
  version: 1,
  cwd: '/',
  created: '',
  provider: 'p',
  model: 'm',
});

test('a transcript left readable by others is tightened when zot writes to it again', () => {
  const dir = join(root, 'old');
  mkdirSync(dir, { mode: 0o755 });
  chmodSync(dir, 0o755);
  const file = join(dir, 's.jsonl');
  writeFileSync(file, JSON.stringify(header()) + '\n', { mode: 0o644 });
  chmodSync(file, 0o644);
  new SessionWriter(file, header).append({ type: 'clear', time: 'now' });
  assert.equal(modeOf(file), 0o600);
  assert.equal(modeOf(dir), 0o700);
});

test('a new transcript is 0600 in a 0700 directory', () => {
  const file = join(root, 'new', 'deeper', 's.jsonl');
  new SessionWriter(file, header).append({ type: 'clear', time: 'now' });
  assert.equal(modeOf(file), 0o600);
  assert.equal(modeOf(join(root, 'new', 'deeper')), 0o700);
});
