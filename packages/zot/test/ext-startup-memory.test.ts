// Print and JSON runs do not wait for an extension whose registrations zot remembers from an
// earlier run of the same code, when those say it neither intercepts nor observes anything: its
// tools are offered from memory in the first request, and a call of one waits for it. Guards,
// observers, first runs and changed code are waited for. The built zot, the fake LLM, real
// extension processes; the extension's start is held open by a file (`ready_gate`) that the
// test creates only once the model request has arrived, so "not waited for" is shown by order,
// not by time.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { expectNoLeftovers, FAST_TIMEOUTS, makeExtension } from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { deadline, hangGuard } from './support/timing.js';
import { collect, jsonLines, makeSandbox, runZot, startZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

type ToolResult = { id: string; is_error: boolean; content: Array<{ text?: string }> };

function setup() {
  const box = makeSandbox();
  const root = join(box.home, 'extensions');
  const gate = join(box.home, '..', 'gate');
  // The start is held open until the test opens the gate: zot's ready deadline must outlast
  // that (a few start-ups), and bounds how long a run that wrongly waits takes to fail.
  const env = { ...FAST_TIMEOUTS, ZOT_EXT_READY_TIMEOUT_MS: String(deadline(20, 5000)) };
  const args = (prompt: string) => ['--json', prompt, ...fakeLlmFlags(llm.url), '--no-session'];
  const run = (prompt: string) => runZot(args(prompt), { home: box.home, cwd: box.project, env });
  /**
   * A run whose gate opens only when the first model request has arrived: a run that waited
   * for the extension before that request would wait out its ready deadline, and the extension
   * would fail to load.
   */
  const runGated = async (prompt: string) => {
    const from = llm.requests.length;
    const child = startZot(args(prompt), { home: box.home, cwd: box.project, env });
    const done = collect(child, undefined, hangGuard(30_000));
    const opened = (async () => {
      while (llm.requests.length === from && child.exitCode === null)
        await new Promise((resolve) => setTimeout(resolve, 10));
      writeFileSync(gate, '');
    })();
    const result = await done;
    await opened;
    return result;
  };
  const log = (name: string) => readFileSync(join(box.home, 'logs', `ext-${name}.log`), 'utf8');
  const offered = (index: number) =>
    (llm.requests.at(index)!.body.tools as Array<{ name: string }>).map((tool) => tool.name);
  const results = (stdout: string) =>
    jsonLines(stdout).filter((e) => e.type === 'tool_result') as unknown as ToolResult[];
  return { box, root, gate, run, runGated, log, offered, results };
}

test('a tool of an extension slow to start is in the first request; its call waits for it', async (t) => {
  const { box, root, gate, run, runGated, log, offered, results } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  makeExtension(root, 'slowtool', 'well-behaved', { tools: ['slow_echo'], ready_gate: gate });
  // First run: nothing remembered, so the run waits for the extension (the gate is open).
  writeFileSync(gate, '');
  llm.script({ text: 'first' });
  const first = await run('hello');
  assert.equal(first.code, 0, first.stderr);
  assert.ok(offered(-1).includes('slow_echo'));
  assert.doesNotMatch(log('slowtool'), /not waited for/);

  // Later run: the gate opens only after the request, which offers the remembered tool.
  rmSync(gate);
  llm.script(
    { toolCalls: [{ id: 'c1', name: 'slow_echo', args: { text: 'hi' } }] },
    { text: 'done' },
  );
  const second = await runGated('use it');
  assert.equal(second.code, 0, second.stderr);
  assert.ok(offered(-2).includes('slow_echo'), 'offered in the first request, from memory');
  const [result] = results(second.stdout);
  assert.equal(result?.is_error, false, JSON.stringify(result));
  assert.equal(result?.content[0]?.text, 'slow_echo:{"text":"hi"}');
  assert.match(log('slowtool'), /not waited for/);
  assert.doesNotMatch(second.stderr, /failed to load/);
});

test('a run over before an extension left to start in the background is ready reports no failure', async (t) => {
  const { box, root, gate, run, runGated, log } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  makeExtension(root, 'late', 'well-behaved', { tools: ['late_tool'], ready_gate: gate });
  writeFileSync(gate, '');
  llm.script({ text: 'first' });
  assert.equal((await run('hello')).code, 0);
  rmSync(gate);
  llm.script({ text: 'second' });
  // The gate opens after the request; zot may be done before the extension is ready.
  const second = await runGated('hello again');
  assert.equal(second.code, 0, second.stderr);
  assert.doesNotMatch(second.stderr, /late/, 'no error or warning about the extension');
  assert.match(log('late'), /not waited for/);
});

test('a guard slow to start is waited for: it still blocks the first tool call', async (t) => {
  const { box, root, gate, run, log, results } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  for (const failure of ['allow', 'block'] as const) {
    const name = `guard-${failure}`;
    makeExtension(
      root,
      name,
      'well-behaved',
      {
        subscribe: { intercept: ['tool_call'] },
        intercept_responses: { tool_call: { block: true, reason: `no (${name})` } },
        ready_delay_ms: deadline(2, 300),
        ready_gate: gate,
      },
      { manifest: { intercept_failure: failure } },
    );
  }
  writeFileSync(gate, '');
  for (const round of [1, 2]) {
    llm.script(
      { toolCalls: [{ id: `b${round}`, name: 'bash', args: { command: 'echo ran' } }] },
      { text: 'done' },
    );
    const result = await run('run echo');
    assert.equal(result.code, 0, result.stderr);
    const [blocked] = results(result.stdout);
    assert.equal(blocked?.is_error, true, `round ${round}: ${JSON.stringify(blocked)}`);
    assert.match(blocked!.content[0]!.text!, /no \(guard-allow\)/);
  }
  assert.doesNotMatch(log('guard-allow'), /not waited for/);
  assert.doesNotMatch(log('guard-block'), /not waited for/);
});

test('changed code, a changed project or a damaged memory file: the extension is waited for', async (t) => {
  const { box, root, gate, run, log, offered } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const dir = makeExtension(root, 'pinned', 'well-behaved', {
    tools: ['pinned_tool'],
    ready_gate: gate,
  });
  writeFileSync(gate, '');
  const waits = () => log('pinned').match(/not waited for/g)?.length ?? 0;
  const once = async () => {
    llm.script({ text: 'ok' });
    const result = await run('hello');
    assert.equal(result.code, 0, result.stderr);
    assert.ok(offered(-1).includes('pinned_tool'));
  };
  await once(); // remembered
  await once();
  assert.equal(waits(), 1, 'the second run went ahead');
  writeFileSync(join(dir, 'data.txt'), 'a file in its directory changed');
  await once();
  assert.equal(waits(), 1, 'changed files: waited for');
  await once();
  assert.equal(waits(), 2, 'and remembered again');
  const memory = join(box.home, 'ext-registrations');
  const [entry] = readdirSync(memory);
  writeFileSync(join(memory, entry!), '{"version":1,"key":');
  await once();
  assert.equal(waits(), 2, 'a damaged entry is not used');
  assert.match(log('pinned'), /ext-registrations.*not used/);
  await once();
  assert.equal(waits(), 3);
  chmodSync(memory, 0o777);
  await once();
  assert.equal(waits(), 3, 'a directory open to others is not used');
  assert.match(log('pinned'), /open to other users/);
  chmodSync(memory, 0o700);
  // Another project: the extension may register other things there.
  const other = join(box.home, '..', 'other');
  mkdirSync(other);
  llm.script({ text: 'ok' });
  const elsewhere = await runZot(['--json', 'hi', ...fakeLlmFlags(llm.url), '--no-session'], {
    home: box.home,
    cwd: other,
    env: FAST_TIMEOUTS,
  });
  assert.equal(elsewhere.code, 0, elsewhere.stderr);
  assert.equal(waits(), 3, 'another project: waited for');
});
