// Print and JSON runs hold back the extensions zot remembers as intercepting and observing
// nothing: their processes are spawned once the first model request has been out for a while
// (ZOT_EXT_HELD_START_MS; these tests set 0, at once, unless they test the wait), so they do not
// compete with zot's own start, or a quick answer, for the CPU. Their remembered
// tools are offered in that request, and a call of one waits for the start. Guards and observers
// are never held back. The built zot, the fake LLM and real extension processes; what happened
// when is read from the extension's log, which zot writes in order.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  expectNoLeftovers,
  FAST_TIMEOUTS,
  makeExtension,
  recordedFrames,
  waitForNoProcesses,
} from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { jsonLines, makeSandbox, runZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

type ToolResult = { id: string; is_error: boolean; content: Array<{ text?: string }> };

const HELD = /held back until the first model request is out/;
const RELEASED = 'the first model request is out: starting it';

function setup() {
  const box = makeSandbox();
  const root = join(box.home, 'extensions');
  const flags = [...fakeLlmFlags(llm.url), '--no-session'];
  const run = (args: string[], extra: Record<string, string> = {}) =>
    runZot([...args, ...flags], {
      home: box.home,
      cwd: box.project,
      // Held extensions start as soon as the request is out, so that the order is certain.
      env: { ...FAST_TIMEOUTS, ZOT_EXT_HELD_START_MS: '0', ...extra },
    });
  const log = (name: string) => readFileSync(join(box.home, 'logs', `ext-${name}.log`), 'utf8');
  /** The log of the last run only: from its last "starting" decision on. */
  const lastRun = (name: string) => {
    const text = log(name);
    const from = Math.max(text.lastIndexOf('not waited for'), 0);
    return text.slice(text.lastIndexOf('\n', from) + 1);
  };
  const pids = (file: string) =>
    existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).length : 0;
  const results = (stdout: string) =>
    jsonLines(stdout).filter((e) => e.type === 'tool_result') as unknown as ToolResult[];
  const offered = (index: number) =>
    (llm.requests.at(index)!.body.tools as Array<{ name: string }>).map((tool) => tool.name);
  return { box, root, run, log, lastRun, pids, results, offered };
}

test('a held extension starts once the first request is out; its tool called in that turn works', async (t) => {
  const { box, root, run, log, lastRun, pids, offered } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const pidLog = join(box.home, '..', 'pids');
  makeExtension(root, 'held', 'well-behaved', { tools: ['held_echo'], pid_log: pidLog });
  llm.script({ text: 'first' });
  const first = await run(['-p', 'hello']);
  assert.equal(first.code, 0, first.stderr);
  assert.doesNotMatch(log('held'), HELD, 'nothing remembered yet: waited for');

  llm.script(
    { toolCalls: [{ id: 'c1', name: 'held_echo', args: { text: 'hi' } }] },
    { text: 'done' },
  );
  const second = await run(['-p', 'use it']);
  assert.equal(second.code, 0, second.stderr);
  assert.equal(second.stdout.trim(), 'done');
  assert.ok(offered(-2).includes('held_echo'), 'offered in the first request, from memory');
  const toolResult = llm.requests.at(-1)!.body.messages.at(-1).content[0];
  assert.equal(toolResult.is_error ?? false, false, JSON.stringify(toolResult));
  assert.match(JSON.stringify(toolResult.content), /held_echo:\{\\"text\\":\\"hi\\"\}/);
  const text = lastRun('held');
  assert.match(text, HELD);
  const released = text.indexOf(RELEASED);
  assert.ok(released > 0, `released by the request:\n${text}`);
  assert.ok(text.indexOf('starting held', released) > released, 'spawned after that');
  assert.equal(pids(pidLog), 2, 'one process per run');
});

test('a run that never sends a request never spawns it; a slash command starts it', async (t) => {
  const { box, root, run, log, lastRun, pids } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const pidLog = join(box.home, '..', 'pids');
  makeExtension(root, 'idle', 'well-behaved', {
    tools: ['idle_tool'],
    commands: ['idle_cmd'],
    pid_log: pidLog,
  });
  llm.script({ text: 'first' });
  assert.equal((await run(['--json', 'hello'])).code, 0);
  assert.equal(pids(pidLog), 1);

  // No server listens on port 9 of loopback: the request is never written.
  const refused = await runZot(
    ['--json', 'hello', ...fakeLlmFlags('http://127.0.0.1:9'), '--no-session'],
    { home: box.home, cwd: box.project, env: { ...FAST_TIMEOUTS, ZOT_EXT_HELD_START_MS: '0' } },
  );
  assert.equal(refused.code, 1, refused.stderr);
  assert.equal(pids(pidLog), 1, `never spawned:\n${lastRun('idle')}`);
  const reported = jsonLines(refused.stdout).filter((e) => e.extension === 'idle');
  assert.deepEqual(reported, [], 'and not reported as failed');
  assert.match(lastRun('idle'), HELD);

  const command = await run(['-p', '/idle_cmd x']);
  assert.equal(command.code, 0, command.stderr);
  assert.equal(command.stdout.trim(), 'ran idle_cmd x');
  assert.equal(pids(pidLog), 2);
  assert.equal(log('idle').match(/every extension is waited for: starting it/g)?.length, 1);
});

