// The runtime's state snapshot: get_state and the `state` event carry the same fields, and a
// `state` event goes out whenever one of them changes.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { expectNoLeftovers, FAST_TIMEOUTS, makeExtension } from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { ZotRpc, type Line } from './support/rpc-client.js';
import { makeSandbox } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

const FIELDS = [
  'busy',
  'commands_revision',
  'context',
  'cwd',
  'extensions',
  'message_count',
  'model',
  'open_panel',
  'provider',
  'queue_length',
  'sandbox',
  'session_file',
  'usage',
  'yolo',
];

function lastState(client: ZotRpc): Line {
  const states = client.lines.filter((line) => line.type === 'state');
  assert.ok(states.length > 0, 'no state event yet');
  return states.at(-1)!;
}

test('get_state and the state events agree; busy, queue, messages, model and clear are followed', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const client = ZotRpc.start([...fakeLlmFlags(llm.url), '--no-yolo'], {
    home: box.home,
    cwd: box.project,
  });
  t.after(() => void client.close());

  const initial = await client.request('get_state');
  const data = initial.data as Record<string, unknown>;
  assert.deepEqual(Object.keys(data).sort(), FIELDS);
  assert.equal(data.busy, false);
  assert.equal(data.yolo, false, '--no-yolo asks before tools run');
  assert.equal(data.open_panel, null);
  assert.deepEqual(data.sandbox, { mode: 'off', status: 'off', network: false });

  // Two prompts: the second waits behind the first (queue_length 1), both end idle.
  llm.script({ text: 'one', chunkDelayMs: 50 }, { text: 'two' });
  const from = client.lines.length;
  client.send({ type: 'prompt', message: 'first' });
  client.send({ type: 'prompt', message: 'second' });
  await client.doneCount(2, from);
  const states = client.lines.slice(from).filter((line) => line.type === 'state');
  assert.ok(
    states.some((s) => s.busy === true && s.queue_length === 1),
    'the queue was seen',
  );
  assert.equal(lastState(client).busy, false);
  assert.equal(lastState(client).message_count, 4);
  assert.equal((lastState(client).usage as { input: number }).input > 0, true);
  const now = await client.request('get_state');
  const { type: _type, ...fromEvent } = lastState(client);
  assert.deepEqual(now.data, fromEvent, 'get_state returns the snapshot the last event carried');

  const models = (await client.request('get_models')).data as {
    models: Array<{ id: string }>;
  };
  const other = models.models.find((m) => m.id !== data.model)!.id;
  await client.request('set_model', { model: other });
  assert.equal(lastState(client).model, other);

  await client.request('clear');
  assert.equal(lastState(client).message_count, 0);

  await client.request('command', { text: '/yolo on' });
  await client.waitFor(() => lastState(client).yolo === true);
  assert.equal((await client.close()).code, 0);
});

test('extensions loaded and failed, and the open panel, are part of the state', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const root = join(box.home, 'extensions');
  const panel = { id: 'todo', title: 'Todo', lines: ['one'], footer: 'esc closes' };
  makeExtension(root, 'good', 'well-behaved', {
    commands: [{ name: 'todo', response: { action: 'open_panel', open_panel: panel } }],
  });
  makeExtension(root, 'broken', 'exit-before-hello');
  const client = ZotRpc.start(fakeLlmFlags(llm.url), {
    home: box.home,
    cwd: box.project,
    env: FAST_TIMEOUTS,
  });
  t.after(() => void client.close());
  const state = (await client.request('get_state')).data as {
    extensions: { loaded: string[]; failed: string[] };
  };
  assert.deepEqual(state.extensions, { loaded: ['good'], failed: ['broken'] });

  await client.request('command', { text: '/todo' });
  await client.waitFor(
    () => (lastState(client).open_panel as { id?: string } | null)?.id === 'todo',
  );
  assert.deepEqual(lastState(client).open_panel, { extension: 'good', ...panel });
  await client.request('panel_close', { panel_id: 'todo' });
  await client.waitFor(() => lastState(client).open_panel === null);
  assert.equal((await client.close()).code, 0);
});
