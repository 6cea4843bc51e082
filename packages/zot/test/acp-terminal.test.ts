// `zot acp --client-terminal`: bash in the editor's terminal (the test's client runs each
// command as a real subprocess), only with the sandbox off, after zot's own permission checks.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
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

const start = (extra: string[]) =>
  startAcp([...fakeLlmFlags(llm.url), '--no-session', ...extra], {
    home: box.home,
    cwd: box.project,
  });

type Update = Extract<SessionUpdate, { sessionUpdate: 'tool_call_update' }>;
const finalOf = (updates: SessionUpdate[], id: string) =>
  updates.find(
    (u): u is Update =>
      u.sessionUpdate === 'tool_call_update' &&
      u.toolCallId === id &&
      (u.status === 'completed' || u.status === 'failed'),
  );
const resultText = (update: Update | undefined) =>
  ((update?.rawOutput as { content: Array<{ text: string }> }).content ?? [])
    .map((b) => b.text)
    .join('');

test('--client-terminal: bash runs in the editor terminal once allowed; exit, truncation and timeout read as zot bash', async () => {
  const acp = start(['--client-terminal', '--no-yolo']);
  await acp.initialize({ terminal: true });
  const { sessionId } = await acp.agent.request('session/new', {
    cwd: box.project,
    mcpServers: [],
  });
  const bash = (id: string, command: string, timeout?: number) => ({
    toolCalls: [{ id, name: 'bash', args: { command, ...(timeout ? { timeout } : {}) } }],
  });
  llm.script(
    bash('refused', 'echo never'),
    bash('exit3', 'echo "in $PWD"; echo oops >&2; exit 3'),
    bash('long', "head -c 300000 /dev/zero | tr '\\0' x | fold -w 99"),
    bash('slow', 'sleep 30', 1),
    { text: 'done' },
  );
  // Terminals made when each call was asked about: every call asks before its terminal exists.
  const madeWhenAsked: number[] = [];
  acp.answer = (request) => {
    madeWhenAsked.push(acp.terminals.calls.filter((c) => c.startsWith('create')).length);
    return choose(request.toolCall.toolCallId === 'refused' ? 'deny' : 'allow')(request);
  };
  const response = await acp.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: 'run things' }],
  });
  assert.equal(response.stopReason, 'end_turn');
  assert.deepEqual(madeWhenAsked, [0, 0, 1, 2]);
  const updates = acp.updates(sessionId);

  assert.equal(finalOf(updates, 'refused')!.status, 'failed');
  const creates = acp.terminals.calls.filter((c) => c.startsWith('create'));
  assert.equal(creates.length, 3, acp.terminals.calls.join('\n'));
  assert.match(creates[0]!, /^create \S*sh -c echo "in \$PWD"/);

  // exit 3: the terminal is shown in the call; the model gets output and status as bash gives them.
  const shown = updates.find(
    (u) =>
      u.sessionUpdate === 'tool_call_update' &&
      u.toolCallId === 'exit3' &&
      u.content?.some((c) => c.type === 'terminal'),
  );
  assert.ok(shown, 'the terminal is embedded in the tool call');
  const exit3 = finalOf(updates, 'exit3')!;
  assert.equal(exit3.status, 'failed');
  assert.deepEqual(exit3.content, [{ type: 'terminal', terminalId: 't1' }]);
  assert.match(resultText(exit3), new RegExp(`in ${box.project}`));
  assert.match(resultText(exit3), /oops/);
  assert.match(resultText(exit3), /exit code 3$/);
  assert.equal((exit3.rawOutput as any).details.exit_code, 3);

  // 300 KB: the editor kept 200 KB of it, zot's own limits cut the rest and saved what it had.
  const long = finalOf(updates, 'long')!;
  assert.equal(long.status, 'completed');
  assert.match(resultText(long), /output truncated by the editor/);
  assert.match(resultText(long), /output truncated: showing last \d+ of \d+ lines/);
  assert.equal((long.rawOutput as any).details.truncated, true);

  // A timeout kills the terminal's command, as zot kills its process group.
  const slow = finalOf(updates, 'slow')!;
  assert.equal(slow.status, 'failed');
  assert.match(resultText(slow), /bash: timed out after 1s/);
  assert.equal((slow.rawOutput as any).details.timed_out, true);
  assert.ok(acp.terminals.calls.includes('kill t3'), acp.terminals.calls.join('\n'));

  // Every terminal is released, after its output was read.
  for (const id of ['t1', 't2', 't3']) {
    const calls = acp.terminals.calls;
    assert.ok(calls.indexOf(`release ${id}`) > calls.indexOf(`output ${id}`), calls.join('\n'));
  }
  await acp.close();
});

test('--client-terminal with the sandbox on: session/new is refused naming both settings', async () => {
  const acp = start(['--client-terminal', '--sandbox', 'on']);
  await acp.initialize({ terminal: true });
  await assert.rejects(
    acp.agent.request('session/new', { cwd: box.project, mcpServers: [] }),
    (error: { message?: string; data?: unknown }) => {
      const text = `${error.message} ${JSON.stringify(error.data)}`;
      assert.match(text, /client terminals are on/);
      assert.match(text, /sandbox\.mode "on"/);
      assert.match(text, /--sandbox off/);
      return true;
    },
  );
  assert.deepEqual(acp.terminals.calls, []);
  await acp.close();
});

test("config.json's acp.client_terminal turns it on; without it bash stays zot's own", async () => {
  const config = join(box.home, 'config.json');
  writeFileSync(config, JSON.stringify({ acp: { client_terminal: true } }));
  try {
    const on = start([]);
    await on.initialize({ terminal: true });
    const first = await on.agent.request('session/new', { cwd: box.project, mcpServers: [] });
    llm.script(
      { toolCalls: [{ id: 'c1', name: 'bash', args: { command: 'echo via-editor' } }] },
      { text: 'ok' },
    );
    await on.agent.request('session/prompt', {
      sessionId: first.sessionId,
      prompt: [{ type: 'text', text: 'x' }],
    });
    assert.match(resultText(finalOf(on.updates(first.sessionId), 'c1')), /via-editor/);
    assert.equal(on.terminals.calls.filter((c) => c.startsWith('create')).length, 1);
    await on.close();
  } finally {
    writeFileSync(config, '{}');
  }

  const off = start([]);
  await off.initialize({ terminal: true });
  const { sessionId } = await off.agent.request('session/new', {
    cwd: box.project,
    mcpServers: [],
  });
  llm.script(
    { toolCalls: [{ id: 'c2', name: 'bash', args: { command: 'echo own-bash' } }] },
    { text: 'ok' },
  );
  await off.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'y' }] });
  const done = finalOf(off.updates(sessionId), 'c2')!;
  assert.equal(done.status, 'completed');
  assert.match(resultText(done), /own-bash/);
  assert.deepEqual(off.terminals.calls, [], 'no terminal without the option');
  await off.close();
});
