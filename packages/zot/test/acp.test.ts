// `zot acp` end to end: the ACP SDK's client side drives a real zot process against the
// scripted LLM server.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { agentText, choose, startAcp } from './support/acp.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { makeExtension } from './support/extensions.js';
import { everything, MCP_EXT, mcpEnv } from './support/mcp.js';
import { makeSandbox, runZot } from './support/zot.js';

let llm: FakeLlm;
const box = makeSandbox();
before(async () => {
  llm = await startFakeLlm();
});
after(async () => {
  await llm.close();
  box.cleanup();
});

const start = (extra: string[] = []) =>
  startAcp([...fakeLlmFlags(llm.url), ...extra], { home: box.home, cwd: box.project });

const of = <K extends SessionUpdate['sessionUpdate']>(updates: SessionUpdate[], kind: K) =>
  updates.filter(
    (u): u is Extract<SessionUpdate, { sessionUpdate: K }> => u.sessionUpdate === kind,
  );

test('initialize advertises load, prompt content, session listing and auth methods', async () => {
  const acp = start();
  const init = (await acp.initialize()) as Record<string, any>;
  assert.equal(init.protocolVersion, 1);
  assert.equal(init.agentCapabilities.loadSession, true);
  assert.deepEqual(init.agentCapabilities.promptCapabilities, {
    image: true,
    embeddedContext: true,
  });
  assert.deepEqual(init.agentCapabilities.sessionCapabilities.list, {});
  assert.equal(init.agentInfo.name, 'zot');
  assert.ok(init.authMethods.some((m: { id: string }) => m.id === 'openai-api-key'));
  assert.deepEqual(await acp.close(), { code: 0, signal: null });
});

test('a prompt streams thinking and text chunks and ends with end_turn; load replays it', async () => {
  const acp = start();
  await acp.initialize();
  const { sessionId } = await acp.agent.request('session/new', {
    cwd: box.project,
    mcpServers: [],
  });
  llm.script({ thinking: ['let me ', 'think'], text: ['Hel', 'lo ', 'there'] });
  const response = await acp.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: 'say hello' }],
  });
  assert.equal(response.stopReason, 'end_turn');
  const updates = acp.updates(sessionId);
  const chunks = of(updates, 'agent_message_chunk').map(
    (u) => (u.content as { text: string }).text,
  );
  assert.deepEqual(chunks, ['Hel', 'lo ', 'there'], 'one chunk per streamed delta');
  assert.equal(
    of(updates, 'agent_thought_chunk')
      .map((u) => (u.content as { text: string }).text)
      .join(''),
    'let me think',
  );
  assert.ok(of(updates, 'available_commands_update').length >= 1);
  await acp.close();

  // A new process loads the recorded session and replays it.
  const again = start();
  await again.initialize();
  const listed = await again.agent.request('session/list', { cwd: box.project });
  assert.ok(listed.sessions.some((s) => s.sessionId === sessionId));
  await again.agent.request('session/load', { sessionId, cwd: box.project, mcpServers: [] });
  const replayed = again.updates(sessionId);
  const user = of(replayed, 'user_message_chunk').map((u) => (u.content as { text: string }).text);
  assert.deepEqual(user, ['say hello']);
  assert.equal(agentText(replayed), 'Hello there');
  assert.equal(
    of(replayed, 'agent_thought_chunk')
      .map((u) => (u.content as { text: string }).text)
      .join(''),
    'let me think',
  );
  await again.agent.request('session/close', { sessionId });
  // resume: the same session, no replay; its history is the model's context.
  const before = again.notifications.length;
  await again.agent.request('session/resume', { sessionId, cwd: box.project });
  assert.equal(
    again.notifications.slice(before).filter((n) => n.update.sessionUpdate === 'user_message_chunk')
      .length,
    0,
  );
  llm.script({ text: 'resumed' });
  await again.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: 'more' }],
  });
  assert.match(JSON.stringify(llm.requests.at(-1)!.body.messages), /say hello/);
  await assert.rejects(
    again.agent.request('session/load', {
      sessionId: '../../etc/passwd',
      cwd: box.project,
      mcpServers: [],
    }),
    /no recorded session/,
  );
  await again.close();
});

