// Version-2 interception at its edges, end to end with real extension processes: hostile answers
// (oversized replace_content, add_context and modified_text; answers under ids nobody asked;
// progress for a call already answered; a result racing its cancel; questions past the
// ui_request bounds), fail-closed user_prompt and tool_result guards across crashes and
// restarts, and a held-out mix of version-1 extensions (the clock example among them) and
// version-2 ones in one run.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import {
  expectNoLeftovers,
  FAST_TIMEOUTS,
  makeExtension,
  processesMatching,
} from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { ZotRpc, type Line } from './support/rpc-client.js';
import { pySdkExtension, tsSdkExtension } from './support/sdk-extensions.js';
import { deadline, hangGuard } from './support/timing.js';
import { jsonLines, makeSandbox, runZot } from './support/zot.js';

const EXAMPLES = fileURLToPath(new URL('../../../../examples/extensions/', import.meta.url));

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

type Event = Record<string, unknown> & { type: string };
const ofType = (stdout: string, type: string): Event[] =>
  jsonLines(stdout).filter((e) => e.type === type);
const frames = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
const textOf = (event: Event | Line | undefined) =>
  ((event?.content ?? []) as Array<{ text?: string }>).map((b) => b.text ?? '').join('');

const TS_OVERSIZED = `import { createExtension, replaceContent, addContext, modifyText } from '@zot/sdk';
const ext = createExtension({ name: 'ts-big', version: '1.0.0' });
ext.interceptToolResult((result) =>
  result.name === 'read' ? replaceContent('y'.repeat(300000)) : undefined,
);
ext.interceptTurnStart((turn) => (turn.step === 1 ? addContext('z'.repeat(70000)) : undefined));
ext.interceptUserPrompt((prompt) =>
  prompt.text.includes('huge') ? modifyText('h'.repeat(1024 * 1024 + 1)) : undefined,
);
await ext.run();
`;

