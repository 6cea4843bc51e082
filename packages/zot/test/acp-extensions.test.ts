// `zot acp` and extensions beyond yes/no: select and input questions as the editor's forms
// (ACP elicitation), refused with a note where the editor has none; session/cancel reaching an
// extension's tool call in flight.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { agentText, startAcp } from './support/acp.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { makeExtension } from './support/extensions.js';
import { until } from './support/pipes.js';
import { hangGuard } from './support/timing.js';
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

const frames = (record: string): Array<Record<string, any>> =>
  existsSync(record)
    ? readFileSync(record, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];

function asker(record: string) {
  const ask = (name: string, request: Record<string, unknown>) => ({
    name,
    response: { action: 'noop', emit: [{ type: 'ui_request', id: name, ...request }] },
  });
  return makeExtension(join(box.home, 'exts'), 'asker', 'well-behaved', {
    record,
    hello_extra: { protocol_version: 2 },
    commands: [
      ask('pick', { kind: 'select', title: 'Colour?', options: ['red', 'blue'] }),
      ask('typein', { kind: 'input', title: 'Your name?' }),
      ask('secret', { kind: 'input', title: 'Token?', mask: true }),
    ],
  });
}

const answers = (record: string) =>
  Object.fromEntries(
    frames(record)
      .filter((f) => f.type === 'ui_response')
      .map(({ id, type: _type, ...rest }) => [id, rest]),
  );

test("select and input questions are the editor's forms; a masked input is refused with a note", async () => {
  const record = join(box.home, 'asker-forms.jsonl');
  const acp = startAcp([...fakeLlmFlags(llm.url), '--no-session', '--ext', asker(record)], {
    home: box.home,
    cwd: box.project,
  });
  await acp.initialize({ elicitation: { form: {} } });
  const { sessionId } = await acp.agent.request('session/new', {
    cwd: box.project,
    mcpServers: [],
  });
  acp.elicit = (request) => {
    const field = (request as any).requestedSchema.properties.answer;
    return field.enum
      ? { action: 'accept', content: { answer: field.enum[1] } }
      : { action: 'accept', content: { answer: 'Ada' } };
  };
  for (const command of ['/pick', '/typein', '/secret']) {
    await acp.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: command }],
    });
  }
  await until(() => Object.keys(answers(record)).length === 3, hangGuard(30_000));
  assert.deepEqual(answers(record), {
    pick: { value: 'blue' },
    typein: { value: 'Ada' },
    secret: { unavailable: true },
  });
  assert.equal(acp.elicitations.length, 2, 'no form for the masked input');
  const [pick] = acp.elicitations as any[];
  assert.equal(pick.mode, 'form');
  assert.equal(pick.sessionId, sessionId);
  assert.match(pick.message, /asker asks: Colour\?/);
  assert.deepEqual(pick.requestedSchema.properties.answer.enum, ['red', 'blue']);
  assert.deepEqual(pick.requestedSchema.required, ['answer']);
  await acp.waitFor(
    (u) => u.sessionUpdate === 'agent_message_chunk' && /cannot hide/.test(JSON.stringify(u)),
    sessionId,
  );
  await acp.close();
});

test('an answer outside the options is a dismissal; an editor without forms is told why', async () => {
  const record = join(box.home, 'asker-noforms.jsonl');
  const acp = startAcp([...fakeLlmFlags(llm.url), '--no-session', '--ext', asker(record)], {
    home: box.home,
    cwd: box.project,
  });
  await acp.initialize({ elicitation: { form: {} } });
  const first = await acp.agent.request('session/new', { cwd: box.project, mcpServers: [] });
  acp.elicit = () => ({ action: 'accept', content: { answer: 'green' } });
  await acp.agent.request('session/prompt', {
    sessionId: first.sessionId,
    prompt: [{ type: 'text', text: '/pick' }],
  });
  await until(() => answers(record).pick !== undefined, hangGuard(30_000));
  assert.deepEqual(answers(record).pick, { cancelled: true });
  await acp.close();

  const record2 = join(box.home, 'asker-noforms2.jsonl');
  const plain = startAcp([...fakeLlmFlags(llm.url), '--no-session', '--ext', asker(record2)], {
    home: box.home,
    cwd: box.project,
  });
  await plain.initialize();
  const { sessionId } = await plain.agent.request('session/new', {
    cwd: box.project,
    mcpServers: [],
  });
  await plain.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: '/typein' }],
  });
  await until(() => answers(record2).typein !== undefined, hangGuard(30_000));
  assert.deepEqual(answers(record2).typein, { unavailable: true });
  assert.deepEqual(plain.elicitations, []);
  await plain.waitFor(
    (u) => u.sessionUpdate === 'agent_message_chunk' && /offers no forms/.test(JSON.stringify(u)),
    sessionId,
  );
  assert.match(agentText(plain.updates(sessionId)), /\[asker\] asked "Your name\?"/);
  await plain.close();
});

test("session/cancel cancels an extension's tool call in flight; the extension hears it", async () => {
  const record = join(box.home, 'slowpoke.jsonl');
  const dir = makeExtension(join(box.home, 'exts'), 'slowpoke', 'well-behaved', {
    record,
    hello_extra: { protocol_version: 2 },
    tools: [{ name: 'slow_tool', result: { never: true } }],
  });
  const acp = startAcp([...fakeLlmFlags(llm.url), '--no-session', '--ext', dir], {
    home: box.home,
    cwd: box.project,
  });
  await acp.initialize();
  const { sessionId } = await acp.agent.request('session/new', {
    cwd: box.project,
    mcpServers: [],
  });
  llm.script({ toolCalls: [{ id: 'slow1', name: 'slow_tool', args: {} }] }, { text: 'never' });
  const prompt = acp.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: 'go slow' }],
  });
  await until(() => frames(record).some((f) => f.type === 'tool_call'), hangGuard(30_000));
  await acp.agent.notify('session/cancel', { sessionId });
  assert.equal((await prompt).stopReason, 'cancelled');
  const call = frames(record).find((f) => f.type === 'tool_call')!;
  await until(
    () => frames(record).some((f) => f.type === 'cancel' && f.id === call.id),
    hangGuard(30_000),
  );
  const update = await acp.waitFor(
    (u) =>
      u.sessionUpdate === 'tool_call_update' &&
      u.toolCallId === 'slow1' &&
      (u.status === 'failed' || u.status === 'completed'),
    sessionId,
  );
  assert.equal((update as { status?: string }).status, 'failed');
  await acp.close();
});

test("an editor's SSE MCP server is refused at session/new, saying what to use instead", async () => {
  const acp = startAcp([...fakeLlmFlags(llm.url), '--no-session'], {
    home: box.home,
    cwd: box.project,
  });
  await acp.initialize();
  await assert.rejects(
    acp.agent.request('session/new', {
      cwd: box.project,
      mcpServers: [{ type: 'sse', name: 'old', url: 'http://127.0.0.1:9/sse', headers: [] }],
    }),
    (error: { code?: number; message?: string; data?: unknown }) => {
      assert.equal(error.code, -32602);
      assert.match(`${error.message} ${JSON.stringify(error.data)}`, /"old".*not the older SSE/);
      return true;
    },
  );
  // The connection still serves.
  const { sessionId } = await acp.agent.request('session/new', {
    cwd: box.project,
    mcpServers: [],
  });
  assert.ok(sessionId);
  await acp.close();
});
