import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  FAST_TIMEOUTS,
  makeExtension,
  expectNoLeftovers,
  recordedFrames,
} from './support/extensions.js';
import { hangGuard } from './support/timing.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { ZotRpc } from './support/rpc-client.js';
import { makeSandbox, runZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

const bash = (id: string, command: string) => ({ id, name: 'bash', args: { command } });

test('--no-yolo over RPC: confirm_request, deny, allow, remembered approvals, blocked calls never ask', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const record = join(box.project, 'watcher.jsonl');
  makeExtension(join(box.home, 'extensions'), 'watcher', 'well-behaved', {
    record,
    subscribe: { events: ['tool_confirmation_requested'], intercept: ['tool_call'] },
    intercept_responses: { tool_call: {} },
  });
  makeExtension(join(box.home, 'extensions'), 'zz-blocker', 'well-behaved', {
    subscribe: { intercept: ['tool_call'] },
    intercept_responses: { tool_call: { block: true, reason: 'blocked first' } },
  });
  const client = ZotRpc.start([...fakeLlmFlags(llm.url), '--no-yolo'], {
    home: box.home,
    cwd: box.project,
    env: FAST_TIMEOUTS,
  });
  t.after(() => client.close());
  await client.request('ping');
  // zz-blocker blocks everything: no question is ever asked.
  llm.script({ toolCalls: [bash('x0', 'touch nope')] }, { text: 'ok' });
  await client.request('prompt', { message: 'try' });
  await client.waitFor((line) => line.type === 'done');
  assert.equal(
    client.lines.some((line) => line.type === 'confirm_request'),
    false,
  );
  await client.close();
  assert.equal(
    existsSync(record) && readFileSync(record, 'utf8').includes('tool_confirmation_requested'),
    false,
  );

  // Without the blocker: ask, deny, allow for the session.
  makeExtension(
    join(box.home, 'extensions'),
    'zz-blocker',
    'well-behaved',
    {},
    { manifest: { enabled: false } },
  );
  const rpc = ZotRpc.start([...fakeLlmFlags(llm.url), '--no-yolo'], {
    home: box.home,
    cwd: box.project,
    env: FAST_TIMEOUTS,
  });
  t.after(() => rpc.close());
  llm.script(
    {
      toolCalls: [
        bash('d1', 'touch denied'),
        bash('a1', 'touch allowed'),
        bash('a2', 'touch remembered'),
      ],
    },
    { toolCalls: [{ id: 'r1', name: 'read', args: { path: 'allowed' } }] },
    { text: 'finished' },
  );
  await rpc.request('prompt', { message: 'go' });
  const first = await rpc.waitFor((line) => line.type === 'confirm_request');
  assert.deepEqual(first, {
    type: 'confirm_request',
    tool_id: 'd1',
    tool_name: 'bash',
    tool_preview: 'touch denied',
    tool_detail: 'touch denied',
  });
  assert.equal(
    (await rpc.request('confirm', { tool_id: 'nope', decision: 'allow' })).success,
    false,
  );
  await rpc.request('confirm', { tool_id: 'd1', decision: 'deny' });
  await rpc.waitFor((line) => line.type === 'confirm_request' && line.tool_id === 'a1');
  await rpc.request('confirm', { tool_id: 'a1', decision: 'allow_tool_session' });
  const readAsk = await rpc.waitFor(
    (line) => line.type === 'confirm_request' && line.tool_id === 'r1',
  );
  assert.equal(readAsk.tool_name, 'read');
  await rpc.request('confirm', { tool_id: 'r1', decision: 'allow' });
  await rpc.waitFor((line) => line.type === 'done');
  const asked = rpc.lines
    .filter((line) => line.type === 'confirm_request')
    .map((line) => line.tool_id);
  assert.deepEqual(asked, ['d1', 'a1', 'r1'], 'a2 was covered by allow_tool_session');
  assert.equal(existsSync(join(box.project, 'denied')), false);
  assert.equal(existsSync(join(box.project, 'allowed')), true);
  assert.equal(existsSync(join(box.project, 'remembered')), true);
  const denied = rpc.lines.find((line) => line.type === 'tool_result' && line.id === 'd1');
  assert.equal(denied?.is_error, true);
  assert.match(JSON.stringify(denied?.content), /the user denied this bash call/);
  const asks = (frames: Array<Record<string, unknown>>) =>
    frames.filter(
      (frame) => frame.type === 'event' && frame.event === 'tool_confirmation_requested',
    );
  const events = asks(await recordedFrames(record, (frames) => asks(frames).length >= 3));
  assert.deepEqual(
    events.map((e) => e.tool_id),
    ['d1', 'a1', 'r1'],
  );
  // /yolo switches asking off and on again.
  const from = rpc.lines.length;
  await rpc.request('command', { text: '/yolo' });
  const toggled = await rpc.waitFor((line) => line.type === 'ext_display', hangGuard(5000), from);
  assert.match(String(toggled.text), /yolo on/);
  llm.script({ toolCalls: [bash('y1', 'touch yolo')] }, { text: 'done' });
  await rpc.request('prompt', { message: 'again' });
  await rpc.waitFor((line) => line.type === 'done', hangGuard(10_000), from);
  assert.equal(
    rpc.lines.slice(from).some((line) => line.type === 'confirm_request'),
    false,
  );
  assert.equal(existsSync(join(box.project, 'yolo')), true);
  // Interception runs before the question (design D14).
  const order = await recordedFrames(record, (frames) =>
    frames.some((f) => f.type === 'event' && f.tool_id === 'd1'),
  );
  const interceptAt = order.findIndex((f) => f.type === 'event_intercept' && f.tool_id === 'd1');
  const askAt = order.findIndex((f) => f.type === 'event' && f.tool_id === 'd1');
  assert.ok(interceptAt >= 0 && interceptAt < askAt);
  await rpc.close();
});

test('--no-yolo in print mode denies what no rule allows, saying how to allow it; abort while waiting denies', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  llm.script({ toolCalls: [bash('p1', 'touch printed')] }, { text: 'ok' });
  const print = await runZot(['-p', 'go', '--no-yolo', '--no-session', ...fakeLlmFlags(llm.url)], {
    home: box.home,
    cwd: box.project,
  });
  assert.equal(print.code, 0, print.stderr);
  assert.match(print.stderr, /nobody can answer in print or JSON mode/);
  assert.match(print.stderr, /--allow 'bash\(touch printed\)'/);
  assert.equal(existsSync(join(box.project, 'printed')), false);

  const rpc = ZotRpc.start([...fakeLlmFlags(llm.url), '--no-yolo'], {
    home: box.home,
    cwd: box.project,
  });
  t.after(() => rpc.close());
  llm.script({ toolCalls: [bash('w1', 'touch waited')] });
  await rpc.request('prompt', { message: 'go' });
  await rpc.waitFor((line) => line.type === 'confirm_request');
  await rpc.request('abort');
  await rpc.waitFor((line) => line.type === 'done');
  assert.ok(rpc.lines.some((line) => line.type === 'turn_end' && line.stop === 'aborted'));
  assert.equal(existsSync(join(box.project, 'waited')), false);
  assert.equal(llm.pending(), 0);
  await rpc.close();
});