test('bad input: oversized rewrites are bounded or refused by name, wrong ids ignored, progress after the end dropped, a result racing its cancel ignored', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const root = join(box.home, 'exts');
  const record = join(box.project, 'raw.jsonl');
  const big = tsSdkExtension(root, 'ts-big', TS_OVERSIZED);
  const raw = makeExtension(root, 'raw-edges', 'well-behaved', {
    record,
    hello_extra: { protocol_version: 2 },
    subscribe: { intercept: ['user_prompt'] },
    // Questions past the protocol's bounds (count of options, deadline): dropped, never asked.
    emit_after_ready: [
      {
        type: 'ui_request',
        id: 'q-many',
        kind: 'select',
        title: 'Pick',
        options: Array.from({ length: 101 }, (_, i) => `o${i}`),
      },
      { type: 'ui_request', id: 'q-zero', kind: 'confirm', title: 'Now?', timeout_ms: 0 },
      { type: 'ui_request', id: 'q-fine', kind: 'confirm', title: 'Fine?', timeout_ms: 1000 },
    ],
    // The answer names a request that was never asked: ignored; the real one times out.
    intercept_responses: { user_prompt: { id: 'not-a-request', modified_text: 'hijacked' } },
    tools: [
      {
        name: 'finished',
        result: {
          content: [{ type: 'text', text: 'finished' }],
          after: [{ type: 'tool_progress', id: '$id', text: 'after the end' }],
        },
      },
      {
        name: 'racer',
        answer_on_cancel: true,
        result: { content: [{ type: 'text', text: 'raced' }] },
      },
    ],
  });
  writeFileSync(join(box.project, 'conf.txt'), 'plain\n');
  llm.script(
    {
      toolCalls: [
        { id: 'r1', name: 'read', args: { path: 'conf.txt' } },
        { id: 'f1', name: 'finished', args: {} },
        { id: 'c1', name: 'racer', args: {} },
      ],
    },
    { text: 'done' },
  );
  const run = await runZot(
    ['--json', 'a huge request', '--ext', big, '--ext', raw, ...fakeLlmFlags(llm.url)],
    { home: box.home, cwd: box.project, env: FAST_TIMEOUTS },
  );
  assert.equal(run.code, 0, run.stderr);
  const bigLog = readFileSync(join(box.home, 'logs', 'ext-ts-big.log'), 'utf8');
  const rawLog = readFileSync(join(box.home, 'logs', 'ext-raw-edges.log'), 'utf8');
  const [first, second] = llm.requests.slice(-2).map((r) => JSON.stringify(r.body.messages));

  // modified_text past its bound: refused by name, the prompt runs as typed; the answer under a
  // wrong id is ignored and the interceptor's silence allows it (fail-open).
  assert.match(bigLog, /modified_text is longer than 1048576 characters/);
  assert.match(rawLog, /ignored a late or unknown event_intercept_response \(id not-a-request\)/);
  assert.match(first!, /a huge request/);
  assert.doesNotMatch(first!, /hijacked|hhhhhhhh/);
  // add_context past its bound: refused by name, no context block at all.
  assert.match(bigLog, /add_context is longer than 65536 characters/);
  assert.doesNotMatch(first!, /extension-context|zzzzzzzz/);

  // replace_content is bounded like any tool result: the model and the events get the head.
  const results = new Map(ofType(run.stdout, 'tool_result').map((e) => [e.id, e]));
  const read = textOf(results.get('r1'));
  assert.ok(read.startsWith('yyyy') && read.length < 60_000, `bounded: ${read.length} chars`);
  assert.doesNotMatch(second!, /y{60000}/);
  const audit = ofType(run.stdout, 'intercept').find((e) => e.event === 'tool_result')!;
  assert.equal(audit.action, 'replace_content');
  assert.ok((audit.after as { bytes: number }).bytes >= 300_000, JSON.stringify(audit));

  // Progress for a call already answered never becomes an event, and is logged once.
  assert.equal(textOf(results.get('f1')), 'finished');
  assert.ok(!ofType(run.stdout, 'tool_progress').some((e) => e.text === 'after the end'));
  assert.match(rawLog, /dropped tool_progress for call \S+: no tool call of that id is in flight/);

  // The racer answers only when cancelled: zot already gave up on it, so its result is ignored.
  const racer = results.get('c1')!;
  assert.equal(racer.is_error, true);
  assert.doesNotMatch(textOf(racer), /raced/);
  const call = frames(record).find((f) => f.type === 'tool_call' && f.name === 'racer')!;
  assert.ok(frames(record).some((f) => f.type === 'cancel' && f.id === call.id));
  assert.match(rawLog, /ignored a late or unknown tool_result/);
  assert.doesNotMatch(second!, /raced/);

  // ui_request bounds hold at the boundary: only the well-formed question is answered.
  assert.deepEqual(
    frames(record)
      .filter((f) => f.type === 'ui_response')
      .map((f) => f.id),
    ['q-fine'],
  );
  assert.match(rawLog, /\/options must be an array of 1 to 100 items/);
  assert.match(rawLog, /\/timeout_ms must be an integer from 1 to 3600000/);
});

/** Crashes (once per marker file) on its first prompt and on a result that says "crash". */
const PY_FAIL_CLOSED = (markers: string) => `import os
from zot_sdk import Extension, modify_text, replace_content
ext = Extension("py-fc", "1.0.0")

def crash_once(name, status):
    path = os.path.join(${JSON.stringify(markers)}, name)
    if not os.path.exists(path):
        open(path, "w").close()
        os._exit(status)

@ext.intercept_user_prompt
def prompt(p):
    crash_once("prompt", 5)
    return modify_text(p.text + " [guarded]")

@ext.intercept_tool_result
def result(r):
    if "crash" in r.text():
        crash_once("result", 6)
    return replace_content("[py-fc saw %s]" % r.name)

ext.run()
`;

