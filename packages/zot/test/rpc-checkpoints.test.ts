// RPC list_checkpoints and rewind: a live session's checkpointed turns and a rewind of one,
// with a conflict refused until force, in a real repository driven by real bash tool calls.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { ZotRpc } from './support/rpc-client.js';
import { makeSandbox } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

test('list_checkpoints lists the turns with their files; rewind restores, refuses a conflict, and can be undone', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  execFileSync('git', ['init', '-q'], { cwd: box.project });
  writeFileSync(join(box.project, 'a.txt'), 'one\n');
  const client = ZotRpc.start([...fakeLlmFlags(llm.url), '--session', join(box.home, 's.jsonl')], {
    home: box.home,
    cwd: box.project,
  });
  t.after(() => client.close());

  const empty = await client.request('list_checkpoints');
  assert.deepEqual(empty.data, { enabled: true, turns: [] });

  llm.script(
    { toolCalls: [{ name: 'bash', args: { command: 'echo two >> a.txt && echo n > new.txt' } }] },
    { text: 'done' },
  );
  client.send({ type: 'prompt', message: 'change things\nsecond line' });
  await client.doneCount(1);

  const listed = await client.request('list_checkpoints');
  assert.equal(listed.success, true);
  const turns = (listed.data as { turns: Array<Record<string, unknown>> }).turns;
  assert.equal(turns.length, 1);
  assert.equal(turns[0]!.turn, 1);
  assert.equal(turns[0]!.label, 'change things');
  assert.deepEqual(turns[0]!.files, [
    { path: 'a.txt', added: 1, removed: 0 },
    { path: 'new.txt', added: 1, removed: 0 },
  ]);

  writeFileSync(join(box.project, 'a.txt'), 'edited in an editor\n');
  const refused = await client.request('rewind', { turn: 1 });
  assert.equal(refused.success, false);
  assert.match(String(refused.error), /"a\.txt" changed outside zot/);
  assert.equal(readFileSync(join(box.project, 'a.txt'), 'utf8'), 'edited in an editor\n');

  const missing = await client.request('rewind', { turn: 5 });
  assert.equal(missing.error_kind, 'not_found');

  const forced = await client.request('rewind', { turn: 1, force: true });
  assert.equal(forced.success, true, String(forced.error));
  assert.deepEqual(forced.data, {
    restored: ['a.txt'],
    removed: ['new.txt'],
    kept: [],
    undo_turn: 2,
  });
  assert.equal(readFileSync(join(box.project, 'a.txt'), 'utf8'), 'one\n');
  assert.ok(!existsSync(join(box.project, 'new.txt')));

  const undone = await client.request('rewind', { turn: 2 });
  assert.equal(undone.success, true, String(undone.error));
  assert.equal(readFileSync(join(box.project, 'a.txt'), 'utf8'), 'edited in an editor\n');
  assert.equal(readFileSync(join(box.project, 'new.txt'), 'utf8'), 'n\n');

  // The conversation goes back to before turn 1's prompt; the files stay as they are.
  const moved = await client.request('rewind', { turn: 1, conversation: true });
  assert.equal(moved.success, true, String(moved.error));
  assert.deepEqual(moved.data, { message_count: 0 });
  const messages = await client.request('get_messages');
  assert.deepEqual((messages.data as { messages: unknown[] }).messages, []);
  assert.equal(readFileSync(join(box.project, 'new.txt'), 'utf8'), 'n\n');
});