test('an edit is a tool call with kind, location, raw input, then a diff', async () => {
  writeFileSync(join(box.project, 'notes.txt'), 'alpha\nbeta\ngamma\n');
  const acp = start();
  await acp.initialize();
  const { sessionId } = await acp.agent.request('session/new', {
    cwd: box.project,
    mcpServers: [],
  });
  const args = { path: 'notes.txt', edits: [{ oldText: 'beta', newText: 'BETA' }] };
  llm.script({ toolCalls: [{ id: 'call_1', name: 'edit', args }] }, { text: 'edited' });
  const response = await acp.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: 'edit it' }],
  });
  assert.equal(response.stopReason, 'end_turn');
  const updates = acp.updates(sessionId);
  const [call] = of(updates, 'tool_call');
  assert.equal(call!.toolCallId, 'call_1');
  assert.equal(call!.kind, 'edit');
  assert.equal(call!.status, 'pending');
  assert.deepEqual(call!.locations, [{ path: join(box.project, 'notes.txt') }]);
  assert.deepEqual(call!.rawInput, args);
  const done = of(updates, 'tool_call_update').find((u) => u.status === 'completed');
  const diff = done!.content!.find((c) => c.type === 'diff') as Record<string, unknown>;
  assert.equal(diff.path, join(box.project, 'notes.txt'));
  assert.match(String(diff.oldText), /beta/);
  assert.match(String(diff.newText), /BETA/);
  assert.doesNotMatch(String(diff.newText), /\bbeta\b/);
  assert.equal(readFileSync(join(box.project, 'notes.txt'), 'utf8'), 'alpha\nBETA\ngamma\n');
  await acp.close();
});

test('--no-yolo: every call asks the editor; allow runs it, reject refuses it', async () => {
  const acp = start(['--no-yolo']);
  await acp.initialize();
  const { sessionId } = await acp.agent.request('session/new', {
    cwd: box.project,
    mcpServers: [],
  });
  const write = (name: string) => ({
    toolCalls: [{ id: `w_${name}`, name: 'write', args: { path: name, content: 'hi\n' } }],
  });
  llm.script(write('allowed.txt'), { text: 'ok' }, write('refused.txt'), { text: 'ok' });

  acp.answer = choose('allow');
  await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'a' }] });
  acp.answer = choose('deny');
  await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'b' }] });

  assert.equal(acp.permissions.length, 2);
  const [first] = acp.permissions;
  assert.equal(first!.toolCall.toolCallId, 'w_allowed.txt');
  const kinds = first!.options.map((o) => `${o.optionId}:${o.kind}`);
  assert.ok(kinds.includes('allow:allow_once'));
  assert.ok(kinds.includes('allow_tool_session:allow_always'));
  assert.ok(kinds.includes('deny:reject_once'));
  assert.ok(existsSync(join(box.project, 'allowed.txt')));
  assert.ok(!existsSync(join(box.project, 'refused.txt')));
  const statuses = of(acp.updates(sessionId), 'tool_call_update')
    .filter((u) => u.status === 'completed' || u.status === 'failed')
    .map((u) => `${u.toolCallId}:${u.status}`);
  assert.deepEqual(statuses, ['w_allowed.txt:completed', 'w_refused.txt:failed']);
  await acp.close();
});

test('session/cancel mid-stream ends the prompt with cancelled', async () => {
  const acp = start();
  await acp.initialize();
  const { sessionId } = await acp.agent.request('session/new', {
    cwd: box.project,
    mcpServers: [],
  });
  llm.script({ text: 'partial answer', hang: true });
  const prompt = acp.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: 'go on forever' }],
  });
  await acp.waitFor((u) => u.sessionUpdate === 'agent_message_chunk', sessionId);
  await acp.agent.notify('session/cancel', { sessionId });
  assert.equal((await prompt).stopReason, 'cancelled');
  // The session still serves.
  llm.script({ text: 'after' });
  const next = await acp.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: 'again' }],
  });
  assert.equal(next.stopReason, 'end_turn');
  await acp.close();
});