test('fail-closed user_prompt and tool_result guards: a crash blocks, a prompt while it restarts is blocked, and after its restart it guards again', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const root = join(box.home, 'extensions');
  pySdkExtension(root, 'py-fc', PY_FAIL_CLOSED(box.project), {
    intercept_failure: 'block',
    restart: 'on-failure',
  });
  writeFileSync(join(box.project, 'crash.txt'), 'crash me\n');
  writeFileSync(join(box.project, 'fine.txt'), 'fine\n');
  // Long enough that the prompt sent right after the crash finds it still restarting.
  const backoff = deadline(4, 1000);
  const client = ZotRpc.start([...fakeLlmFlags(llm.url), '--no-session'], {
    home: box.home,
    cwd: box.project,
    env: { ...FAST_TIMEOUTS, ZOT_EXT_RESTART_BACKOFF_MS: String(backoff) },
  });
  t.after(() => client.close());
  await client.request('ping');
  const asked = llm.requests.length;
  const audits = (from: number) =>
    client.lines.slice(from).filter((l) => l.type === 'intercept' && l.extension === 'py-fc');

  // 1. It dies answering the prompt: the prompt is blocked, the model never asked.
  let from = client.lines.length;
  await client.request('prompt', { message: 'first' });
  await client.doneCount(1, from);
  assert.deepEqual(
    audits(from).map((l) => [l.event, l.action, l.failure]),
    [['user_prompt', 'block', 'crash']],
  );
  const crashError = client.lines.slice(from).find((l) => l.type === 'error')!;
  assert.match(String(crashError.message), /^prompt blocked: extension py-fc died/);
  assert.match(String(crashError.message), /"intercept_failure" is "block"/);

  // 2. While it restarts, the next prompt is blocked too (failure "restarting").
  from = client.lines.length;
  await client.request('prompt', { message: 'second' });
  await client.doneCount(1, from);
  assert.deepEqual(
    audits(from).map((l) => [l.event, l.failure]),
    [['user_prompt', 'restarting']],
  );
  assert.equal(llm.requests.length, asked, 'no blocked prompt reached the model');

  // 3. Restarted, it rewrites the prompt; it dies on a result, which is blocked as an error.
  await client.waitFor(
    (l) => l.type === 'ext_restarted' && l.extension === 'py-fc',
    hangGuard(backoff * 3),
  );
  llm.script(
    { toolCalls: [{ id: 'x1', name: 'read', args: { path: 'crash.txt' } }] },
    { text: 'noted' },
  );
  from = client.lines.length;
  await client.request('prompt', { message: 'third' });
  await client.doneCount(1, from);
  assert.match(JSON.stringify(llm.requests.at(-2)!.body.messages), /third \[guarded\]/);
  const blocked = client.lines.slice(from).find((l) => l.type === 'tool_result' && l.id === 'x1')!;
  assert.equal(blocked.is_error, true);
  assert.match(textOf(blocked), /extension py-fc died .*"intercept_failure" is "block"/);
  assert.doesNotMatch(JSON.stringify(llm.requests.at(-1)!.body.messages), /crash me/);

  // 4. Restarted again, it screens results as before.
  await client.waitFor(
    (l) => l.type === 'ext_restarted' && l.extension === 'py-fc',
    hangGuard(backoff * 3),
    from,
  );
  llm.script(
    { toolCalls: [{ id: 'x2', name: 'read', args: { path: 'fine.txt' } }] },
    { text: 'ok' },
  );
  from = client.lines.length;
  await client.request('prompt', { message: 'fourth' });
  await client.doneCount(1, from);
  const screened = client.lines.slice(from).find((l) => l.type === 'tool_result' && l.id === 'x2')!;
  assert.equal(textOf(screened), '[py-fc saw read]');
  assert.deepEqual(
    audits(from).map((l) => [l.event, l.action]),
    [
      ['user_prompt', 'modify_text'],
      ['tool_result', 'replace_content'],
    ],
  );
  await client.close();
  assert.deepEqual(processesMatching(root), []);
});

