// The host's contract over real pipes: a reply of the wrong type is not taken, what shutdown
// did is logged, and panel keys are a closed set with esc closing the panel.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  expectNoLeftovers,
  extTimeouts,
  FAST_TIMEOUTS,
  makeExtension,
} from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { ZotRpc } from './support/rpc-client.js';
import { jsonLines, makeSandbox, runZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

function setup() {
  const box = makeSandbox();
  const root = join(box.home, 'extensions');
  const run = (args: string[]) =>
    runZot([...args, ...fakeLlmFlags(llm.url), '--no-session'], {
      home: box.home,
      cwd: box.project,
      env: FAST_TIMEOUTS,
    });
  const log = (name: string) => readFileSync(join(box.home, 'logs', `ext-${name}.log`), 'utf8');
  return { box, root, run, log };
}

test('a command_response carrying a tool call id is not the tool result: the call times out', async (t) => {
  const { box, root, run, log } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  makeExtension(root, 'mixed', 'well-behaved', {
    // The fixture lets `type` override the reply type: this tool answers with a command_response.
    tools: [{ name: 'mixed_up', result: { type: 'command_response', action: 'display' } }],
  });
  llm.script({ toolCalls: [{ id: 'm1', name: 'mixed_up', args: {} }] }, { text: 'ok' });
  const result = await run(['--json', 'call it']);
  assert.equal(result.code, 0, result.stderr);
  const toolResult = jsonLines(result.stdout).find((e) => e.type === 'tool_result') as unknown as {
    is_error: boolean;
    content: Array<{ text: string }>;
  };
  assert.equal(toolResult.is_error, true);
  assert.match(
    toolResult.content[0]!.text,
    new RegExp(
      `extension mixed did not answer tool call mixed_up within ${extTimeouts().toolMs} ms`,
    ),
  );
  assert.match(
    log('mixed'),
    /ignored a command_response for request \d+, which awaits a tool_result/,
  );
});

test('the log tells how each extension ended: shutdown_ack, or the signals sent to its group', async (t) => {
  const { box, root, run, log } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  makeExtension(root, 'polite', 'well-behaved');
  makeExtension(root, 'stubborn', 'ignore-sigterm');
  llm.script({ text: 'ok' });
  const result = await run(['--json', 'hi']);
  assert.equal(result.code, 0, result.stderr);
  assert.match(log('polite'), /shutdown_ack received/);
  assert.doesNotMatch(log('polite'), /SIGTERM|SIGKILL/);
  const stubborn = log('stubborn');
  assert.match(
    stubborn,
    new RegExp(`no exit within ${extTimeouts().shutdownGraceMs} ms of shutdown; closing its stdin`),
  );
  assert.match(stubborn, /sent SIGTERM to process group \d+, then SIGKILL: still alive after/);
});

test('RPC panel_key: an unknown key name is an error; esc closes the panel and tells both sides', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const record = join(box.project, 'panel.jsonl');
  makeExtension(join(box.home, 'extensions'), 'todo', 'well-behaved', {
    record,
    commands: [
      {
        name: 'todo',
        response: { action: 'open_panel', open_panel: { id: 'p', title: 'Todos', lines: ['a'] } },
      },
    ],
  });
  const client = ZotRpc.start(fakeLlmFlags(llm.url), {
    home: box.home,
    cwd: box.project,
    env: FAST_TIMEOUTS,
  });
  await client.request('command', { text: '/todo' });
  await client.waitFor((line) => line.type === 'ext_panel_open');
  const unknown = await client.request('panel_key', { panel_id: 'p', key: 'escape' });
  assert.equal(unknown.success, false);
  assert.match(String(unknown.error), /unknown panel key "escape"/);
  const esc = await client.request('panel_key', { panel_id: 'p', key: 'esc' });
  assert.equal(esc.success, true);
  const closed = await client.waitFor((line) => line.type === 'ext_panel_close');
  assert.deepEqual(closed, { type: 'ext_panel_close', extension: 'todo', panel_id: 'p' });
  const again = await client.request('panel_key', { panel_id: 'p', key: 'down' });
  assert.match(String(again.error), /no open panel "p"/);
  await client.close();
  const received = readFileSync(record, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; key?: string });
  assert.ok(received.some((frame) => frame.type === 'panel_close'));
  assert.ok(!received.some((frame) => frame.type === 'panel_key'), 'esc is not sent as a key');
});
