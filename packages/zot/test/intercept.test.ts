import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  EXAMPLES,
  extTimeouts,
  FAST_TIMEOUTS,
  makeExtension,
  expectNoLeftovers,
} from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { hangGuard } from './support/timing.js';
import { jsonLines, makeSandbox, runZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

function setup() {
  const box = makeSandbox();
  const root = join(box.home, 'extensions');
  const run = (args: string[], session = false) =>
    runZot([...args, ...fakeLlmFlags(llm.url), ...(session ? [] : ['--no-session'])], {
      home: box.home,
      cwd: box.project,
      env: FAST_TIMEOUTS,
    });
  const frames = (file: string) =>
    existsSync(file)
      ? readFileSync(file, 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line))
      : [];
  const log = (name: string) => readFileSync(join(box.home, 'logs', `ext-${name}.log`), 'utf8');
  const sessionEntries = () => {
    const dir = join(box.home, 'sessions');
    const [sub] = readdirSync(dir);
    const [file] = readdirSync(join(dir, sub!));
    return frames(join(dir, sub!, file!));
  };
  return { box, root, run, frames, log, sessionEntries };
}

const bashCall = (command: string, id = 'b1') => ({
  toolCalls: [{ id, name: 'bash', args: { command } }],
});
type Result = { type: string; id: string; is_error: boolean; content: Array<{ text: string }> };
const results = (stdout: string) =>
  jsonLines(stdout).filter((e) => e.type === 'tool_result') as unknown as Result[];

test('two interceptors chain rewrites; the transcript keeps the original; the audit trail has both', async (t) => {
  const { box, root, run, frames, log, sessionEntries } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const recordB = join(box.project, 'b.jsonl');
  makeExtension(root, 'a-rewriter', 'well-behaved', {
    subscribe: { intercept: ['tool_call'] },
    intercept_responses: {
      tool_call: { modified_args: { command: 'echo from-a' }, reason: 'a says so' },
    },
  });
  makeExtension(root, 'b-rewriter', 'well-behaved', {
    record: recordB,
    subscribe: { intercept: ['tool_call'] },
    intercept_responses: { tool_call: { modified_args: { command: 'echo from-b' } } },
  });
  llm.script(bashCall('echo original'), { text: 'done' });
  const result = await run(['--json', 'go'], true);
  assert.equal(result.code, 0, result.stderr);
  assert.match(results(result.stdout)[0]!.content[0]!.text, /^from-b/);
  const seenByB = frames(recordB).find((f) => f.type === 'event_intercept');
  assert.deepEqual(seenByB.tool_args, { command: 'echo from-a' }, "b sees a's output");
  const call = llm.requests
    .at(-1)!
    .body.messages[1].content.find((b: { type: string }) => b.type === 'tool_use');
  assert.deepEqual(call.input, { command: 'echo original' }, "the model's call is kept");
  const audit = jsonLines(result.stdout).filter((e) => e.type === 'intercept');
  assert.deepEqual(audit, [
    {
      type: 'intercept',
      extension: 'a-rewriter',
      event: 'tool_call',
      action: 'modify_args',
      before: { command: 'echo original' },
      after: { command: 'echo from-a' },
      reason: 'a says so',
    },
    {
      type: 'intercept',
      extension: 'b-rewriter',
      event: 'tool_call',
      action: 'modify_args',
      before: { command: 'echo from-a' },
      after: { command: 'echo from-b' },
    },
  ]);
  const recorded = sessionEntries().filter((e) => e.type === 'intercept');
  assert.equal(recorded.length, 2);
  assert.equal(recorded[0].extension, 'a-rewriter');
  assert.match(
    log('a-rewriter'),
    /intercept tool_call: modify_args \{"command":"echo original"\} -> \{"command":"echo from-a"\}/,
  );
});

