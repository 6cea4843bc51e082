// `zot acp` with the editor's file system: the sandbox's hidden paths and permission rules hold
// whoever serves the bytes, and `write` over a file shows a diff against what it held.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { choose, startAcp } from './support/acp.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { makeSandbox } from './support/zot.js';

let llm: FakeLlm;
const box = makeSandbox();
before(async () => {
  llm = await startFakeLlm();
});
after(async () => {
  await llm.close();
  box.cleanup();
});

const FS = { fs: { readTextFile: true, writeTextFile: true } };
type Update = Extract<SessionUpdate, { sessionUpdate: 'tool_call_update' }>;
const finalOf = (updates: SessionUpdate[], id: string) =>
  updates.find(
    (u): u is Update =>
      u.sessionUpdate === 'tool_call_update' &&
      u.toolCallId === id &&
      (u.status === 'completed' || u.status === 'failed'),
  )!;
const call = (id: string, name: string, args: Record<string, unknown>) => ({
  toolCalls: [{ id, name, args }],
});

test("through the editor's fs, hidden paths and deny/ask rules still refuse before the editor is asked", async () => {
  // The test's HOME (see cleanEnv): the sandbox always hides ~/.ssh.
  const ssh = join(box.home, '..', 'user-home', '.ssh');
  mkdirSync(ssh, { recursive: true });
  writeFileSync(join(ssh, 'id_test'), 'PRIVATE KEY\n');
  writeFileSync(join(box.project, 'secret.txt'), 'on disk\n');
  writeFileSync(join(box.project, 'ask-me.txt'), 'on disk\n');
  const acp = startAcp(
    [
      ...fakeLlmFlags(llm.url),
      '--no-session',
      '--sandbox',
      'on',
      '--deny',
      'read(**/secret.txt)',
      '--ask',
      'read(**/ask-me.txt)',
    ],
    { home: box.home, cwd: box.project },
  );
  await acp.initialize(FS);
  acp.buffers.set(join(ssh, 'id_test'), 'PRIVATE KEY (unsaved)\n');
  acp.buffers.set(join(box.project, 'secret.txt'), 'secret (unsaved)\n');
  const { sessionId } = await acp.agent.request('session/new', {
    cwd: box.project,
    mcpServers: [],
  });
  llm.script(
    call('hidden', 'read', { path: '~/.ssh/id_test' }),
    call('hidden-edit', 'edit', {
      path: '~/.ssh/id_test',
      edits: [{ oldText: 'PRIVATE', newText: 'x' }],
    }),
    call('hidden-write', 'write', { path: '~/.ssh/planted', content: 'x' }),
    call('ruled', 'read', { path: 'secret.txt' }),
    call('asked', 'read', { path: 'ask-me.txt' }),
    { text: 'done' },
  );
  acp.answer = choose('deny');
  await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'x' }] });
  const updates = acp.updates(sessionId);
  for (const id of ['hidden', 'hidden-edit', 'hidden-write', 'ruled', 'asked']) {
    assert.equal(finalOf(updates, id).status, 'failed', id);
  }
  assert.match(JSON.stringify(finalOf(updates, 'hidden').content), /hidden/);
  assert.match(JSON.stringify(finalOf(updates, 'ruled').content), /read\(\*\*\/secret\.txt\)/);
  assert.equal(acp.permissions.length, 1, 'the ask rule asked');
  assert.deepEqual(acp.reads, [], 'the editor was never asked for those files');
  assert.deepEqual(acp.writes, []);
  assert.doesNotMatch(JSON.stringify(llm.requests), /PRIVATE KEY|secret \(unsaved\)/);
  await acp.close();
});

test('write over an existing file is a diff against its old text: the disk, or the editor buffer', async () => {
  writeFileSync(join(box.project, 'disk.txt'), 'one\ntwo\nthree\n');
  writeFileSync(join(box.project, 'buffer.txt'), 'saved\n');
  const diffOf = (updates: SessionUpdate[], id: string) =>
    finalOf(updates, id).content!.find((c) => c.type === 'diff') as {
      oldText?: string | null;
      newText: string;
    };

  const disk = startAcp([...fakeLlmFlags(llm.url), '--no-session'], {
    home: box.home,
    cwd: box.project,
  });
  await disk.initialize();
  const first = await disk.agent.request('session/new', { cwd: box.project, mcpServers: [] });
  llm.script(
    call('w1', 'write', { path: 'disk.txt', content: 'one\nTWO\nthree\n' }),
    call('w2', 'write', { path: 'fresh.txt', content: 'new\n' }),
    { text: 'ok' },
  );
  await disk.agent.request('session/prompt', {
    sessionId: first.sessionId,
    prompt: [{ type: 'text', text: 'w' }],
  });
  const replaced = diffOf(disk.updates(first.sessionId), 'w1');
  assert.equal(replaced.oldText, 'one\ntwo\nthree\n');
  assert.equal(replaced.newText, 'one\nTWO\nthree\n');
  assert.equal(diffOf(disk.updates(first.sessionId), 'w2').oldText, null, 'a new file');
  assert.equal(readFileSync(join(box.project, 'disk.txt'), 'utf8'), 'one\nTWO\nthree\n');
  await disk.close();

  const editor = startAcp([...fakeLlmFlags(llm.url), '--no-session'], {
    home: box.home,
    cwd: box.project,
  });
  await editor.initialize(FS);
  editor.buffers.set(join(box.project, 'buffer.txt'), 'unsaved edit\n');
  const second = await editor.agent.request('session/new', { cwd: box.project, mcpServers: [] });
  llm.script(call('w3', 'write', { path: 'buffer.txt', content: 'replaced\n' }), { text: 'ok' });
  await editor.agent.request('session/prompt', {
    sessionId: second.sessionId,
    prompt: [{ type: 'text', text: 'w' }],
  });
  const fromBuffer = diffOf(editor.updates(second.sessionId), 'w3');
  assert.equal(fromBuffer.oldText, 'unsaved edit\n', "the editor's text, not the disk's");
  assert.equal(fromBuffer.newText, 'replaced\n');
  assert.deepEqual(editor.writes, [
    { path: join(box.project, 'buffer.txt'), content: 'replaced\n' },
  ]);
  await editor.close();
});
