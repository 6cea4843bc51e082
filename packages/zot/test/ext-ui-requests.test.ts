// Extensions asking the user (ui_request) over RPC, end to end: real extension processes (the
// TypeScript SDK, the Python SDK, a raw NDJSON one) ask during a tool call; the client sees each
// question as a ui_request event and answers with ui_response. Wrong answers (an unknown id, a
// string for confirm, an option not offered) get an RPC error and never reach the extension; a
// deadline cancels; one extension may keep at most 4 questions open; print mode answers
// unavailable at once.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { expectNoLeftovers, FAST_TIMEOUTS, makeExtension } from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { ZotRpc, type Line } from './support/rpc-client.js';
import { pySdkExtension, tsSdkExtension } from './support/sdk-extensions.js';
import { until } from './support/pipes.js';
import { extTimeouts, hangGuard } from './support/timing.js';
import { makeSandbox, runZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

// A tool call waits for a person here: its deadline must outlast the test's answers.
const ENV = { ...FAST_TIMEOUTS, ZOT_EXT_TOOL_TIMEOUT_MS: String(hangGuard(60_000)) };

const TS_ASKER = `import { createExtension } from '@zot/sdk';
const ext = createExtension({ name: 'asker', version: '1.0.0' });
const show = (a) => (a.ok ? a.value : a.reason);
ext.tool('ask_all', 'asks every kind', { type: 'object' }, async () => {
  const confirm = await ext.ui.confirm('Delete the \\u001b[31mbuild\\u001b[0m folder?');
  const select = await ext.ui.select('Which branch?', ['main', 'dev']);
  const input = await ext.ui.input('Token?', { mask: true });
  const dismissed = await ext.ui.confirm('Really?');
  const late = await ext.ui.input('Too slow?', { timeoutMs: 50 });
  return JSON.stringify({ confirm: show(confirm), select: show(select), input: show(input), dismissed: show(dismissed), late: show(late) });
});
await ext.run();
`;

const PY_ASKER = `from zot_sdk import Extension
import json

ext = Extension("pyasker", "1.0.0")

def show(answer):
    return answer.value if answer.ok else answer.reason

@ext.tool("py_ask_all", "asks every kind", {"type": "object"})
def py_ask_all(args, call):
    confirm = ext.ui.confirm("Proceed?")
    select = ext.ui.select("Colour?", ["red", "green"])
    text = ext.ui.input("Name?")
    dismissed = ext.ui.select("Again?", ["x"])
    late = ext.ui.confirm("Too slow?", timeout_ms=50)
    return json.dumps({"confirm": show(confirm), "select": show(select), "input": show(text),
                       "dismissed": show(dismissed), "late": show(late)})

ext.run()
`;

/** Waits for the next ui_request after line `from`. */
const nextQuestion = (client: ZotRpc, from: number) =>
  client.waitFor((line) => line.type === 'ui_request', hangGuard(20_000), from);

async function answer(client: ZotRpc, request: Record<string, unknown>): Promise<Line> {
  return client.requestRaw({ type: 'ui_response', ...request });
}

test('RPC, TypeScript SDK: every kind of question reaches the client and each answer kind reaches the extension; wrong answers are refused', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const dir = tsSdkExtension(join(box.home, 'exts'), 'asker', TS_ASKER);
  llm.script({ toolCalls: [{ id: 'a1', name: 'ask_all', args: {} }] }, { text: 'done' });
  const client = ZotRpc.start([...fakeLlmFlags(llm.url), '--no-session', '--ext', dir], {
    home: box.home,
    cwd: box.project,
    env: ENV,
  });
  await client.request('prompt', { message: 'go' });

  const confirm = await nextQuestion(client, 0);
  assert.equal(confirm.extension, 'asker');
  assert.equal(confirm.kind, 'confirm');
  // The raw title goes out as the extension sent it (JSON escapes it); only terminals sanitise.
  assert.equal(confirm.title, 'Delete the \u001b[31mbuild\u001b[0m folder?');
  assert.equal(typeof confirm.id, 'string');
  const unknown = await answer(client, { id: 'ui-999', value: true });
  assert.equal(unknown.success, false);
  assert.equal(unknown.error_kind, 'not_found');
  assert.match(String(unknown.error), /no ui_request is waiting with id "ui-999"/);
  const wrongType = await answer(client, { id: confirm.id, value: 'yes' });
  assert.equal(wrongType.success, false);
  assert.equal(wrongType.error_kind, 'invalid_request');
  assert.match(
    String(wrongType.error),
    /confirm question is answered with true or false, not a string/,
  );
  const both = await answer(client, { id: confirm.id, value: true, cancelled: true });
  assert.equal(both.success, false);
  assert.equal((await answer(client, { id: confirm.id, value: true })).success, true);
  const again = await answer(client, { id: confirm.id, value: false });
  assert.equal(again.error_kind, 'not_found', 'answered once only');

  const select = await nextQuestion(client, client.lines.indexOf(confirm) + 1);
  assert.equal(select.kind, 'select');
  assert.deepEqual(select.options, ['main', 'dev']);
  const notOffered = await answer(client, { id: select.id, value: 'feature' });
  assert.equal(notOffered.error_kind, 'invalid_request');
  assert.match(String(notOffered.error), /"feature" is not one of the options offered/);
  const numeric = await answer(client, { id: select.id, value: 3 });
  assert.equal(numeric.error_kind, 'invalid_request', 'the request schema refuses a number');
  assert.equal((await answer(client, { id: select.id, value: 'dev' })).success, true);

  const input = await nextQuestion(client, client.lines.indexOf(select) + 1);
  assert.equal(input.kind, 'input');
  assert.equal(input.mask, true);
  assert.equal((await answer(client, { id: input.id, value: true })).error_kind, 'invalid_request');
  assert.equal((await answer(client, { id: input.id, value: 's3cret' })).success, true);

  const dismissed = await nextQuestion(client, client.lines.indexOf(input) + 1);
  assert.equal((await answer(client, { id: dismissed.id, cancelled: true })).success, true);

  // Nobody answers this one: its deadline cancels it, and a late answer finds nothing.
  const late = await nextQuestion(client, client.lines.indexOf(dismissed) + 1);
  assert.equal(late.timeout_ms, 50);
  const result = await client.waitFor((line) => line.type === 'tool_result', hangGuard(20_000));
  assert.equal((await answer(client, { id: late.id, value: 'now' })).error_kind, 'not_found');
  const text = JSON.parse((result.content as Array<{ text: string }>)[0]!.text);
  assert.deepEqual(text, {
    confirm: true,
    select: 'dev',
    input: 's3cret',
    dismissed: 'cancelled',
    late: 'cancelled',
  });
  await client.doneCount(1);
  assert.deepEqual(client.problems, []);
  await client.close();
});