test('a run answered before the held start is due never spawns it; a call of its tool starts it at once', async (t) => {
  const { box, root, run, lastRun, pids, results } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const pidLog = join(box.home, '..', 'pids');
  makeExtension(root, 'late', 'well-behaved', { tools: ['late_echo'], pid_log: pidLog });
  // The environment is part of what zot remembers an extension by: the same in every run.
  const notYet = { ZOT_EXT_HELD_START_MS: '600000' };
  llm.script({ text: 'first' });
  assert.equal((await run(['-p', 'hello'], notYet)).code, 0); // remembered from here on
  assert.equal(pids(pidLog), 1);

  llm.script({ text: 'second' });
  const quick = await run(['-p', 'hello'], notYet);
  assert.equal(quick.code, 0, quick.stderr);
  assert.equal(quick.stdout.trim(), 'second');
  assert.match(lastRun('late'), HELD);
  assert.doesNotMatch(lastRun('late'), /starting it/, 'the answer came first');
  assert.equal(pids(pidLog), 1, 'never spawned');

  llm.script(
    { toolCalls: [{ id: 'l1', name: 'late_echo', args: { text: 'hi' } }] },
    { text: 'done' },
  );
  const used = await run(['--json', 'use it'], notYet);
  assert.equal(used.code, 0, used.stderr);
  const [result] = results(used.stdout);
  assert.equal(result?.is_error, false, JSON.stringify(result));
  assert.match(lastRun('late'), /a call of its tool late_echo needs it: starting it/);
  assert.equal(pids(pidLog), 2);
});

test('guards and observers are never held back: they see the first turn', async (t) => {
  const { box, root, run, log, results } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const record = join(box.home, '..', 'observed.jsonl');
  makeExtension(root, 'guard', 'well-behaved', {
    subscribe: { intercept: ['tool_call'] },
    intercept_responses: { tool_call: { block: true, reason: 'no (guard)' } },
  });
  makeExtension(root, 'observer', 'well-behaved', {
    subscribe: { events: ['turn_start'] },
    record,
  });
  for (const round of [1, 2]) {
    llm.script(
      { toolCalls: [{ id: `b${round}`, name: 'bash', args: { command: 'echo ran' } }] },
      { text: 'done' },
    );
    const result = await run(['--json', 'run echo']);
    assert.equal(result.code, 0, result.stderr);
    const [blocked] = results(result.stdout);
    assert.equal(blocked?.is_error, true, `round ${round}: ${JSON.stringify(blocked)}`);
    assert.match(blocked!.content[0]!.text!, /no \(guard\)/);
  }
  // Two turns per run, each announced to the observer.
  const frames = await recordedFrames(
    record,
    (all) => all.filter((f) => f.event === 'turn_start').length >= 4,
  );
  assert.equal(frames.filter((f) => f.event === 'turn_start').length, 4);
  for (const name of ['guard', 'observer']) {
    assert.doesNotMatch(log(name), /not waited for/, `${name} was waited for`);
    assert.doesNotMatch(log(name), HELD);
  }
});

test('a held extension that fails to start gives the call a clear error', async (t) => {
  const { box, root, run, lastRun, results } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const broken = join(box.home, '..', 'broken');
  makeExtension(root, 'fragile', 'well-behaved', {
    tools: ['fragile_tool'],
    exit_if_exists: broken,
  });
  llm.script({ text: 'first' });
  assert.equal((await run(['--json', 'hello'])).code, 0);
  writeFileSync(broken, ''); // from now on it exits before hello; its code is the same
  llm.script({ toolCalls: [{ id: 'f1', name: 'fragile_tool', args: {} }] }, { text: 'it failed' });
  const result = await run(['--json', 'use it']);
  assert.equal(result.code, 0, result.stderr);
  const [failed] = results(result.stdout);
  assert.equal(failed?.is_error, true, JSON.stringify(failed));
  assert.match(
    failed!.content[0]!.text!,
    /^extension fragile is not running \(exited with status 3 before sending hello\); see .*ext-fragile\.log$/,
  );
  assert.match(lastRun('fragile'), HELD);
  const errors = jsonLines(result.stdout).filter((e) => e.type === 'ext_error');
  assert.equal(errors.length, 1, result.stdout);
  assert.match(String(errors[0]!.message), /extension fragile failed to load/);
});

test('a held extension still silent when the run ends is killed at once, not waited for', async (t) => {
  const { box, root, run, log } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const gate = join(box.project, 'hello-gate');
  // It ignores SIGTERM: a run that waited for it to go would wait out the whole kill grace.
  makeExtension(root, 'slow', 'ignore-sigterm', {
    tools: [{ name: 'slow_tool', schema: { type: 'object', properties: {} } }],
    hello_gate: gate,
  });
  writeFileSync(gate, '');
  llm.script({ text: 'first' });
  assert.equal((await run(['-p', 'hi'])).code, 0); // remembered from here on
  rmSync(gate);
  llm.script({ text: 'second' });
  const result = await run(['-p', 'hi']);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout.trim(), 'second');
  const second = log('slow').slice(log('slow').lastIndexOf(RELEASED));
  assert.match(second, /shut down before it said hello: killed, its end not awaited/);
  assert.match(second, /sent SIGKILL to process group \d+/, 'it was spawned, and killed');
  assert.doesNotMatch(second, /SIGTERM/, 'no grace for a process that was told nothing');
  assert.deepEqual(await waitForNoProcesses(box.home), [], 'and SIGKILL ended it');
});
