// End-to-end supervision (design D25) and fail-closed guards (design D24) with real fixture
// extensions over real pipes: crashes after N calls, after a while, on a signal and in a loop.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  expectNoLeftovers,
  FAST_TIMEOUTS,
  makeExtension,
  pidAlive,
  processesMatching,
} from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { ZotRpc, type Line } from './support/rpc-client.js';
import { deadline, hangGuard } from './support/timing.js';
import { jsonLines, makeSandbox, runZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

/**
 * A backoff long enough that a request sent right after a crash is seen lands while the
 * extension is still restarting (a multiple of this machine's start-up time).
 */
const SLOW_BACKOFF = () => String(deadline(10, 1000));

function setup(t: { after(fn: () => void): void }, backoffMs: string) {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const root = join(box.home, 'extensions');
  const env = { ...FAST_TIMEOUTS, ZOT_EXT_RESTART_BACKOFF_MS: backoffMs };
  const start = () =>
    ZotRpc.start([...fakeLlmFlags(llm.url), '--no-session'], {
      home: box.home,
      cwd: box.project,
      env,
    });
  const log = (name: string) => readFileSync(join(box.home, 'logs', `ext-${name}.log`), 'utf8');
  const pids = (file: string) =>
    existsSync(file)
      ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map(Number)
      : [];
  return { box, root, env, start, log, pids };
}

const of = (client: ZotRpc, type: string, extension: string) =>
  client.lines.filter((line) => line.type === type && line.extension === extension);

/** Waits until `count` lines of `type` for `extension` have arrived. */
function waitForCount(client: ZotRpc, type: string, extension: string, count: number) {
  let seen = 0;
  return client.waitFor(
    (line) => line.type === type && line.extension === extension && ++seen === count,
  );
}

/** Polls until `check` holds; rejects after a hang guard. */
async function until(check: () => boolean, what: string): Promise<void> {
  const limit = Date.now() + hangGuard(10_000);
  while (!check()) {
    if (Date.now() > limit) throw new Error(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('a crash after N calls: calls meanwhile fail at once, then it is back with the current model and its activated tools', async (t) => {
  const { root, start, log, pids, box } = setup(t, SLOW_BACKOFF());
  const record = join(box.project, 'kit.jsonl');
  const pidLog = join(box.project, 'kit.pids');
  makeExtension(root, 'kit', 'well-behaved', {
    record,
    pid_log: pidLog,
    crash_after_calls: 2,
    commands: ['ping'],
    tools: [
      {
        name: 'loader',
        result: { content: [{ type: 'text', text: 'loaded' }], activate_tools: ['hidden'] },
      },
      { name: 'echo' },
      { name: 'hidden', deferred: true },
    ],
  });
  const client = start();
  await client.request('ping');
  const offered = () => llm.requests.at(-1)!.body.tools.map((tool: { name: string }) => tool.name);

  // Call 1 activates the deferred tool; call 2 is answered, then the process exits.
  llm.script({ toolCalls: [{ id: 'c1', name: 'loader', args: {} }] }, { text: 'one' });
  await client.request('prompt', { message: 'load' });
  await client.waitFor((line) => line.type === 'done');
  assert.ok(offered().includes('hidden'), 'activated before the crash');
  llm.script({ toolCalls: [{ id: 'c2', name: 'echo', args: { n: 2 } }] }, { text: 'two' });
  await client.request('prompt', { message: 'echo' });
  const crash = await waitForCount(client, 'ext_error', 'kit', 1);
  assert.match(
    String(crash.message),
    /^extension kit exited with status 9; restarting in \S+ (s|ms) \(restart 1 of 3\)$/,
  );

  // The prompt that crashed it ends (a busy session would refuse the model switch below).
  let dones = 0;
  await client.waitFor((line) => line.type === 'done' && ++dones === 2);

  // While it restarts, a command fails at once, saying so.
  const from = client.lines.length;
  await client.request('command', { text: '/ping' });
  const refused = await client.waitFor((line) => line.type === 'error', hangGuard(10_000), from);
  assert.equal(refused.message, '/ping: extension kit is restarting, try again');
  assert.equal(of(client, 'ext_restarted', 'kit').length, 0, 'still restarting');

  // Switched while it is down: the new process hears the current model.
  await client.request('set_model', { model: 'anthropic/claude-haiku-4-5' });
  const back = await waitForCount(client, 'ext_restarted', 'kit', 1);
  assert.deepEqual(back, { type: 'ext_restarted', extension: 'kit', restarts: 1 });
  const acks = readFileSync(record, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Line)
    .filter((frame) => frame.type === 'hello_ack');
  assert.equal(acks.length, 2);
  assert.equal(acks[1]!.model, 'claude-haiku-4-5');
  assert.equal(pids(pidLog).length, 2);

  // The deferred tool it had activated is still offered, and the new process answers it.
  llm.script({ toolCalls: [{ id: 'c3', name: 'hidden', args: {} }] }, { text: 'three' });
  const third = client.lines.length;
  await client.request('prompt', { message: 'hidden' });
  const result = await client.waitFor(
    (line) => line.type === 'tool_result' && line.id === 'c3',
    hangGuard(10_000),
    third,
  );
  assert.equal(result.is_error, false);
  assert.ok(offered().includes('hidden'));
  await client.waitFor((line) => line.type === 'done', hangGuard(10_000), third);

  assert.equal(of(client, 'ext_error', 'kit').length, 1, 'one report per crash');
  assert.match(log('kit'), /exited with status 9; restart 1 \(1 of at most 3 within 5 minutes\)/);
  assert.match(log('kit'), /restarted \(restart 1; pid \d+\)/);
  await client.close();
  assert.ok(!pidAlive(pids(pidLog)[1]!));
});

test('killed by a signal: reported with the signal, restarted as a new process', async (t) => {
  const { root, start, log, pids, box } = setup(t, '20');
  const pidLog = join(box.project, 'kit.pids');
  makeExtension(root, 'kit', 'well-behaved', { pid_log: pidLog, tools: ['echo'] });
  const client = start();
  await client.request('ping');
  const [first] = pids(pidLog);
  process.kill(first!, 'SIGKILL');
  const crash = await waitForCount(client, 'ext_error', 'kit', 1);
  assert.match(String(crash.message), /^extension kit killed by SIGKILL; restarting in 20 ms/);
  await waitForCount(client, 'ext_restarted', 'kit', 1);
  const [, second] = pids(pidLog);
  assert.ok(second !== undefined && second !== first && pidAlive(second));
  assert.match(log('kit'), /killed by SIGKILL; restart 1 /);
  const state = await client.request('get_state');
  assert.deepEqual((state.data as { extensions: unknown }).extensions, {
    loaded: ['kit'],
    failed: [],
  });
  await client.close();
  assert.ok(!pidAlive(second!));
});

test('a crash loop after a while: three restarts, then it stays down until reload_extensions', async (t) => {
  const { root, start, log, pids, box } = setup(t, '20');
  const pidLog = join(box.project, 'loop.pids');
  makeExtension(root, 'loop', 'crash-after-ready', {
    pid_log: pidLog,
    after_ms: 50,
    tools: ['echo'],
  });
  const client = start();
  await client.request('ping');
  const last = await waitForCount(client, 'ext_error', 'loop', 4);
  assert.match(
    String(last.message),
    /^extension loop exited with status 9; restarted 3 times within 5 minutes, so it stays down until \/reload-ext$/,
  );
  assert.deepEqual(
    of(client, 'ext_restarted', 'loop').map((line) => line.restarts),
    [1, 2, 3],
  );
  // The backoff doubles: 20, 40, 80 ms (as the log says; no clock is read here).
  const delays = [
    ...log('loop').matchAll(/restart \d \(\d of at most 3 within 5 minutes\) in (\d+) ms/g),
  ];
  assert.deepEqual(
    delays.map((m) => m[1]),
    ['20', '40', '80'],
  );
  // Given up: nothing more happens, whatever time passes (several backoffs' worth here).
  await new Promise((resolve) => setTimeout(resolve, deadline(3, 400)));
  assert.equal(pids(pidLog).length, 4);
  assert.equal(of(client, 'ext_error', 'loop').length, 4);
  assert.deepEqual(processesMatching(root), []);
  const state = await client.request('get_state');
  assert.deepEqual((state.data as { extensions: unknown }).extensions, {
    loaded: [],
    failed: ['loop'],
  });

  const reload = await client.request('reload_extensions');
  assert.equal(reload.success, true);
  assert.equal(pids(pidLog).length, 5, 'a reload starts it again');
  await waitForCount(client, 'ext_restarted', 'loop', 4); // with a fresh budget
  await client.close();
});

test('restart "never": one report, no restart; its tools say why', async (t) => {
  const { root, pids, box, env } = setup(t, '20');
  const pidLog = join(box.project, 'once.pids');
  makeExtension(
    root,
    'once',
    'well-behaved',
    { pid_log: pidLog, tools: [{ name: 'boom', result: { crash: true } }, 'echo'] },
    { manifest: { restart: 'never' } },
  );
  llm.script(
    { toolCalls: [{ id: 'c1', name: 'boom', args: {} }] },
    { toolCalls: [{ id: 'c2', name: 'echo', args: {} }] },
    { text: 'done' },
  );
  const result = await runZot([...fakeLlmFlags(llm.url), '--no-session', '--json', 'go'], {
    home: box.home,
    cwd: box.project,
    env,
  });
  assert.equal(result.code, 0, result.stderr);
  const events = jsonLines(result.stdout);
  const errors = events.filter((e) => e.type === 'ext_error');
  assert.deepEqual(
    errors.map((e) => e.message),
    ['extension once exited with status 7; not restarted ("restart": "never" in its manifest)'],
  );
  assert.equal(events.filter((e) => e.type === 'ext_restarted').length, 0);
  const echo = events.find((e) => e.type === 'tool_result' && e.id === 'c2') as
    | { content: Array<{ text: string }> }
    | undefined;
  assert.match(
    echo!.content[0]!.text,
    /^extension once is not running \(exited with status 7; not restarted \("restart": "never"\); \/reload-ext starts it again\); see /,
  );
  assert.equal(pids(pidLog).length, 1);
});

test('print mode: a crash is one line on stderr saying when it restarts', async (t) => {
  const { root, box, env } = setup(t, SLOW_BACKOFF());
  makeExtension(root, 'kit', 'well-behaved', {
    tools: [{ name: 'boom', result: { crash: true } }],
  });
  llm.script({ toolCalls: [{ id: 'c1', name: 'boom', args: {} }] }, { text: 'answered' });
  const result = await runZot([...fakeLlmFlags(llm.url), '--no-session', '-p', 'go'], {
    home: box.home,
    cwd: box.project,
    env,
  });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout.trim(), 'answered');
  const lines = result.stderr.split('\n').filter((line) => line.includes('extension kit'));
  assert.equal(lines.length, 1, result.stderr);
  assert.match(
    lines[0]!,
    /^zot: extension kit exited with status 7; restarting in .* \(restart 1 of 3\) \(log: .*ext-kit\.log\)$/,
  );
});

test('a fail-closed guard: its crash blocks the call, then it is restarted and guards again', async (t) => {
  const { root, start, box, log } = setup(t, '20');
  const pidLog = join(box.project, 'guard.pids');
  makeExtension(
    root,
    'guard',
    'well-behaved',
    {
      pid_log: pidLog,
      subscribe: { intercept: ['tool_call'] },
      intercept_responses: { tool_call: { crash: true } },
    },
    { manifest: { intercept_failure: 'block', restart: 'on-failure' } },
  );
  makeExtension(root, 'tools', 'well-behaved', { tools: ['echo'] });
  const client = start();
  await client.request('ping');
  llm.script({ toolCalls: [{ id: 'c1', name: 'echo', args: { x: 1 } }] }, { text: 'blocked' });
  await client.request('prompt', { message: 'go' });
  const result = await client.waitFor((line) => line.type === 'tool_result' && line.id === 'c1');
  assert.equal(result.is_error, true);
  const text = (result.content as Array<{ text: string }>)[0]!.text;
  assert.match(
    text,
    /extension guard died \(exited with status 7\); blocked because its "intercept_failure" is "block"/,
  );
  const audit = client.lines.find((line) => line.type === 'intercept');
  assert.equal(audit?.extension, 'guard');
  assert.equal(audit?.action, 'block');
  assert.equal(audit?.failure, 'crash');
  await client.waitFor((line) => line.type === 'done');
  await waitForCount(client, 'ext_restarted', 'guard', 1);
  assert.match(
    log('guard'),
    /intercept tool_call: died \(exited with status 7\); blocked \("intercept_failure": "block"\)/,
  );
  await client.close();
  await until(() => processesMatching(root).length === 0, 'extensions gone');
});
