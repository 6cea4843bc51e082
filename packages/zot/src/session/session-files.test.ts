// /sessions' view of a directory: summaries newest first, names, and files that cannot be read.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
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

test('a rename keeps the session where it was in the list (its modification time stays)', (t) => {
  const root = mkdtempSync(join(tmpdir(), 'zot-files-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const files = sessionFiles(root, '/p', header);
  const made = [files.create(), files.create()];
  made.forEach((writer, i) =>
    writer.append({
      type: 'message',
      message: { role: 'user', content: [{ type: 'text', text: `prompt ${i}` }], time: 't' },
    }),
  );
  utimesSync(made[0]!.path, new Date(1_000_000), new Date(1_000_000));
  utimesSync(made[1]!.path, new Date(2_000_000), new Date(2_000_000));
  assert.equal(files.rename(made[0]!.path, '  older, named  '), 'older, named');
  const listed = files.list();
  assert.deepEqual(
    listed.map((s) => [s.first_prompt, s.name ?? null]),
    [
      ['prompt 1', null],
      ['prompt 0', 'older, named'],
    ],
  );
  assert.equal(listed[1]!.modified, new Date(1_000_000).toISOString());
});

test("delete removes one of this directory's sessions and nothing else", (t) => {
  const root = mkdtempSync(join(tmpdir(), 'zot-files-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const files = sessionFiles(root, '/p', header);
  const session = files.create();
  session.append({
    type: 'message',
    message: { role: 'user', content: [{ type: 'text', text: 'hi' }], time: 't' },
  });
  // Another directory's session, a file of the user's beside the sessions, a path outside.
  const elsewhere = sessionFiles(root, '/q', header).create();
  elsewhere.append({
    type: 'message',
    message: { role: 'user', content: [{ type: 'text', text: 'hi' }], time: 't' },
  });
  const notes = join(sessionDir(root, '/p'), 'notes.jsonl');
  writeFileSync(notes, '{"not":"a session"}\n');
  const outside = join(root, 'outside.jsonl');
  writeFileSync(outside, '');
  assert.throws(() => files.delete(elsewhere.path), /not one of this directory's sessions/);
  assert.throws(() => files.delete(outside), /not one of this directory's sessions/);
  assert.throws(() => files.delete(`${sessionDir(root, '/p')}/../outside.jsonl`), /not one of/);
  assert.throws(() => files.delete(notes), /not a zot session file/);
  assert.throws(() => files.delete(join(sessionDir(root, '/p'), 'gone.jsonl')), /no session file/);
  for (const kept of [elsewhere.path, notes, outside]) assert.ok(existsSync(kept), kept);
  files.delete(session.path);
  assert.equal(existsSync(session.path), false);
  assert.deepEqual(
    files.list().map((s) => s.path),
    [notes],
  );
});
