// The session tree over RPC, on a real session file: an old file with a rewind entry resumes on
// its last branch; switch_branch moves to another and writes a summary of the one left (plain at
// once, the model's after); merge_branch brings it back as marked context the model is sent; a
// new process resumes on the branch last used; fork and clone open new files.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { ZotRpc } from './support/rpc-client.js';
import { hangGuard } from './support/timing.js';
import { makeSandbox } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

const line = (value: unknown) => JSON.stringify(value) + '\n';
const say = (role: 'user' | 'assistant', text: string) =>
  line({ type: 'message', message: { role, content: [{ type: 'text', text }], time: 't' } });

/** A session file as zot wrote it before the tree: a conversation rewind after turn 1. */
function oldFile(cwd: string): string {
  return (
    line({ type: 'session', version: 1, cwd, created: 't', provider: 'anthropic', model: 'm' }) +
    say('user', 'one') +
    say('assistant', 'a1') +
    say('user', 'two') +
    say('assistant', 'a2') +
    line({ type: 'rewind', time: 't', turn: 2, messages: 2 }) +
    say('user', 'two again') +
    say('assistant', 'b2')
  );
}

type Listed = { branches: Array<Record<string, any>>; total: number; head: number };
const texts = (data: unknown) =>
  (data as { messages: Array<{ content: Array<{ text?: string }> }> }).messages.map(
    (m) => m.content[0]?.text ?? '',
  );
const entries = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, any>);

async function until(what: string, check: () => boolean): Promise<void> {
  const end = Date.now() + hangGuard(10_000);
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

test('branches over RPC: list, switch with a summary, merge, resume on the last branch, fork, clone', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const file = join(box.home, 's.jsonl');
  writeFileSync(file, oldFile(box.project));
  const start = () =>
    ZotRpc.start([...fakeLlmFlags(llm.url), '--session', file], {
      home: box.home,
      cwd: box.project,
    });
  let client = start();
  t.after(() => client.close());

  assert.deepEqual(texts((await client.request('get_messages')).data), [
    'one',
    'a1',
    'two again',
    'b2',
  ]);
  const listed = (await client.request('list_branches')).data as Listed;
  assert.equal(listed.total, 2);
  assert.deepEqual(
    listed.branches.map((b) => [b.index, b.first_prompt, b.parent, b.active]),
    [
      [1, 'one', undefined, false],
      [2, 'two again', 1, true],
    ],
  );

  const missing = await client.request('switch_branch', { branch: 9 });
  assert.equal(missing.error_kind, 'not_found');
  assert.match(String(missing.error), /no branch 9: the session has 2/);

  llm.script({ text: 'Tried "two again"; it answered b2.' });
  const asked = llm.requests.length;
  const moved = await client.request('switch_branch', { branch: 1 });
  assert.equal(moved.success, true, String(moved.error));
  assert.deepEqual(moved.data, { branch: 1, message_count: 4, left: 2 });
  assert.deepEqual(texts((await client.request('get_messages')).data), ['one', 'a1', 'two', 'a2']);

  // The plain summary is written with the switch; the model's follows it.
  await until('the model summary', () =>
    entries(file).some((e) => e.type === 'branch_summary' && e.by === 'model'),
  );
  const summaries = entries(file).filter((e) => e.type === 'branch_summary');
  assert.deepEqual(
    summaries.map((e) => e.by),
    ['zot', 'model'],
  );
  assert.match(summaries[0]!.summary, /^Prompts:\n- two again\nLast answer:\n {2}b2$/);
  assert.match(llm.requests[asked]!.body.messages[0].content[0].text, /two again[\s\S]*b2/);
  const after = (await client.request('list_branches')).data as Listed;
  assert.equal(after.branches[1]!.summary.text, 'Tried "two again"; it answered b2.');
  assert.equal(after.branches[0]!.active, true);

  const self = await client.request('merge_branch', { branch: 1 });
  assert.equal(self.error_kind, 'failed');
  const merged = await client.request('merge_branch', { branch: 2, messages: 1 });
  assert.equal(merged.success, true, String(merged.error));
  const mergedText = (merged.data as { text: string }).text;
  assert.match(
    mergedText,
    /Tried "two again"; it answered b2\.[\s\S]*Its last 1 messages:\s+ASSISTANT: b2/,
  );
  const now = texts((await client.request('get_messages')).data);
  assert.equal(now.length, 5);
  assert.ok(now[4]!.startsWith('[merged from another branch] branch 2: two again'));

  // The model is sent the merged context with the next prompt.
  llm.script({ text: 'carrying on' });
  client.send({ type: 'prompt', message: 'go on' });
  await client.doneCount(1);
  const sent = JSON.stringify(llm.requests.at(-1)!.body.messages);
  assert.match(sent, /merged from another branch/);
  assert.match(sent, /it answered b2/);

  // A new process resumes on the branch used last, merge included.
  await client.close();
  client = start();
  assert.deepEqual(texts((await client.request('get_messages')).data), [
    'one',
    'a1',
    'two',
    'a2',
    now[4],
    'go on',
    'carrying on',
  ]);
  assert.equal(((await client.request('list_branches')).data as Listed).branches[0]!.active, true);

  const forked = await client.request('fork', { messages: 2 });
  assert.equal(forked.success, true, String(forked.error));
  const forkFile = (forked.data as { session_file: string }).session_file;
  assert.notEqual(forkFile, file);
  assert.equal((forked.data as { message_count: number }).message_count, 2);
  assert.deepEqual(texts((await client.request('get_messages')).data), ['one', 'a1']);
  assert.equal((await client.request('get_state')).data!.session_file, forkFile);
  assert.equal(((await client.request('list_branches')).data as Listed).total, 1);

  const tooMany = await client.request('fork', { messages: 3 });
  assert.equal(tooMany.error_kind, 'failed');

  await client.request('switch_session', { path: file });
  const cloned = await client.request('clone');
  assert.equal(cloned.success, true, String(cloned.error));
  const cloneFile = (cloned.data as { session_file: string }).session_file;
  assert.ok(existsSync(cloneFile) && cloneFile !== file);
  assert.equal(readFileSync(cloneFile, 'utf8'), readFileSync(file, 'utf8'));
  assert.equal(((await client.request('list_branches')).data as Listed).total, 2);
});
