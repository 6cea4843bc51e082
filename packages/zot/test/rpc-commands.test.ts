// The one command registry over RPC: every built-in that needs no terminal works, each command
// answers with its response first, then its events, then command_done.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  expectNoLeftovers,
  FAST_TIMEOUTS,
  makeExtension,
  recordedFrames,
} from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { ZotRpc, type Line } from './support/rpc-client.js';
import { makeSandbox } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

/** Runs `/text` and returns every line from its response to its command_done. */
async function command(client: ZotRpc, text: string, id: string): Promise<Line[]> {
  const from = client.lines.length;
  client.send({ type: 'command', id, text });
  await client.waitFor((line) => line.type === 'command_done' && line.id === id, undefined, from);
  const lines = client.lines.slice(from);
  const end = lines.findIndex((line) => line.type === 'command_done' && line.id === id);
  return lines.slice(0, end + 1);
}

const displayed = (lines: Line[]) =>
  String(lines.find((line) => line.type === 'ext_display')?.text ?? '');

test('get_commands lists built-ins and extension commands with their modes and hints', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  makeExtension(join(box.home, 'extensions'), 'kit', 'well-behaved', {
    commands: [{ name: 'deploy', description: 'ship it' }],
  });
  const client = ZotRpc.start(fakeLlmFlags(llm.url), {
    home: box.home,
    cwd: box.project,
    env: FAST_TIMEOUTS,
  });
  const { data } = await client.request('get_commands');
  const commands = (data as { commands: Array<Record<string, unknown>> }).commands;
  const byName = new Map(commands.map((c) => [c.name, c]));
  for (const name of ['help', 'clear', 'compact', 'new', 'model', 'cost', 'session', 'yolo'])
    assert.deepEqual(byName.get(name)?.modes, ['print', 'json', 'rpc', 'tui'], name);
  assert.deepEqual(byName.get('login')?.modes, ['tui']);
  assert.equal(byName.get('model')?.argument_hint, '[model id]');
  assert.deepEqual(byName.get('deploy'), {
    name: 'deploy',
    description: 'ship it',
    source: 'kit',
    modes: ['print', 'json', 'rpc', 'tui'],
  });
  const help = displayed(await command(client, '/help', 'h'));
  assert.match(help, /\/deploy +ship it \[kit\]/);
  assert.doesNotMatch(help, /\/login/, 'TUI-only commands are not offered over RPC');
  assert.equal((await client.close()).code, 0);
});

test('every command: response, then its events, then command_done; built-ins work without a TUI', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const record = join(box.project, 'frames.jsonl');
  makeExtension(join(box.home, 'extensions'), 'kit', 'well-behaved', {
    record,
    subscribe: { events: ['session_start'] },
  });
  const client = ZotRpc.start([...fakeLlmFlags(llm.url), '--continue'], {
    home: box.home,
    cwd: box.project,
    env: FAST_TIMEOUTS,
  });
  llm.script({ text: 'hello there' });
  client.send({ type: 'prompt', message: 'hi' });
  await client.doneCount(1);

  const cost = await command(client, '/cost', 'c');
  assert.deepEqual(
    cost.map((line) => line.type),
    ['response', 'ext_display', 'command_done'],
  );
  assert.deepEqual(cost.at(-1), { type: 'command_done', id: 'c', name: 'cost', action: 'display' });
  assert.match(displayed(cost), /^tokens: 10 in, 5 out, 0 cache read, 0 cache write; cost \$/);

  const first = displayed(await command(client, '/session', 's'));
  assert.ok(existsSync(first), `the session file ${first} exists`);

  const models = displayed(await command(client, '/model', 'm'));
  const [current, ...list] = models.split('\n');
  assert.match(current!, /^model: anthropic\//);
  const other = list.find((line) => !line.startsWith('* '))!.trim();
  const switched = await command(client, `/model ${other}`, 'm2');
  assert.match(other, /^anthropic\//, 'models are listed as provider/id');
  assert.equal(displayed(switched), `model: ${other}`);
  assert.ok(
    switched.some((line) => line.type === 'state' && `${line.provider}/${line.model}` === other),
  );

  const fresh = await command(client, '/new', 'n');
  const second = displayed(fresh).replace(/^new session: /, '');
  assert.notEqual(second, first);
  const state = fresh.filter((line) => line.type === 'state').at(-1)!;
  assert.equal(state.message_count, 0);
  assert.equal(state.session_file, second);
  assert.equal((state.usage as { input: number }).input, 0);
  const starts = (frames: Array<Record<string, unknown>>) =>
    frames.filter((frame) => frame.event === 'session_start').length;
  const frames = await recordedFrames(record, (got) => starts(got) >= 2);
  assert.equal(starts(frames), 2, 'extensions hear session_start again');

  const login = await command(client, '/login', 'l');
  assert.equal(login.at(-1)?.action, 'error');
  assert.match(
    String(login.find((line) => line.type === 'error')?.message),
    /needs the interactive TUI/,
  );
  assert.equal((await client.close()).code, 0);
});

test('an extension installed while zot runs is picked up by /reload-ext, without a restart', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  // Nothing to load at start-up: zot starts without an extension host.
  const client = ZotRpc.start(fakeLlmFlags(llm.url), {
    home: box.home,
    cwd: box.project,
    env: FAST_TIMEOUTS,
  });
  const before = (await client.request('get_commands')).data as {
    commands: Array<{ name: string }>;
  };
  assert.ok(!before.commands.some((c) => c.name === 'deploy'));
  makeExtension(join(box.home, 'extensions'), 'late', 'well-behaved', {
    commands: [{ name: 'deploy', description: 'ship it' }],
  });
  const reload = displayed(await command(client, '/reload-ext', 'r'));
  assert.equal(reload, 'reloaded extensions: 1 ready, 0 not loaded');
  const after = (await client.request('get_commands')).data as {
    commands: Array<{ name: string; source: string }>;
  };
  assert.ok(after.commands.some((c) => c.name === 'deploy' && c.source === 'late'));
  const state = (await client.request('get_state')).data as {
    extensions: { loaded: string[] };
  };
  assert.deepEqual(state.extensions.loaded, ['late']);
  assert.equal((await client.close()).code, 0);
});

test('/name before the first prompt is kept and written with the session file', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const file = join(box.home, 'named.jsonl');
  const client = ZotRpc.start([...fakeLlmFlags(llm.url), '--session', file], {
    home: box.home,
    cwd: box.project,
  });
  t.after(() => client.close());
  const named = await command(client, '/name early bird', 'n');
  assert.equal(named.at(-1)?.action, 'display');
  assert.equal(displayed(named), 'session name: early bird');
  const { data } = await client.request('get_state');
  const state = data as { session_name?: string; session_file: string };
  assert.equal(state.session_name, 'early bird');
  assert.equal(state.session_file, file);
  assert.ok(!existsSync(state.session_file), 'no file before the first prompt');
  llm.script({ text: 'hello there' });
  client.send({ type: 'prompt', message: 'hi' });
  await client.doneCount(1);
  const lines = readFileSync(state.session_file, 'utf8').trim().split('\n');
  const entries = lines.map((line) => JSON.parse(line) as { type: string; name?: string });
  assert.deepEqual(
    entries.filter((entry) => entry.type === 'name').map((entry) => entry.name),
    ['early bird'],
  );
  // The name stays the session's.
  const listed = displayed(await command(client, '/name', 'n2'));
  assert.equal(listed, 'session name: early bird');
});