test('a slash command runs as the TUI would; unknown sessions are errors', async () => {
  const acp = start();
  await acp.initialize();
  const { sessionId } = await acp.agent.request('session/new', {
    cwd: box.project,
    mcpServers: [],
  });
  const response = await acp.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: '/help' }],
  });
  assert.equal(response.stopReason, 'end_turn');
  assert.match(agentText(acp.updates(sessionId)), /Commands:/);
  assert.equal(llm.requests.filter((r) => JSON.stringify(r.body).includes('/help')).length, 0);
  await assert.rejects(
    acp.agent.request('session/prompt', {
      sessionId: 'nope',
      prompt: [{ type: 'text', text: 'x' }],
    }),
  );
  await acp.close();
});

test('malformed JSON-RPC and unknown methods get errors; the connection keeps serving', async () => {
  const acp = start();
  await acp.initialize();
  const lines: string[] = [];
  let buffer = '';
  acp.child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    const parts = buffer.split('\n');
    buffer = parts.pop()!;
    lines.push(...parts);
  });
  acp.child.stdin.write('this is not json\n');
  acp.child.stdin.write('{"jsonrpc":"2.0","id":"u1","method":"teleport","params":{}}\n');
  acp.child.stdin.write('{"jsonrpc":"2.0","id":"u2","method":"session/prompt","params":{"x":1}}\n');
  const { sessionId } = await acp.agent.request('session/new', {
    cwd: box.project,
    mcpServers: [],
  });
  assert.ok(sessionId);
  const errors = lines.map((l) => JSON.parse(l)).filter((m) => m.error);
  const codeOf = (id: unknown) => errors.find((m) => m.id === id)?.error.code;
  assert.equal(codeOf(null), -32700);
  assert.equal(codeOf('u1'), -32601);
  assert.equal(codeOf('u2'), -32602);
  for (const line of lines)
    assert.equal(JSON.parse(line).jsonrpc, '2.0', 'stdout is only JSON-RPC');
  await acp.close();
});

test('without an API key session/new fails with auth_required naming the way in', async () => {
  const acp = startAcp(['--provider', 'openai'], {
    home: box.home,
    cwd: box.project,
  });
  await acp.initialize();
  await assert.rejects(
    acp.agent.request('session/new', { cwd: box.project, mcpServers: [] }),
    (error: { code?: number; message?: string }) => error.code === -32000,
  );
  await acp.close();
});

test('zot acp --help exits 0; a bad flag exits 2; a prompt argument is refused', async () => {
  const help = await runZot(['acp', '--help'], { home: box.home });
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Agent Client Protocol/);
  const bad = await runZot(['acp', '--frobnicate'], { home: box.home });
  assert.equal(bad.code, 2);
  assert.equal(bad.stdout, '');
  const prompt = await runZot(['acp', 'hello'], { home: box.home });
  assert.equal(prompt.code, 2);
  assert.match(prompt.stderr, /takes no prompt/);
});

