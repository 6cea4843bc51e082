// Without an API key, everything that never calls the model works; the missing-key error comes
// when a model call is about to happen (a prompt, a compaction), in every mode.
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { expectNoLeftovers, FAST_TIMEOUTS, makeExtension } from './support/extensions.js';
import { ZotRpc } from './support/rpc-client.js';
import { jsonLines, makeSandbox, runZot } from './support/zot.js';

const MISSING =
  /no API key for anthropic\. Provide one with --api-key, the ANTHROPIC_API_KEY environment variable, or store it with `zot auth set anthropic`/;

function sandbox(t: { after(fn: () => void): void }) {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const run = (args: string[]) =>
    runZot(args, { home: box.home, cwd: box.project, env: FAST_TIMEOUTS });
  return { ...box, run };
}

test('-p /help and an extension command that answers display run without a key', async (t) => {
  const s = sandbox(t);
  const help = await s.run(['-p', '/help']);
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /\/help/);
  assert.doesNotMatch(help.stderr, /API key/);

  const hello = makeExtension(s.project, 'hello', 'well-behaved', {
    commands: [{ name: 'hello', response: { action: 'display', display: 'hi from hello' } }],
  });
  const print = await s.run(['--ext', hello, '-p', '/hello']);
  assert.equal(print.code, 0, print.stderr);
  assert.equal(print.stdout, 'hi from hello\n');
  assert.doesNotMatch(print.stderr, /API key/);
  const json = await s.run(['--ext', hello, '--json', '/hello']);
  assert.equal(json.code, 0, json.stderr);
  assert.ok(jsonLines(json.stdout).some((e) => e.type === 'ext_display'));
});

test('a prompt without a key fails before it joins the transcript, with the same message', async (t) => {
  const s = sandbox(t);
  const print = await s.run(['-p', 'hi']);
  assert.equal(print.code, 1);
  assert.match(print.stderr, MISSING);
  assert.equal(print.stderr.split('\n').filter(Boolean).length, 1, 'said once');
  assert.equal(existsSync(join(s.home, 'sessions')), false, 'no session file was written');

  const json = await s.run(['--json', 'hi']);
  assert.equal(json.code, 1);
  const events = jsonLines(json.stdout);
  assert.deepEqual(
    events.map((e) => e.type).filter((type) => type !== 'state'),
    ['error', 'done'],
  );
  assert.match(String(events.find((e) => e.type === 'error')?.message), MISSING);
});

test('RPC: get_state and get_commands work without a key; prompt and compact report it', async (t) => {
  const s = sandbox(t);
  // A transcript long enough to compact, so that compaction gets as far as the model call.
  const session = join(s.project, 'old.jsonl');
  const message = (role: string, text: string) =>
    JSON.stringify({
      type: 'message',
      message: { role, content: [{ type: 'text', text }], time: '2024-01-01T00:00:00.000Z' },
    });
  const header = JSON.stringify({
    type: 'session',
    version: 1,
    cwd: s.project,
    created: '2024-01-01T00:00:00.000Z',
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
  });
  const turns = Array.from({ length: 8 }, (_, i) => [
    message('user', `question ${i}`),
    message('assistant', `answer ${i}`),
  ]).flat();
  writeFileSync(session, [header, ...turns].join('\n') + '\n');

  const client = ZotRpc.start(['--session', session], {
    home: s.home,
    cwd: s.project,
    env: FAST_TIMEOUTS,
  });
  const state = await client.request('get_state');
  assert.equal(state.success, true, JSON.stringify(state));
  assert.equal((state.data as { message_count: number }).message_count, 16);
  const commands = await client.request('get_commands');
  assert.equal(commands.success, true);

  const from = client.lines.length;
  assert.equal((await client.request('prompt', { message: 'hi' })).success, true);
  const prompted = await client.doneCount(1, from);
  const error = prompted.find((l) => l.type === 'error');
  assert.match(String(error?.message), MISSING);
  assert.equal(
    prompted.some((l) => l.type === 'user_message'),
    false,
  );

  const next = client.lines.length;
  assert.equal((await client.request('compact')).success, true);
  const compacted = await client.doneCount(1, next);
  assert.match(String(compacted.find((l) => l.type === 'error')?.message), MISSING);

  const after = await client.request('get_state');
  assert.equal((after.data as { message_count: number }).message_count, 16, 'nothing changed');
  assert.equal((await client.close()).code, 0, client.stderr);
});