test('RPC, Python SDK: answers of each kind, a dismissal and a deadline reach the extension; the published client answers through onUiRequest', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const dir = pySdkExtension(join(box.home, 'exts'), 'pyasker', PY_ASKER);
  llm.script({ toolCalls: [{ id: 'p1', name: 'py_ask_all', args: {} }] }, { text: 'done' });
  const client = ZotRpc.start([...fakeLlmFlags(llm.url), '--no-session', '--ext', dir], {
    home: box.home,
    cwd: box.project,
    env: ENV,
  });
  const asked: string[] = [];
  client.client.onUiRequest((request) => {
    asked.push(`${request.extension}:${request.kind}:${request.title}`);
    if (request.title === 'Proceed?') return { value: false };
    if (request.title === 'Colour?') return { value: 'green' };
    if (request.title === 'Name?') return { value: 'Ada' };
    if (request.title === 'Again?') return { cancelled: true };
    // 'Too slow?': never answered; its deadline passes.
    return new Promise(() => undefined);
  });
  await client.request('prompt', { message: 'go' });
  const result = await client.waitFor((line) => line.type === 'tool_result', hangGuard(20_000));
  const text = JSON.parse((result.content as Array<{ text: string }>)[0]!.text);
  assert.deepEqual(text, {
    confirm: false,
    select: 'green',
    input: 'Ada',
    dismissed: 'cancelled',
    late: 'cancelled',
  });
  assert.deepEqual(asked, [
    'pyasker:confirm:Proceed?',
    'pyasker:select:Colour?',
    'pyasker:input:Name?',
    'pyasker:select:Again?',
    'pyasker:confirm:Too slow?',
  ]);
  await client.doneCount(1);
  await client.close();
});

test('RPC, raw NDJSON: at most 4 questions of one extension wait at once (the rest unavailable, logged); an exiting extension withdraws its question', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const record = join(box.project, 'raw.jsonl');
  const question = (id: string) => ({ type: 'ui_request', id, kind: 'confirm', title: id });
  const dir = makeExtension(join(box.home, 'exts'), 'flood', 'well-behaved', {
    record,
    hello_extra: { protocol_version: 2 },
    emit_after_ready: ['q1', 'q2', 'q3', 'q4', 'q5', 'q6'].map(question),
  });
  const client = ZotRpc.start([...fakeLlmFlags(llm.url), '--no-session', '--ext', dir], {
    home: box.home,
    cwd: box.project,
    env: ENV,
  });
  await client.waitFor(
    () => client.lines.filter((line) => line.type === 'ui_request').length === 4,
  );
  const log = join(box.home, 'logs', 'ext-flood.log');
  const received = () =>
    (existsSync(record) ? readFileSync(record, 'utf8') : '')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((frame) => frame.type === 'ui_response');
  await until(() => received().length >= 2, hangGuard(10_000));
  assert.deepEqual(received(), [
    { type: 'ui_response', id: 'q5', unavailable: true },
    { type: 'ui_response', id: 'q6', unavailable: true },
  ]);
  assert.match(
    readFileSync(log, 'utf8'),
    /ui_request q5 \(confirm\): answered unavailable: 4 of its questions are already waiting/,
  );
  const questions = client.lines.filter((line) => line.type === 'ui_request');
  assert.deepEqual(
    questions.map((line) => line.title),
    ['q1', 'q2', 'q3', 'q4'],
  );
  assert.equal((await answer(client, { id: questions[0]!.id, value: true })).success, true);
  assert.equal((await answer(client, { id: questions[1]!.id, value: false })).success, true);
  await until(() => received().length >= 4, hangGuard(10_000));
  const settled = received();
  assert.deepEqual(settled.slice(2), [
    { type: 'ui_response', id: 'q1', value: true },
    { type: 'ui_response', id: 'q2', value: false },
  ]);
  // A reload stops the extension: its open questions are withdrawn, answers find nothing.
  await client.request('reload_extensions');
  assert.equal(
    (await answer(client, { id: questions[2]!.id, value: true })).error_kind,
    'not_found',
  );
  await client.close();
});