test('extensions: commands listed and run, notes as agent messages, a guard block is a failed call, a confirm question asks the editor', async () => {
  const record = join(box.project, 'guardy.jsonl');
  const dir = makeExtension(join(box.home, 'flag-exts'), 'guardy', 'well-behaved', {
    record,
    hello_extra: { protocol_version: 2 },
    commands: [
      {
        name: 'greet',
        description: 'say hi',
        response: {
          action: 'display',
          display: 'hi from guardy',
          emit: [{ type: 'notify', level: 'warn', message: 'careful now' }],
        },
      },
      {
        name: 'ask',
        response: {
          action: 'noop',
          emit: [{ type: 'ui_request', id: 'q1', kind: 'confirm', title: 'Proceed?' }],
        },
      },
    ],
    subscribe: { intercept: ['tool_call'] },
    intercept_responses: { tool_call: { block: true, reason: 'no shell today' } },
  });
  const acp = start(['--ext', dir]);
  await acp.initialize();
  const { sessionId } = await acp.agent.request('session/new', {
    cwd: box.project,
    mcpServers: [],
  });
  const listed = (await acp.waitFor(
    (u) =>
      u.sessionUpdate === 'available_commands_update' &&
      u.availableCommands.some((c) => c.name === 'greet'),
    sessionId,
  )) as Extract<SessionUpdate, { sessionUpdate: 'available_commands_update' }>;
  assert.match(listed.availableCommands.find((c) => c.name === 'greet')!.description, /guardy/);

  const greet = await acp.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: '/greet' }],
  });
  assert.equal(greet.stopReason, 'end_turn');
  await acp.waitFor(
    (u) => u.sessionUpdate === 'agent_message_chunk' && JSON.stringify(u).includes('careful now'),
    sessionId,
  );
  const note = of(acp.updates(sessionId), 'agent_message_chunk').find((u) =>
    JSON.stringify(u.content).includes('careful now'),
  )!;
  assert.deepEqual((note._meta as any).zot.note, { extension: 'guardy', level: 'warn' });
  assert.match(agentText(acp.updates(sessionId)), /hi from guardy/);

  llm.script(
    { toolCalls: [{ id: 'b1', name: 'bash', args: { command: 'echo hi' } }] },
    { text: 'ok' },
  );
  await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'run' }] });
  const blocked = of(acp.updates(sessionId), 'tool_call_update').find(
    (u) => u.toolCallId === 'b1' && u.status,
  );
  assert.equal(blocked!.status, 'failed');
  assert.match(JSON.stringify(blocked!.content), /no shell today/);
  assert.equal(
    of(acp.updates(sessionId), 'tool_call').find((u) => u.toolCallId === 'b1')!.kind,
    'execute',
  );

  acp.answer = choose('yes');
  await acp.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: '/ask' }],
  });
  const question = await acp.waitFor(
    (u) =>
      u.sessionUpdate === 'tool_call_update' && JSON.stringify(u.rawOutput ?? '').includes('true'),
    sessionId,
  );
  assert.equal((question as { status?: string }).status, 'completed');
  assert.match(acp.permissions.at(-1)!.toolCall.title!, /guardy asks: Proceed\?/);
  await acp.close();
  const frames = readFileSync(record, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const answer = frames.find((f) => f.type === 'ui_response');
  assert.equal(answer?.value, true);
});

test('config options: the model selector switches the model; the ask mode asks before a call', async () => {
  const acp = start();
  await acp.initialize();
  const created = await acp.agent.request('session/new', { cwd: box.project, mcpServers: [] });
  const { sessionId } = created;
  const model = created.configOptions!.find((o) => o.id === 'model') as {
    currentValue: string;
    options: Array<{ value: string }>;
  };
  const other = model.options.find((o) => o.value !== model.currentValue)!.value;
  const set = await acp.agent.request('session/set_config_option', {
    sessionId,
    configId: 'model',
    value: other,
  });
  assert.equal(
    (set.configOptions.find((o) => o.id === 'model') as { currentValue: string }).currentValue,
    other,
  );
  llm.script({ text: 'switched' });
  await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
  assert.equal(llm.requests.at(-1)!.body.model, other.split('/').slice(1).join('/'));
  await assert.rejects(
    acp.agent.request('session/set_config_option', { sessionId, configId: 'model', value: 'x/y' }),
    /unknown model/,
  );

  await acp.agent.request('session/set_mode', { sessionId, modeId: 'ask' });
  acp.answer = choose('deny');
  llm.script(
    { toolCalls: [{ id: 'r1', name: 'read', args: { path: 'notes.txt' } }] },
    { text: 'fine' },
  );
  await acp.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: 'read' }],
  });
  assert.equal(acp.permissions.at(-1)!.toolCall.toolCallId, 'r1');
  await acp.close();
});