test('the first block wins; later interceptors are not consulted; rewrites with a block are ignored', async (t) => {
  const { box, root, run, frames } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const recordB = join(box.project, 'b.jsonl');
  makeExtension(root, 'a-blocker', 'well-behaved', {
    subscribe: { intercept: ['tool_call'] },
    intercept_responses: {
      tool_call: {
        block: true,
        reason: 'no deletes today',
        modified_args: { command: 'echo sneaky' },
      },
    },
  });
  makeExtension(root, 'b-watcher', 'well-behaved', {
    record: recordB,
    subscribe: { intercept: ['tool_call'] },
  });
  llm.script(bashCall('touch should-not-exist'), { text: 'ok' });
  const result = await run(['--json', 'go']);
  assert.equal(result.code, 0, result.stderr);
  const [blocked] = results(result.stdout);
  assert.equal(blocked!.is_error, true);
  assert.match(blocked!.content[0]!.text, /tool call blocked: no deletes today/);
  assert.equal(existsSync(join(box.project, 'should-not-exist')), false);
  assert.equal(
    frames(recordB).some((f) => f.type === 'event_intercept'),
    false,
  );
  const toolResult = llm.requests.at(-1)!.body.messages.at(-1).content[0];
  assert.equal(toolResult.is_error, true);
  assert.match(JSON.stringify(toolResult.content), /no deletes today/);
  const audit = jsonLines(result.stdout).filter((e) => e.type === 'intercept');
  assert.deepEqual(
    audit.map((e) => [e.extension, e.action, e.reason, e.before]),
    [['a-blocker', 'block', 'no deletes today', { command: 'touch should-not-exist' }]],
  );
});

test('a silent interceptor means allow after the deadline; a crash means allow at once; a non-object rewrite is ignored', async (t) => {
  const { box, root, run, log } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  makeExtension(root, 'a-silent', 'well-behaved', {
    subscribe: { intercept: ['tool_call'] },
    intercept_responses: { tool_call: { never: true } },
  });
  makeExtension(root, 'b-crash', 'well-behaved', {
    subscribe: { intercept: ['tool_call'] },
    intercept_responses: { tool_call: { crash: true } },
  });
  makeExtension(root, 'c-string', 'well-behaved', {
    subscribe: { intercept: ['tool_call'] },
    intercept_responses: { tool_call: { modified_args: 'rm -rf /' } },
  });
  llm.script(bashCall('echo allowed'), { text: 'ok' });
  const result = await run(['--json', 'go']);
  assert.equal(result.code, 0, result.stderr);
  assert.match(results(result.stdout)[0]!.content[0]!.text, /^allowed/);
  assert.match(
    log('a-silent'),
    new RegExp(
      `intercept tool_call: did not answer within ${extTimeouts().interceptMs} ms; allowed`,
    ),
  );
  assert.match(log('b-crash'), /intercept tool_call: died \(exited with status 7\); allowed/);
  assert.match(log('c-string'), /modified_args is not a JSON object; ignored/);
  assert.ok(
    jsonLines(result.stdout).some((e) => e.type === 'ext_error' && e.extension === 'b-crash'),
  );
});

test('redaction with "scope": "transcript": no text_delta leaks while an interceptor is subscribed; the model and session messages get the redacted text', async (t) => {
  const { box, root, run, sessionEntries } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  makeExtension(root, 'redactor', 'well-behaved', {
    hello_extra: { protocol_version: 2 },
    subscribe: { intercept: ['assistant_message'] },
    intercept_responses: {
      assistant_message: { replace_text: 'your key is [redacted]', scope: 'transcript' },
    },
  });
  llm.script({ text: ['your key is ', 'sk-ant-', 'SECRET123'] }, { text: 'second' });
  const result = await run(['--json', 'key?'], true);
  assert.equal(result.code, 0, result.stderr);
  const events = jsonLines(result.stdout);
  const visible = events.filter((e) => e.type === 'text_delta' || e.type === 'assistant_message');
  assert.doesNotMatch(JSON.stringify(visible), /SECRET123/);
  assert.equal(
    events.some((e) => e.type === 'text_delta'),
    false,
  );
  // The audit event shows the change without the original; the session file keeps it.
  assert.doesNotMatch(result.stdout, /SECRET123/);
  const audit = events.find((e) => e.type === 'intercept')!;
  assert.deepEqual(
    [audit.action, audit.after, audit.before_chars, audit.scope],
    ['replace_text', 'your key is [redacted]', 28, 'transcript'],
  );
  assert.match(String(audit.before_sha256), /^[0-9a-f]{64}$/);
  const savedAudit = sessionEntries().find((e) => e.type === 'intercept');
  assert.equal(savedAudit.before, 'your key is sk-ant-SECRET123');
  const shown = jsonLines(result.stdout).find((e) => e.type === 'assistant_message');
  assert.deepEqual(shown?.content, [{ type: 'text', text: 'your key is [redacted]' }]);
  const saved = sessionEntries().find(
    (e) => e.type === 'message' && e.message.role === 'assistant',
  );
  assert.equal(saved.message.content[0].text, 'your key is [redacted]');
  const print = await run(['-p', '-c', 'again'], true);
  assert.equal(print.stdout, 'your key is [redacted]\n');
  const history = llm.requests
    .at(-1)!
    .body.messages.map((m: { content: Array<{ text?: string }> }) => m.content[0]!.text);
  assert.ok(history.includes('your key is [redacted]'), 'the next request has the redacted text');
  assert.doesNotMatch(JSON.stringify(llm.requests.at(-1)!.body), /SECRET123/);
});

