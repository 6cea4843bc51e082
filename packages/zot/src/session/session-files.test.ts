// /sessions' view of a directory: summaries newest first, names, and files that cannot be read.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { sessionFiles } from './session-files.js';
import { sessionDir } from './store.js';

const header = () => ({
  type: 'session' as const,
  version: 1,
  cwd: '/p',
  created: new Date().toISOString(),
  provider: 'anthropic',
  model: 'claude-haiku-4-5',
});

test('list, rename and open: newest first, the last name counts, bad names are refused', (t) => {
  const root = mkdtempSync(join(tmpdir(), 'zot-files-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const files = sessionFiles(root, '/p', header);
  const older = files.create();
  older.append({
    type: 'message',
    message: { role: 'user', content: [{ type: 'text', text: 'fix the\nbuild' }], time: 't' },
  });
  older.append({
    type: 'usage',
    time: 't',
    provider: 'openai',
    model: 'gpt-5',
    input: 1000,
    output: 100,
    cache_read: 0,
    cache_write: 0,
    cost_usd: 0.25,
  });
  const newer = files.create();
  newer.append({
    type: 'message',
    message: { role: 'user', content: [{ type: 'text', text: 'hello' }], time: 't' },
  });
  utimesSync(older.path, new Date(1_000_000), new Date(1_000_000));
  writeFileSync(join(sessionDir(root, '/p'), 'broken.jsonl'), 'not json\n');
  utimesSync(join(sessionDir(root, '/p'), 'broken.jsonl'), new Date(0), new Date(0));

  files.rename(older.path, 'build fix');
  files.rename(older.path, '  the build fix  ');
  utimesSync(older.path, new Date(1_000_000), new Date(1_000_000));
  assert.throws(() => files.rename(older.path, 'two\nlines'), /one line/);
  assert.throws(() => files.rename(older.path, '   '), /empty/);
  assert.throws(() => files.rename(join(root, 'missing.jsonl'), 'x'), /missing\.jsonl/);

  const listed = files.list();
  assert.deepEqual(
    listed.map((s) => [s.first_prompt, s.name ?? null, s.model ?? null, s.cost_usd]),
    [
      ['hello', null, 'anthropic/claude-haiku-4-5', 0],
      ['fix the', 'the build fix', 'openai/gpt-5', 0.25],
      ['', null, null, 0],
    ],
  );
  // A file of bad lines is listed (with no messages), not hidden and not fatal.
  assert.equal(listed[2]!.message_count, 0);

  const opened = files.open(older.path);
  assert.equal(opened.messages.length, 1);
  assert.deepEqual(opened.usage.last, { input: 1000, output: 100, cache_read: 0, cache_write: 0 });
  assert.throws(() => files.open(join(root, 'nope.jsonl')), /no session file at .*nope\.jsonl/);
});