test("the editor's MCP server (a real one from npm) is a tool through the bridge, without project trust", async () => {
  const server = everything();
  const acp = startAcp([...fakeLlmFlags(llm.url), '--ext', MCP_EXT, '--no-session'], {
    home: box.home,
    cwd: box.project,
    env: mcpEnv(),
  });
  await acp.initialize();
  const { sessionId } = await acp.agent.request('session/new', {
    cwd: box.project,
    mcpServers: [{ name: 'every', command: server.command, args: server.args, env: [] }],
  });
  llm.script(
    { toolCalls: [{ id: 'm1', name: 'mcp__every__echo', args: { message: 'from the editor' } }] },
    { text: 'echoed' },
  );
  await acp.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: 'echo' }],
  });
  const offered = (llm.requests.at(-2)!.body.tools as Array<{ name: string }>).map((t) => t.name);
  assert.ok(offered.includes('mcp__every__echo'), offered.join(', '));
  const done = of(acp.updates(sessionId), 'tool_call_update').find(
    (u) => u.toolCallId === 'm1' && u.status,
  )!;
  assert.equal(done.status, 'completed');
  assert.match(JSON.stringify(done.content), /from the editor/);
  await acp.close();
});

test("with the client's fs: read sees the unsaved buffer, edit writes into the editor, not the disk", async () => {
  const file = join(box.project, 'buffered.txt');
  writeFileSync(file, 'one\ntwo\n');
  const acp = start(['--no-session']);
  await acp.initialize({ fs: { readTextFile: true, writeTextFile: true } });
  acp.buffers.set(file, 'one\nTWO unsaved\n');
  const { sessionId } = await acp.agent.request('session/new', {
    cwd: box.project,
    mcpServers: [],
  });
  llm.script(
    { toolCalls: [{ id: 'r', name: 'read', args: { path: 'buffered.txt' } }] },
    {
      toolCalls: [
        {
          id: 'e',
          name: 'edit',
          args: { path: 'buffered.txt', edits: [{ oldText: 'TWO unsaved', newText: 'three' }] },
        },
      ],
    },
    { text: 'done' },
  );
  await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'fix' }] });
  const results = of(acp.updates(sessionId), 'tool_call_update').filter((u) => u.status);
  assert.deepEqual(
    results.map((u) => `${u.toolCallId}:${u.status}`),
    ['r:completed', 'e:completed'],
  );
  assert.match(JSON.stringify(results[0]!.content), /TWO unsaved/);
  assert.deepEqual(acp.writes, [{ path: file, content: 'one\nthree\n' }]);
  assert.equal(readFileSync(file, 'utf8'), 'one\ntwo\n', 'the disk is left to the editor');
  await acp.close();
});

test('an untrusted project extension is reported, never started; a panel is refused and closed', async () => {
  const project = join(box.home, '..', 'project-with-ext');
  const record = join(box.home, '..', 'panel.jsonl');
  // A project extension (its program inside its directory): it waits for the user's trust.
  const projy = join(project, '.zot', 'extensions', 'projy');
  mkdirSync(projy, { recursive: true });
  writeFileSync(join(projy, 'main.mjs'), '');
  writeFileSync(
    join(projy, 'extension.json'),
    JSON.stringify({ name: 'projy', version: '1.0.0', exec: 'node', args: ['main.mjs'] }),
  );
  const dir = makeExtension(join(box.home, 'flag-exts'), 'paneler', 'well-behaved', {
    record,
    commands: [
      {
        name: 'board',
        response: { action: 'open_panel', open_panel: { id: 'b1', title: 'Board', lines: ['x'] } },
      },
    ],
  });
  const acp = start(['--ext', dir]);
  await acp.initialize();
  const { sessionId } = await acp.agent.request('session/new', { cwd: project, mcpServers: [] });
  const untrusted = await acp.waitFor(
    (u) =>
      u.sessionUpdate === 'agent_message_chunk' &&
      JSON.stringify(u._meta ?? {}).includes('untrusted'),
    sessionId,
  );
  assert.match(JSON.stringify(untrusted), /projy/);
  await acp.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: '/board' }],
  });
  assert.match(agentText(acp.updates(sessionId)), /panels are not shown over ACP/);
  await acp.close();
  const frames = readFileSync(record, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.ok(
    frames.some((f) => f.type === 'panel_closed' || f.type === 'panel_close'),
    JSON.stringify(frames.map((f) => f.type)),
  );
});