test('replace_text without scope: the user sees the rewrite (events, final text, resume), the model keeps its original', async (t) => {
  const { box, root, run, sessionEntries } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  makeExtension(root, 'rewriter', 'well-behaved', {
    subscribe: { intercept: ['assistant_message'] },
    intercept_responses: { assistant_message: { replace_text: 'shown to the user' } },
  });
  llm.script({ text: 'what the model said' }, { text: 'second' });
  const result = await run(['--json', 'hi'], true);
  assert.equal(result.code, 0, result.stderr);
  const shown = jsonLines(result.stdout).find((e) => e.type === 'assistant_message');
  assert.deepEqual(shown?.content, [{ type: 'text', text: 'shown to the user' }]);
  assert.doesNotMatch(result.stdout, /what the model said/);
  const saved = sessionEntries().find(
    (e) => e.type === 'message' && e.message.role === 'assistant',
  );
  assert.deepEqual(saved.message.content, [{ type: 'text', text: 'what the model said' }]);
  assert.deepEqual(saved.message.shown, [{ type: 'text', text: 'shown to the user' }]);
  const print = await run(['-p', '-c', 'again'], true);
  assert.equal(print.stdout, 'shown to the user\n');
  const history = JSON.stringify(llm.requests.at(-1)!.body.messages);
  assert.match(history, /what the model said/, 'the model gets its original back');
  assert.doesNotMatch(history, /shown to the user/);
});

test('assistant_message block hides the text; turn_start block makes no model request', async (t) => {
  const { box, root, run } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const hider = makeExtension(join(box.project, 'x'), 'hider', 'well-behaved', {
    subscribe: { intercept: ['assistant_message'] },
    intercept_responses: {
      assistant_message: { block: true, reason: 'hidden', replace_text: 'ignored' },
    },
  });
  llm.script({ text: 'invisible' });
  const hidden = await run(['--json', 'hi', '--ext', hider]);
  assert.equal(hidden.code, 0, hidden.stderr);
  assert.equal(
    jsonLines(hidden.stdout).some((e) => e.type === 'assistant_message'),
    false,
  );
  assert.doesNotMatch(hidden.stdout, /invisible|ignored/);

  makeExtension(root, 'gate', 'well-behaved', {
    subscribe: { intercept: ['turn_start'] },
    intercept_responses: { turn_start: { block: true, reason: 'outside business hours' } },
  });
  const before = llm.requests.length;
  const print = await run(['-p', 'work']);
  assert.equal(print.code, 1);
  assert.match(print.stderr, /turn blocked: outside business hours \(gate\)/);
  const json = await run(['--json', 'work']);
  assert.equal(json.code, 1);
  const events = jsonLines(json.stdout);
  assert.match(String(events.find((e) => e.type === 'error')?.message), /outside business hours/);
  assert.deepEqual(
    events.find((e) => e.type === 'turn_end'),
    {
      type: 'turn_end',
      stop: 'error',
      error: 'turn blocked: outside business hours (gate)',
      error_kind: 'blocked',
    },
  );
  assert.equal(llm.requests.length, before, 'no model request was made');
});