const PATIENT = `import { createExtension } from '@zot/sdk';
const ext = createExtension({ name: 'patient', version: '1.0.0' });
ext.tool('slow_ask', 'asks and waits', { type: 'object' }, async () => {
  const a = await ext.ui.confirm('Still there?');
  return a.ok ? 'answered ' + a.value : 'no answer: ' + a.reason;
});
ext.tool('ask_then_hang', 'asks, then never answers', { type: 'object' }, async () => {
  await ext.ui.confirm('Then hang?');
  return new Promise(() => undefined);
});
await ext.run();
`;

test("RPC: a tool call waiting on its extension's question outlives the tool deadline; once answered, its clock runs on", async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const dir = tsSdkExtension(join(box.home, 'exts'), 'patient', PATIENT);
  llm.script(
    { toolCalls: [{ id: 'w1', name: 'slow_ask', args: {} }] },
    { toolCalls: [{ id: 'w2', name: 'ask_then_hang', args: {} }] },
    { text: 'done' },
  );
  // The short tool deadline of the other end-to-end tests, derived from measured start-up.
  const toolMs = extTimeouts().toolMs;
  const client = ZotRpc.start([...fakeLlmFlags(llm.url), '--no-session', '--ext', dir], {
    home: box.home,
    cwd: box.project,
    env: FAST_TIMEOUTS,
  });
  await client.request('prompt', { message: 'go' });
  const question = await nextQuestion(client, 0);
  const log = join(box.home, 'logs', 'ext-patient.log');
  await until(() => /deadline paused/.test(readFileSync(log, 'utf8')), hangGuard(10_000));
  // Answered only after the call's deadline would have passed, had it kept running.
  await new Promise((resolve) => setTimeout(resolve, Math.ceil(toolMs * 1.5)));
  assert.equal(
    client.lines.some((line) => line.type === 'tool_result'),
    false,
    'no result (a timeout) while the user is asked',
  );
  assert.equal((await answer(client, { id: question.id, value: true })).success, true);
  const first = await client.waitFor((line) => line.type === 'tool_result', hangGuard(20_000));
  assert.equal(first.is_error, false, JSON.stringify(first));
  assert.deepEqual(first.content, [{ type: 'text', text: 'answered true' }]);

  // Answered at once, then the handler hangs: the deadline, running again, ends the call.
  const again = await nextQuestion(client, client.lines.indexOf(first) + 1);
  assert.equal((await answer(client, { id: again.id, value: false })).success, true);
  const second = await client.waitFor(
    (line) => line.type === 'tool_result',
    hangGuard(20_000) + toolMs,
    client.lines.indexOf(again) + 1,
  );
  assert.equal(second.is_error, true);
  assert.match(JSON.stringify(second.content), /did not answer tool call ask_then_hang within/);
  assert.match(readFileSync(log, 'utf8'), /tool_call \d+: deadline running again/);
  await client.doneCount(1);
  await client.close();
});

test('print mode: a question is answered unavailable at once', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const dir = tsSdkExtension(
    join(box.home, 'exts'),
    'printasker',
    `import { createExtension } from '@zot/sdk';
const ext = createExtension({ name: 'printasker', version: '1.0.0' });
ext.tool('ask', 'asks', { type: 'object' }, async () => {
  const a = await ext.ui.select('Which?', ['x', 'y']);
  return a.ok ? 'picked ' + a.value : 'no answer: ' + a.reason;
});
await ext.run();
`,
  );
  const before = llm.requests.length;
  llm.script({ toolCalls: [{ id: 'q1', name: 'ask', args: {} }] }, { text: 'over' });
  const run = await runZot(['-p', 'go', '--ext', dir, ...fakeLlmFlags(llm.url), '--no-session'], {
    home: box.home,
    cwd: box.project,
    env: ENV,
  });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout.trim(), 'over');
  // What the model got back from the tool.
  assert.match(JSON.stringify(llm.requests[before + 1]!.body), /no answer: unavailable/);
  assert.match(
    readFileSync(join(box.home, 'logs', 'ext-printasker.log'), 'utf8'),
    /answered unavailable: no one can answer in this mode/,
  );
});