const TS_V2 = `import { createExtension, modifyText } from '@zot/sdk';
const ext = createExtension({ name: 'ts-mix', version: '1.0.0' });
ext.interceptUserPrompt((prompt) => modifyText(prompt.text + ' [ts-mix]'));
await ext.run();
`;
const PY_V2 = `from zot_sdk import Extension, replace_content
ext = Extension("py-mix", "1.0.0")

@ext.intercept_tool_result
def screen(result):
    return replace_content("%s (py-mix saw %s)" % (result.text(), result.name))

ext.run()
`;

test('held out: the clock example and a raw version-1 guard beside version-2 SDK interceptors in one run', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const root = join(box.home, 'exts');
  const v1Record = join(box.project, 'v1.jsonl');
  // A version-1 guard that sends version-2 fields anyway: they are ignored and logged.
  const v1 = makeExtension(root, 'v1-guard', 'well-behaved', {
    record: v1Record,
    subscribe: { intercept: ['tool_call', 'assistant_message', 'user_prompt'] },
    intercept_responses: {
      assistant_message: { redact: 'secret', scope: 'transcript' },
      tool_call: {
        modified_args: { timezone: 'UTC' },
        replace_content: [{ type: 'text', text: 'x' }],
      },
    },
  });
  const ts = tsSdkExtension(root, 'ts-mix', TS_V2);
  const py = pySdkExtension(root, 'py-mix', PY_V2);
  const clock = join(EXAMPLES, 'clock');
  llm.script(
    {
      text: 'the secret plan',
      toolCalls: [{ id: 'k1', name: 'clock_now', args: { timezone: 'Europe/Berlin' } }],
    },
    { text: 'it is late' },
  );
  const run = await runZot(
    [
      '--json',
      'what time is it',
      ...[v1, clock, ts, py].flatMap((dir) => ['--ext', dir]),
      ...fakeLlmFlags(llm.url),
      '--no-session',
    ],
    { home: box.home, cwd: box.project, env: FAST_TIMEOUTS },
  );
  assert.equal(run.code, 0, run.stderr);
  const [first, second] = llm.requests.slice(-2).map((r) => JSON.stringify(r.body.messages));
  // Version 2: the prompt rewritten, the version-1 example's tool result screened.
  assert.match(first!, /what time is it \[ts-mix\]/);
  const [result] = ofType(run.stdout, 'tool_result');
  assert.equal(result!.is_error, false, JSON.stringify(result));
  assert.match(textOf(result), /UTC.*\(py-mix saw clock_now\)$/s);
  // Version 1: its rewrite of the arguments applies, its version-2 fields do not. The user saw
  // the redaction; the model keeps its original (scope is a version-2 field).
  const shown = ofType(run.stdout, 'assistant_message').map((e) => textOf(e));
  assert.ok(shown.includes('the [redacted] plan'), JSON.stringify(shown));
  assert.match(second!, /the secret plan/);
  const v1Log = readFileSync(join(box.home, 'logs', 'ext-v1-guard.log'), 'utf8');
  assert.match(v1Log, /subscribe: intercepting "user_prompt" needs protocol version 2/);
  assert.match(v1Log, /intercept assistant_message: ignored scope: protocol version 2 fields/);
  assert.match(v1Log, /intercept tool_call: ignored replace_content: protocol version 2 fields/);
  // The version-1 guard saw only version-1 frames, each with today's fields.
  const received = frames(v1Record);
  for (const frame of received)
    assert.ok(
      ['hello_ack', 'event_intercept', 'shutdown'].includes(frame.type as string) &&
        (frame.type !== 'event_intercept' ||
          ['tool_call', 'assistant_message'].includes(frame.event as string)),
      JSON.stringify(frame),
    );
  const ack = received.find((f) => f.type === 'hello_ack')!;
  assert.equal(ack.protocol_version, 1);
  assert.equal(
    jsonLines(run.stdout).filter((e) => e.type === 'ext_error').length,
    0,
    'nothing failed',
  );
});
