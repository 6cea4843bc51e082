// Version-2 interception end to end, with real extension processes on both SDKs and a raw
// NDJSON one: tool_result (every tool: built-in and an extension's), user_prompt and turn_start
// add_context; chained in load order, audited with sizes and hashes, fail-closed under
// "intercept_failure": "block"; a version-1 extension in the same run sees only today's frames.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { expectNoLeftovers, FAST_TIMEOUTS, makeExtension } from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { pySdkExtension, tsSdkExtension } from './support/sdk-extensions.js';
import { jsonLines, makeSandbox, runZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

const TS_GUARD = `import { createExtension, replaceContent, block, addContext } from '@zot/sdk';
const ext = createExtension({ name: 'ts-guard', version: '1.0.0' });
ext.interceptToolResult((result) => {
  const text = result.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
  if (text.includes('SECRET')) return replaceContent('[ts-guard: ' + result.name + ' output withheld]');
});
ext.interceptUserPrompt((prompt) => {
  if (prompt.text.includes('forbidden')) return block('no forbidden words (' + prompt.source + ')');
});
ext.interceptTurnStart((turn) => (turn.step === 1 ? addContext('ts context for step 1') : undefined));
await ext.run();
`;
const PY_GUARD = `from zot_sdk import Extension, block, modify_text, replace_content, add_context
ext = Extension("py-guard", "1.0.0")

@ext.intercept_tool_result
def screen(result):
    if "withheld" in result.text():
        return replace_content(result.text() + " (seen by py-guard)")
    if "BLOCKME" in result.text():
        return block("py-guard refuses %s results" % result.name)

@ext.intercept_user_prompt
def rewrite(prompt):
    if prompt.text.startswith("please "):
        return modify_text(prompt.text[len("please "):] + " [%s]" % prompt.source)

@ext.intercept_turn_start
def context(step):
    return add_context("py context") if step == 1 else None

ext.run()
`;

function setup() {
  const box = makeSandbox();
  const root = join(box.home, 'exts');
  const v1Record = join(box.project, 'v1.jsonl');
  const v1 = makeExtension(root, 'raw-v1', 'well-behaved', {
    record: v1Record,
    tools: [{ name: 'ext_tool', result: { content: [{ type: 'text', text: 'BLOCKME please' }] } }],
    subscribe: { events: ['turn_start'], intercept: ['tool_call', 'turn_start'] },
  });
  const ts = tsSdkExtension(root, 'ts-guard', TS_GUARD);
  const py = pySdkExtension(root, 'py-guard', PY_GUARD);
  const run = (prompt: string, extra: string[] = [], dirs = [v1, ts, py]) =>
    runZot(
      ['--json', prompt, ...dirs.flatMap((d) => ['--ext', d]), ...extra, ...fakeLlmFlags(llm.url)],
      { home: box.home, cwd: box.project, env: FAST_TIMEOUTS },
    );
  const records = (file: string) =>
    existsSync(file)
      ? readFileSync(file, 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Record<string, unknown>)
      : [];
  const sessionEntries = () => {
    const dir = join(box.home, 'sessions');
    const [sub] = readdirSync(dir);
    const [file] = readdirSync(join(dir, sub!));
    return records(join(dir, sub!, file!));
  };
  return { box, root, run, v1Record, records, sessionEntries, dirs: { v1, ts, py } };
}

type Event = Record<string, unknown> & { type: string };
const ofType = (stdout: string, type: string): Event[] =>
  jsonLines(stdout).filter((e) => e.type === type);

test("tool_result: a built-in and an extension tool, chained in load order, audited; add_context marked; a v1 extension sees today's frames", async (t) => {
  const { box, run, v1Record, records, sessionEntries } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  writeFileSync(join(box.project, 'conf.txt'), 'API SECRET=hunter2\n');
  llm.script(
    { toolCalls: [{ id: 'r1', name: 'read', args: { path: 'conf.txt' } }] },
    { toolCalls: [{ id: 'e1', name: 'ext_tool', args: {} }] },
    { text: 'done' },
  );
  const result = await run('look at conf.txt');
  assert.equal(result.code, 0, result.stderr);
  const shown = ofType(result.stdout, 'tool_result');
  // ts-guard replaced read's output, then py-guard (later in load order) saw the replacement.
  assert.deepEqual(shown[0]!.content, [
    { type: 'text', text: '[ts-guard: read output withheld] (seen by py-guard)' },
  ]);
  assert.equal(shown[0]!.details, undefined, 'a replaced result loses its details');
  assert.equal(shown[1]!.is_error, true);
  assert.match(
    JSON.stringify(shown[1]!.content),
    /tool result blocked: py-guard refuses ext_tool results \(py-guard\)/,
  );
  // What the model got back: never the secret.
  const sent = JSON.stringify(llm.requests.at(-1)!.body.messages);
  assert.doesNotMatch(sent, /hunter2/);
  assert.match(sent, /read output withheld/);
  assert.match(sent, /py-guard refuses ext_tool results/);
  // add_context from both, in load order, marked and attributed, in the first request only once.
  const first = JSON.stringify(llm.requests.at(-3)!.body.messages);
  assert.match(first, /<extension-context from=\\"ts-guard\\">\\nts context for step 1/);
  assert.match(first, /<extension-context from=\\"py-guard\\">\\npy context/);
  const contextMessages = sessionEntries().filter(
    (e) => e.type === 'message' && (e.message as { context?: string }).context !== undefined,
  );
  assert.deepEqual(
    contextMessages.map((e) => (e.message as { context: string }).context),
    ['ts-guard', 'py-guard'],
  );
  // The audit: sizes and hashes, never the content.
  const audits = ofType(result.stdout, 'intercept').filter((e) => e.event === 'tool_result');
  assert.deepEqual(
    audits.map((e) => [e.extension, e.action]),
    [
      ['ts-guard', 'replace_content'],
      ['py-guard', 'replace_content'],
      ['py-guard', 'block'],
    ],
  );
  const before = audits[0]!.before as { bytes: number; sha256: string };
  assert.ok(before.bytes > 0 && /^[0-9a-f]{64}$/.test(before.sha256));
  assert.doesNotMatch(JSON.stringify(audits), /hunter2/);
  // The version-1 extension: only version-1 frames, and no tool_result interception.
  const v1Frames = records(v1Record);
  const v1Types = new Set(v1Frames.map((f) => `${f.type}${f.event ? ':' + f.event : ''}`));
  for (const type of v1Types)
    assert.ok(
      [
        'hello_ack',
        'event:turn_start',
        'event_intercept:tool_call',
        'event_intercept:turn_start',
        'tool_call',
        'shutdown',
      ].includes(type),
      type,
    );
  const v1Intercept = v1Frames.find(
    (f) => f.event === 'turn_start' && f.type === 'event_intercept',
  );
  assert.deepEqual(Object.keys(v1Intercept!).sort(), ['event', 'id', 'step', 'type']);
});

test('user_prompt: rewritten (modified_text chains) or blocked with the reason shown to the user', async (t) => {
  const { box, run } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  llm.script({ text: 'ok' });
  const rewritten = await run('please list files', ['--no-session']);
  assert.equal(rewritten.code, 0, rewritten.stderr);
  const userText = JSON.stringify(llm.requests.at(-1)!.body.messages[0]);
  assert.match(userText, /list files \[user\]/);
  assert.deepEqual(
    ofType(rewritten.stdout, 'intercept')
      .filter((e) => e.event === 'user_prompt')
      .map((e) => [e.extension, e.action]),
    [['py-guard', 'modify_text']],
  );

  const asked = llm.requests.length;
  const blocked = await run('this is forbidden', ['--no-session']);
  assert.notEqual(blocked.code, 0);
  assert.equal(llm.requests.length, asked, 'a blocked prompt never reaches the model');
  const errors = ofType(blocked.stdout, 'error').map((e) => e.message);
  assert.ok(
    errors.some((m) => /prompt blocked: no forbidden words \(user\) \(ts-guard\)/.test(String(m))),
    JSON.stringify(errors),
  );
});

test('tool_result under "intercept_failure": "block": a guard that crashes or sends a bad image blocks, naming itself', async (t) => {
  const { box, root, run } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const crashing = makeExtension(
    root,
    'fc-guard',
    'well-behaved',
    {
      hello_extra: { protocol_version: 2 },
      subscribe: { intercept: ['tool_result'] },
      intercept_responses: {
        tool_result: { replace_content: [{ type: 'image', mime_type: 'text/html', data: 'x' }] },
      },
    },
    { manifest: { intercept_failure: 'block' } },
  );
  writeFileSync(join(box.project, 'a.txt'), 'plain\n');
  llm.script(
    { toolCalls: [{ id: 'r1', name: 'read', args: { path: 'a.txt' } }] },
    { text: 'done' },
  );
  const result = await run('read a.txt', ['--no-session'], [crashing]);
  assert.equal(result.code, 0, result.stderr);
  const [shown] = ofType(result.stdout, 'tool_result');
  assert.equal(shown!.is_error, true);
  assert.match(
    JSON.stringify(shown!.content),
    /extension fc-guard sent a malformed answer \(replace_content holds an image of unsupported type \\"text\/html\\"\); blocked because its \\"intercept_failure\\" is \\"block\\"/,
  );
});

test('zot ext test asks each version-2 interceptor and checks its answer', async (t) => {
  const { box, dirs } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const check = async (dir: string) => {
    const result = await runZot(['ext', 'test', dir, '--json'], {
      home: box.home,
      cwd: box.project,
      env: FAST_TIMEOUTS,
    });
    const report = JSON.parse(result.stdout) as {
      checks: Array<{ check: string; target?: string; status: string; message: string }>;
    };
    return report.checks.filter((c) => c.check === 'intercept' || c.check === 'hello');
  };
  for (const dir of [dirs.ts, dirs.py]) {
    const checks = await check(dir);
    const byTarget = new Map(checks.map((c) => [c.target ?? c.check, c]));
    assert.match(byTarget.get('hello')!.message, /protocol 2/);
    for (const event of ['tool_result', 'user_prompt', 'turn_start'])
      assert.equal(
        byTarget.get(event)?.status,
        'pass',
        `${dir} ${event}: ${JSON.stringify(checks)}`,
      );
  }
  // A version-1 extension asking to intercept tool_result: refused, as zot would.
  const v1 = makeExtension(join(box.home, 'more'), 'v1-asks', 'well-behaved', {
    commands: ['x'],
    subscribe: { intercept: ['tool_result'] },
  });
  const v1Checks = await check(v1);
  assert.ok(!v1Checks.some((c) => c.target === 'tool_result'), JSON.stringify(v1Checks));
});