test('lifecycle events arrive in emission order, only those subscribed, with the original tool args', async (t) => {
  const { box, root, run, frames } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const all = join(box.project, 'all.jsonl');
  const some = join(box.project, 'some.jsonl');
  makeExtension(root, 'a-all', 'well-behaved', {
    record: all,
    subscribe: {
      events: [
        'session_start',
        'turn_start',
        'turn_end',
        'tool_call',
        'assistant_message',
        'bogus',
      ],
      intercept: ['session_start'],
    },
  });
  makeExtension(root, 'b-some', 'well-behaved', {
    record: some,
    subscribe: { events: ['turn_end'] },
  });
  makeExtension(root, 'c-rewrite', 'well-behaved', {
    subscribe: { intercept: ['tool_call'] },
    intercept_responses: { tool_call: { modified_args: { command: 'echo rewritten' } } },
  });
  const calls = Array.from({ length: 40 }, (_, i) => ({
    id: `t${i}`,
    name: 'bash',
    args: { command: `echo ${i}` },
  }));
  llm.script({ text: 'working', toolCalls: calls }, { text: 'all done' });
  const result = await run(['--json', 'go']);
  assert.equal(result.code, 0, result.stderr);
  const events = frames(all)
    .filter((f) => f.type === 'event')
    .map((f) => {
      const { type: _type, ...rest } = f;
      return rest;
    });
  const expected = [
    { event: 'session_start' },
    { event: 'turn_start', step: 1 },
    { event: 'assistant_message', text: 'working' },
    ...calls.map((c) => ({
      event: 'tool_call',
      tool_id: c.id,
      tool_name: 'bash',
      tool_args: c.args,
    })),
    { event: 'turn_end', stop: 'tool_use' },
    { event: 'turn_start', step: 2 },
    { event: 'assistant_message', text: 'all done' },
    { event: 'turn_end', stop: 'end_turn' },
  ];
  assert.deepEqual(events, expected);
  assert.deepEqual(
    frames(some)
      .filter((f) => f.type === 'event')
      .map((f) => f.stop),
    ['tool_use', 'end_turn'],
  );
  const log = readFileSync(join(box.home, 'logs', 'ext-a-all.log'), 'utf8');
  assert.match(log, /unknown event "bogus" ignored/);
  assert.match(log, /"session_start" cannot be intercepted; ignored/);
});

test('the guard example refuses, rewrites and redacts', async (t) => {
  const { box, run } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const guard = join(EXAMPLES, 'guard');
  llm.script(
    {
      toolCalls: [
        { id: 'g1', name: 'bash', args: { command: 'rm -rf /' } },
        { id: 'g2', name: 'bash', args: { command: 'sudo ls' } },
        { id: 'g3', name: 'bash', args: { command: 'echo git push --force origin' } },
      ],
    },
    { text: ['Your key: sk-ant-', 'api03-abcdefghijklmnopqrstuvwxyz'] },
  );
  const result = await run(['--json', 'clean up', '--ext', guard]);
  assert.equal(result.code, 0, result.stderr);
  const [rm, sudo, push] = results(result.stdout);
  assert.match(rm!.content[0]!.text, /guard refused: this command deletes the root filesystem/);
  assert.match(sudo!.content[0]!.text, /guard refused: this command uses sudo/);
  assert.match(push!.content[0]!.text, /git push --force-with-lease origin/);
  assert.doesNotMatch(result.stdout, /abcdefghijklmnop/);
  const shown = jsonLines(result.stdout)
    .filter((e) => e.type === 'assistant_message')
    .at(-1);
  assert.deepEqual(shown?.content, [{ type: 'text', text: 'Your key: [redacted]' }]);
});

test("a slow reader never delays another extension's events or the agent", async (t) => {
  const { box, root, run, frames } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const slow = join(box.project, 'slow.jsonl');
  const fast = join(box.project, 'fast.jsonl');
  makeExtension(root, 'a-slow', 'well-behaved', {
    record: slow,
    subscribe: { events: ['turn_start', 'tool_call', 'turn_end'] },
    pause_input_ms: hangGuard(60_000),
  });
  makeExtension(root, 'b-fast', 'well-behaved', {
    record: fast,
    subscribe: { events: ['turn_start', 'tool_call', 'turn_end'] },
  });
  // 30 calls with 100 KB of arguments each: far more than a pipe buffer holds.
  const big = 'x'.repeat(100_000);
  const calls = Array.from({ length: 30 }, (_, i) => ({
    id: `s${i}`,
    name: 'bash',
    args: { command: `true ${i} ${big}` },
  }));
  llm.script({ toolCalls: calls }, { text: 'done' });
  const result = await run(['-p', 'go']);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, 'done\n');
  const fastEvents = frames(fast).filter((f) => f.type === 'event');
  assert.equal(fastEvents.filter((f) => f.event === 'tool_call').length, 30);
  assert.deepEqual(fastEvents.at(-1), { type: 'event', event: 'turn_end', stop: 'end_turn' });
  const slowEvents = frames(slow).filter((f) => f.type === 'event');
  assert.ok(
    slowEvents.length < fastEvents.length,
    'the slow reader had not caught up when zot finished',
  );
});
