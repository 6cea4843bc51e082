// The Python SDK examples (examples/extensions/todo and approve-py) against the real host,
// through `zot rpc`: panels driven with panel_key, tools called by the fake LLM.
import assert from 'node:assert/strict';
import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { EXAMPLES, FAST_TIMEOUTS, expectNoLeftovers, scopedDataDir } from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { ZotRpc, type Line } from './support/rpc-client.js';
import { jsonLines, makeSandbox, runZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

/** A private copy of the example in the sandbox, so its state stays out of the repository. */
function setup(example: string, env: Record<string, string> = {}) {
  const box = makeSandbox();
  const dir = join(box.home, 'work', example);
  cpSync(join(EXAMPLES, example), dir, {
    recursive: true,
    filter: (source) => !source.includes('__pycache__'),
  });
  const client = ZotRpc.start([...fakeLlmFlags(llm.url), '--ext', dir, '--no-session'], {
    home: box.home,
    cwd: box.project,
    // No PYTHONPATH of the test's: zot itself provides the SDK ("sdk": "python").
    env: { ...FAST_TIMEOUTS, PYTHONDONTWRITEBYTECODE: '1', PYTHONPATH: undefined, ...env },
  });
  return { box, dir, client };
}

async function key(client: ZotRpc, panel: string, name: string, text?: string): Promise<Line> {
  const from = client.lines.length;
  const response = await client.request('panel_key', {
    panel_id: panel,
    key: name,
    ...(text !== undefined ? { text } : {}),
  });
  assert.equal(response.success, true, JSON.stringify(response));
  return client.waitFor((line) => line.type === 'ext_panel_render', undefined, from);
}

test('todo: /todo opens the panel; a, typing, enter, x, d and arrows edit a list kept in data_dir', async (t) => {
  const { box, dir, client } = setup('todo');
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  await client.request('command', { text: '/todo' });
  const opened = await client.waitFor((line) => line.type === 'ext_panel_open');
  assert.equal(opened.extension, 'todo');
  assert.deepEqual(opened.panel, {
    id: 'todo',
    title: 'Todos (0 open, 0 done)',
    lines: ['(nothing to do: press a to add a todo)'],
    footer: 'up/down move - a add - x toggle - d delete - esc close',
  });
  await key(client, 'todo', 'rune', 'a');
  // Typed quickly, one after the other: the characters must arrive and apply in order.
  for (const ch of 'buy milk') {
    client.send({ type: 'panel_key', panel_id: 'todo', key: 'rune', text: ch });
  }
  await client.waitFor(
    (line) =>
      line.type === 'ext_panel_render' && JSON.stringify(line.lines).includes('new: buy milk_'),
  );
  let frame = await key(client, 'todo', 'enter');
  assert.deepEqual(frame.lines, ['> [ ] buy milk']);
  await key(client, 'todo', 'rune', 'a');
  for (const ch of 'ship') await key(client, 'todo', 'rune', ch);
  frame = await key(client, 'todo', 'enter');
  assert.deepEqual(frame.lines, ['  [ ] buy milk', '> [ ] ship']);
  frame = await key(client, 'todo', 'up');
  frame = await key(client, 'todo', 'rune', 'x');
  assert.deepEqual(frame.lines, ['> [x] buy milk', '  [ ] ship']);
  assert.equal(frame.title, 'Todos (1 open, 1 done)');
  frame = await key(client, 'todo', 'down');
  frame = await key(client, 'todo', 'rune', 'd');
  assert.deepEqual(frame.lines, ['> [x] buy milk']);
  assert.equal((await client.request('panel_close', { panel_id: 'todo' })).success, true);

  // The model reads the list with todo_list.
  llm.script(
    { toolCalls: [{ id: 'call_todo', name: 'todo_list', args: {} }] },
    { text: 'One thing, done.' },
  );
  await client.request('prompt', { message: 'what is on my list?' });
  const result = await client.waitFor((line) => line.type === 'tool_result');
  assert.equal(result.extension, 'todo');
  assert.deepEqual(result.content, [{ type: 'text', text: '[x] buy milk' }]);
  await client.waitFor((line) => line.type === 'done');
  await client.close();
  // Scoped: its own directory is read-only; its state lives in its data directory.
  const data = scopedDataDir(box.home, 'todo', dir);
  assert.deepEqual(JSON.parse(readFileSync(join(data, 'todos.json'), 'utf8')), {
    todos: [{ text: 'buy milk', done: true }],
  });
});

test('approve-py: approve_write asks with ext.ui.confirm during the tool call; yes writes, no refuses', async (t) => {
  const { box, client } = setup('approve-py', { ZOT_EXT_TOOL_TIMEOUT_MS: '30000' });
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  for (const [answer, file] of [
    [true, 'yes.txt'],
    [false, 'no.txt'],
  ] as const) {
    const from = client.lines.length;
    llm.script(
      { toolCalls: [{ name: 'approve_write', args: { path: file, content: 'hi\n' } }] },
      { text: 'ok' },
    );
    await client.request('prompt', { message: `write ${file}` });
    const asked = await client.waitFor((line) => line.type === 'ui_request', undefined, from);
    assert.equal(asked.extension, 'approve-py');
    assert.equal(asked.kind, 'confirm');
    assert.equal(asked.title, `Write ${file}? (create, 3 bytes)\n\nhi`);
    assert.equal(existsSync(join(box.project, file)), false, 'nothing before the answer');
    const answered = await client.requestRaw({ type: 'ui_response', id: asked.id, value: answer });
    assert.equal(answered.success, true);
    const result = await client.waitFor((line) => line.type === 'tool_result', undefined, from);
    await client.waitFor((line) => line.type === 'done', undefined, from);
    if (answer) {
      assert.equal(result.is_error, false);
      assert.equal(readFileSync(join(box.project, file), 'utf8'), 'hi\n');
    } else {
      assert.equal(result.is_error, true);
      assert.equal(existsSync(join(box.project, file)), false);
    }
  }
  await client.close();
});

test('todo installed with zot ext install runs from $ZOT_HOME/extensions, on the SDK zot provides', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const source = join(box.home, '..', 'todo');
  cpSync(join(EXAMPLES, 'todo'), source, {
    recursive: true,
    filter: (path) => !path.includes('__pycache__') && !path.endsWith('todos.json'),
  });
  const zot = (args: string[]) =>
    runZot(args, {
      home: box.home,
      cwd: box.project,
      env: { ...FAST_TIMEOUTS, PYTHONPATH: undefined },
    });
  const installed = await zot(['ext', 'install', source]);
  assert.equal(installed.code, 0, installed.stderr);
  const dir = join(box.home, 'extensions', 'todo');
  assert.deepEqual(readdirSync(dir).sort(), ['README.md', 'extension.json', 'main.py']);

  // The command runs (print mode then says that its panel needs the TUI or RPC).
  const added = await zot(['-p', '--no-session', ...fakeLlmFlags(llm.url), '/todo write docs']);
  assert.match(added.stderr, /\/todo opens a panel; panels need the TUI or RPC mode/);
  llm.script(
    { toolCalls: [{ id: 'call_todo', name: 'todo_list', args: {} }] },
    { text: 'One thing to do.' },
  );
  const listed = await zot(['--json', '--no-session', ...fakeLlmFlags(llm.url), 'what is left?']);
  assert.equal(listed.code, 0, listed.stderr);
  const result = jsonLines(listed.stdout).find((event) => event.type === 'tool_result');
  assert.equal(result?.extension, 'todo');
  assert.deepEqual(result?.content, [{ type: 'text', text: '[ ] write docs' }]);
});
