import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  FAST_TIMEOUTS,
  makeExtension,
  processesMatching,
  expectNoLeftovers,
} from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { ZotRpc } from './support/rpc-client.js';
import { hangGuard } from './support/timing.js';
import { makeSandbox } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

function setup(extraArgs: string[] = []) {
  const box = makeSandbox();
  const root = join(box.home, 'extensions');
  const start = () =>
    ZotRpc.start([...fakeLlmFlags(llm.url), ...extraArgs], {
      home: box.home,
      cwd: box.project,
      env: FAST_TIMEOUTS,
    });
  return { box, root, start };
}

test('get_commands, command and panels over RPC', async (t) => {
  const { box, root, start } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const record = join(box.project, 'panel.jsonl');
  makeExtension(root, 'todo', 'well-behaved', {
    record,
    commands: [
      {
        name: 'todo',
        description: 'open the list',
        response: {
          action: 'open_panel',
          open_panel: { id: 'todo-main', title: 'Todos', lines: ['a', 'b'], footer: 'esc' },
        },
      },
      { name: 'Greet', description: 'say hi', response: { action: 'prompt', prompt: 'say hi' } },
    ],
  });
  const client = start();
  const commands = await client.request('get_commands');
  const list = (commands.data as { commands: Array<{ name: string; source: string }> }).commands;
  assert.deepEqual(
    list.filter((c) => c.source === 'todo').map((c) => c.name),
    ['todo', 'Greet'],
  );
  assert.ok(list.some((c) => c.name === 'reload-ext' && c.source === 'builtin'));

  await client.request('command', { text: '/todo' });
  const opened = await client.waitFor((line) => line.type === 'ext_panel_open');
  assert.deepEqual(opened.panel, {
    id: 'todo-main',
    title: 'Todos',
    lines: ['a', 'b'],
    footer: 'esc',
  });
  assert.equal(
    (await client.request('panel_key', { panel_id: 'todo-main', key: 'rune', text: 'x' })).success,
    true,
  );
  assert.equal(
    (await client.request('panel_key', { panel_id: 'nope', key: 'down' })).success,
    false,
  );
  assert.equal((await client.request('panel_close', { panel_id: 'todo-main' })).success, true);
  llm.script({ text: 'hello!' });
  await client.request('command', { text: '/greet' });
  const message = await client.waitFor((line) => line.type === 'assistant_message');
  assert.deepEqual(message.content, [{ type: 'text', text: 'hello!' }]);
  await client.close();
  const received = readFileSync(record, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.ok(
    received.some(
      (f) =>
        f.type === 'panel_key' && f.panel_id === 'todo-main' && f.key === 'rune' && f.text === 'x',
    ),
  );
  assert.ok(received.some((f) => f.type === 'panel_close' && f.panel_id === 'todo-main'));
});

test('reload_extensions respawns with fresh manifests and reports per extension', async (t) => {
  const { box, root, start } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const dir = makeExtension(root, 'dev', 'well-behaved', { tools: ['v1_tool'] });
  makeExtension(root, 'lazy', 'never-ready');
  const client = start();
  await client.request('ping');
  const firstPids = processesMatching(root);
  writeFileSync(
    join(dir, 'extension.json'),
    readFileSync(join(dir, 'extension.json'), 'utf8').replace('v1_tool', 'v2_tool'),
  );
  const reload = await client.request('reload_extensions');
  assert.equal(reload.success, true);
  const reports = (
    reload.data as {
      extensions: Array<{
        name: string;
        status: string;
        tools: Array<{ name: string }>;
        error?: string;
        logPath: string;
      }>;
    }
  ).extensions;
  const dev = reports.find((r) => r.name === 'dev')!;
  assert.equal(dev.status, 'ready');
  assert.deepEqual(
    dev.tools.map((tool) => tool.name),
    ['v2_tool'],
  );
  const lazy = reports.find((r) => r.name === 'lazy')!;
  assert.equal(lazy.status, 'failed');
  assert.match(lazy.error!, /no "ready"/);
  assert.match(lazy.logPath, /ext-lazy\.log$/);
  assert.notDeepEqual(processesMatching(root), firstPids, 'new processes');
  llm.script({ text: 'ok' });
  await client.request('prompt', { message: 'tools?' });
  await client.waitFor((line) => line.type === 'done');
  const tools = llm.requests.at(-1)!.body.tools.map((tool: { name: string }) => tool.name);
  assert.ok(tools.includes('v2_tool') && !tools.includes('v1_tool'));
  await client.close();
  assert.deepEqual(processesMatching(root), []);
});

test('a burst of notify frames does not hold up a concurrent turn: the turn stops the burst', async (t) => {
  const { box, root, start } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  // The flood writes up to `burst` frames, and stops early when the turn calls stop_flood (whose
  // result says how many were written). A turn held up until zot had handled the burst would
  // see it end at `burst`; a turn that runs beside it stops it. Measured in frames, not time:
  // the turn needs one model call, for which this machine writes about a tenth of the burst.
  const burst = 200_000;
  makeExtension(root, 'flood', 'flood', { tools: ['stop_flood'], flood_until_tool: 'stop_flood' });
  const client = start();
  t.after(() => client.close()); // also when an assertion fails first
  // The flood's notes arrive in order (some may be dropped while zot's output is backed up);
  // they are counted here instead of kept.
  let last = 0;
  let outOfOrder = 0;
  client.keep = (line) => {
    const n = line.type === 'ext_notify' ? /^flood (\d+)$/.exec(String(line.message)) : null;
    if (!n) return true;
    if (Number(n[1]) <= last) outOfOrder++;
    last = Number(n[1]);
    return false;
  };
  await client.request('ping');
  llm.script({ toolCalls: [{ id: 'stop', name: 'stop_flood', args: {} }] }, { text: 'finished' });
  await client.request('command', { text: `/flood ${burst}` });
  await client.request('prompt', { message: 'work while flooding' });
  await client.waitFor((line) => line.type === 'done', hangGuard(60_000));
  const result = client.lines.find((line) => line.type === 'tool_result' && line.id === 'stop');
  const text = (result?.content as Array<{ text: string }> | undefined)?.[0]?.text ?? '';
  const written = Number(/^flood stopped after (\d+)$/.exec(text)?.[1] ?? NaN);
  assert.ok(written > 0, `the flood was under way when the call came: ${text}`);
  assert.ok(written < burst, `the turn's call stopped the burst, at ${written} of ${burst} frames`);
  assert.ok(last > 0 && last <= written && outOfOrder === 0, `notes in order, up to ${last}`);
  const finalMessage = client.lines.filter((line) => line.type === 'assistant_message').at(-1);
  assert.deepEqual(finalMessage?.content, [{ type: 'text', text: 'finished' }]);
  await client.close();
});

test('a command registered after ready is listed and runs without a reload', async (t) => {
  const { box, root, start } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  makeExtension(root, 'late', 'late-register', { after_ms: 200, late_command: 'later' });
  const client = start();
  const names = async () =>
    (
      (await client.request('get_commands')).data as { commands: Array<{ name: string }> }
    ).commands.map((c) => c.name);
  let seen = await names();
  for (const end = Date.now() + hangGuard(2000); Date.now() < end && !seen.includes('later'); ) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    seen = await names();
  }
  assert.ok(seen.includes('later'), `late command listed: ${seen.join(', ')}`);
  const from = client.lines.length;
  await client.request('command', { text: '/later now' });
  const shown = await client.waitFor((line) => line.type === 'ext_display', hangGuard(5000), from);
  assert.equal(shown.text, 'ran later now');
  await client.close();
});
