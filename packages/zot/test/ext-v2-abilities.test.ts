// Protocol version 2 abilities with real extension processes: cancel (a tool call zot stops
// waiting for), tool_progress (live lines of a call in flight), ui_request in a run nobody can
// answer (unavailable at once), and unregister_tool; through the TypeScript SDK, the Python SDK
// and a raw NDJSON extension, with bad input (progress for no call in flight, an oversized
// question, a result racing its cancel, removing a tool never registered).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  expectNoLeftovers,
  extTimeouts,
  FAST_TIMEOUTS,
  makeExtension,
} from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { pySdkExtension, tsSdkExtension } from './support/sdk-extensions.js';
import { jsonLines, makeSandbox, runZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

const frames = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

const TS_SOURCE = (marker: string) => `import { writeFileSync } from 'node:fs';
import { createExtension } from '@zot/sdk';
const ext = createExtension({ name: 'ts-v2', version: '1.0.0' });
ext.tool('ephemeral_tool', 'removed by chatty', { type: 'object' }, () => 'here');
ext.tool('chatty', 'progress, a question, and a removal', { type: 'object' }, async (_args, call) => {
  call.progress('step 1');
  call.progress('step 2');
  const answer = await ext.ui.confirm('Go on?');
  ext.unregisterTool('ephemeral_tool');
  return 'asked: ' + (answer.ok ? String(answer.value) : answer.reason);
});
ext.tool('slow', 'waits for its cancel', { type: 'object' }, (_args, call) =>
  new Promise((resolve) => {
    call.signal.addEventListener('abort', () => {
      writeFileSync(${JSON.stringify(marker)}, 'cancelled');
      resolve('too late');
    });
  }),
);
await ext.run();
`;

test('TS SDK: progress lines reach the JSON events, a question is unavailable, a removed tool is no longer offered, a timed-out call is cancelled', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const marker = join(box.project, 'cancelled.txt');
  const dir = tsSdkExtension(join(box.home, 'exts'), 'ts-v2', TS_SOURCE(marker));
  const before = llm.requests.length;
  llm.script(
    { toolCalls: [{ id: 'c1', name: 'chatty', args: {} }] },
    { toolCalls: [{ id: 's1', name: 'slow', args: {} }] },
    { text: 'fine' },
  );
  const run = await runZot(
    ['--json', 'go', '--ext', dir, ...fakeLlmFlags(llm.url), '--no-session'],
    { home: box.home, cwd: box.project, env: FAST_TIMEOUTS },
  );
  assert.equal(run.code, 0, run.stderr);
  const events = jsonLines(run.stdout);
  const progress = events.filter((e) => e.type === 'tool_progress').map((e) => e.text);
  assert.deepEqual(progress, ['step 1', 'step 2']);
  const results = events.filter((e) => e.type === 'tool_result');
  const text = (e: Record<string, any>) => JSON.stringify(e);
  assert.match(text(results[0]!), /asked: unavailable/);
  assert.match(text(results[1]!), /did not answer tool call slow/);
  // Offered in the first request, gone from the third (after chatty removed it).
  const requests = llm.requests.slice(before);
  assert.match(JSON.stringify(requests[0]!.body), /ephemeral_tool/);
  assert.doesNotMatch(JSON.stringify(requests[2]!.body), /ephemeral_tool/);
  assert.equal(readFileSync(marker, 'utf8'), 'cancelled');
  const log = readFileSync(join(box.home, 'logs', 'ext-ts-v2.log'), 'utf8');
  assert.match(log, /cancel tool_call \d+ \(timeout\)/);
  assert.match(log, /unregistered tool ephemeral_tool/);
});

const PY_SOURCE = (marker: string) => `from zot_sdk import Extension
ext = Extension("py-v2", "1.0.0")

@ext.tool("pychatty", "progress and a question", {"type": "object"})
def pychatty(args, call):
    call.progress("py step")
    answer = ext.ui.confirm("Go on?")
    return "asked: %s" % answer.reason

@ext.tool("pyslow", "waits for its cancel", {"type": "object"})
def pyslow(args, call):
    if call.cancelled.wait(600):
        with open(${JSON.stringify(marker)}, "w") as out:
            out.write("cancelled")
    return "too late"

ext.run()
`;

test('Python SDK: progress, an unavailable question, and the cancellation event of a timed-out call', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const marker = join(box.project, 'py-cancelled.txt');
  const dir = pySdkExtension(join(box.home, 'exts'), 'py-v2', PY_SOURCE(marker));
  llm.script(
    { toolCalls: [{ id: 'p1', name: 'pychatty', args: {} }] },
    { toolCalls: [{ id: 'p2', name: 'pyslow', args: {} }] },
    { text: 'fine' },
  );
  const run = await runZot(
    ['--json', 'go', '--ext', dir, ...fakeLlmFlags(llm.url), '--no-session'],
    { home: box.home, cwd: box.project, env: FAST_TIMEOUTS },
  );
  assert.equal(run.code, 0, run.stderr);
  const events = jsonLines(run.stdout);
  assert.deepEqual(
    events.filter((e) => e.type === 'tool_progress').map((e) => e.text),
    ['py step'],
  );
  const results = events.filter((e) => e.type === 'tool_result');
  assert.match(JSON.stringify(results[0]), /asked: unavailable/);
  assert.equal(readFileSync(marker, 'utf8'), 'cancelled');
});

test('raw NDJSON: a cancel is sent for a timed-out call; stray progress, an oversized question and removing an unknown tool are refused by name', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const record = join(box.project, 'raw.jsonl');
  const toolMs = extTimeouts().toolMs;
  const dir = makeExtension(join(box.home, 'exts'), 'raw-v2', 'well-behaved', {
    record,
    hello_extra: { protocol_version: 2 },
    tools: [
      {
        name: 'late',
        result: { delay_ms: toolMs * 2, content: [{ type: 'text', text: 'late' }] },
      },
    ],
    emit_after_ready: [
      { type: 'tool_progress', id: 'nope', text: 'for no call' },
      { type: 'ui_request', id: 'q1', kind: 'confirm', title: 'x'.repeat(5000) },
      { type: 'ui_request', id: 'q2', kind: 'select', title: 'Pick', options: ['a', 'b'] },
      { type: 'unregister_tool', name: 'never_registered' },
    ],
  });
  llm.script({ toolCalls: [{ id: 'l1', name: 'late', args: {} }] }, { text: 'fine' });
  const run = await runZot(
    ['--json', 'go', '--ext', dir, ...fakeLlmFlags(llm.url), '--no-session'],
    { home: box.home, cwd: box.project, env: FAST_TIMEOUTS },
  );
  assert.equal(run.code, 0, run.stderr);
  const received = frames(record);
  const call = received.find((f) => f.type === 'tool_call')!;
  const log = readFileSync(join(box.home, 'logs', 'ext-raw-v2.log'), 'utf8');
  assert.ok(
    received.some((f) => f.type === 'cancel' && f.id === call.id),
    `a cancel with the call id; got ${JSON.stringify(received)}\n${log}`,
  );
  assert.deepEqual(
    received.filter((f) => f.type === 'ui_response'),
    [{ type: 'ui_response', id: 'q2', unavailable: true }],
  );
  assert.match(log, /dropped tool_progress for call nope: no tool call of that id is in flight/);
  assert.match(log, /ui_request.*title.*5000|dropped a malformed line: .*ui_request/);
  assert.match(log, /unregister_tool: this extension registered no tool "never_registered"/);
  assert.ok(existsSync(record));
});
