// Supervision over in-memory links with a fake clock: restarts, backoff, budget, replay.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakeHost, type FakeScript } from './fake-extension.fixture.js';
import type { HostOptions } from './host.js';
import { RestartBudget, restartBackoffMs, type SupervisorClock } from './restart-budget.js';

/** Timers that fire only when the test advances time. */
class FakeClock implements SupervisorClock {
  time = 0;
  private timers: Array<{ at: number; run: () => void }> = [];

  now(): number {
    return this.time;
  }
  setTimeout(run: () => void, ms: number): unknown {
    const timer = { at: this.time + ms, run };
    this.timers.push(timer);
    return timer;
  }
  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((timer) => timer !== handle);
  }
  /** The delays of pending timers, from now. */
  pending(): number[] {
    return this.timers.map((timer) => timer.at - this.time);
  }
  /** Moves time on by `ms`, running the timers that come due. */
  advance(ms: number): void {
    this.time += ms;
    const due = this.timers.filter((timer) => timer.at <= this.time);
    this.timers = this.timers.filter((timer) => timer.at > this.time);
    for (const timer of due) timer.run();
  }
}

/** In-memory delivery runs on microtasks and immediates: after this, all has been handled. */
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

const toolContext = () => ({
  cwd: '/',
  toolCallId: 'c1',
  signal: new AbortController().signal,
  onProgress: () => undefined,
});

function supervised(scripts: Record<string, FakeScript>, options: Partial<HostOptions> = {}) {
  const clock = new FakeClock();
  const f = fakeHost(scripts, { clock, ...options });
  const ofType = <T extends string>(type: T) => f.events.filter((e) => e.type === type);
  return { ...f, clock, ofType };
}

test('budget: 1 s, 2 s, 4 s within the window, then no more; the window slides', () => {
  const clock = new FakeClock();
  const budget = new RestartBudget(clock, 1000);
  assert.deepEqual(budget.next(), { restart: true, delayMs: 1000, attempt: 1 });
  clock.advance(10_000);
  assert.deepEqual(budget.next(), { restart: true, delayMs: 2000, attempt: 2 });
  clock.advance(10_000);
  assert.deepEqual(budget.next(), { restart: true, delayMs: 4000, attempt: 3 });
  assert.deepEqual(budget.next(), { restart: false, recent: 3 });
  // Five minutes after the first restart, one slot is free again, at the backoff for two.
  clock.advance(5 * 60_000 - 20_000);
  assert.deepEqual(budget.next(), { restart: true, delayMs: 4000, attempt: 3 });
  assert.equal(budget.total, 4);
  clock.advance(5 * 60_000);
  assert.deepEqual(budget.next(), { restart: true, delayMs: 1000, attempt: 1 });
});

test('the backoff override is for tests; anything unparsable keeps 1 s', () => {
  assert.equal(restartBackoffMs({}), 1000);
  assert.equal(restartBackoffMs({ ZOT_EXT_RESTART_BACKOFF_MS: '20' }), 20);
  assert.equal(restartBackoffMs({ ZOT_EXT_RESTART_BACKOFF_MS: '-5' }), 1000);
  assert.equal(restartBackoffMs({ ZOT_EXT_RESTART_BACKOFF_MS: 'soon' }), 1000);
});

test('a crash after ready: reported, calls get "restarting" at once, then it is back with a fresh hello_ack', async (t) => {
  let model = 'model-1';
  const f = supervised(
    { kit: { commands: ['go'], tools: ['kit_tool'] } },
    { model: () => ({ provider: 'test', model }) },
  );
  t.after(() => f.cleanup());
  await f.host.start();
  const first = f.fakes.get('kit')!;
  first.send({ type: 'notify', message: 'from the first process' });
  await settle();
  const tool = f.host.toolSource.find('kit_tool')!;
  await first.exit(7);
  await settle();
  const [crash] = f.ofType('ext_error');
  assert.match(
    String((crash as { message: string }).message),
    /^extension kit exited with status 7; restarting in 1 s \(restart 1 of 3\)$/,
  );
  assert.deepEqual(f.clock.pending(), [1000]);
  // While it restarts: tools and commands fail at once, saying so.
  const during = await tool.execute({}, toolContext());
  assert.equal(during.isError, true);
  assert.deepEqual(during.content, [
    { type: 'text', text: 'extension kit is restarting, try again' },
  ]);
  const command = await f.host.runCommand('go', '');
  assert.deepEqual(command, {
    kind: 'error',
    extension: 'kit',
    message: '/go: extension kit is restarting, try again',
  });
  model = 'model-2'; // switched while it was down
  f.clock.advance(1000);
  await settle();
  const second = f.fakes.get('kit')!;
  assert.notEqual(second, first, 'a fresh process');
  assert.equal((await second.next('hello_ack')).model, 'model-2');
  assert.deepEqual(f.ofType('ext_restarted'), [
    { type: 'ext_restarted', extension: 'kit', restarts: 1 },
  ]);
  assert.deepEqual(f.ofType('ext_clear_notes'), [{ type: 'ext_clear_notes', extension: 'kit' }]);
  assert.equal(f.host.notes.notes.length, 0);
  // The Tool object from before the crash reaches the new process.
  const after = tool.execute({}, toolContext());
  const call = await second.next('tool_call');
  second.send({ type: 'tool_result', id: call.id, content: [{ type: 'text', text: 'again' }] });
  assert.deepEqual((await after).content, [{ type: 'text', text: 'again' }]);
  assert.match(
    f.log('kit'),
    /exited with status 7; restart 1 \(1 of at most 3 within 5 minutes\) in 1 s/,
  );
  assert.match(f.log('kit'), /restarted \(restart 1; pid/);
  await f.host.shutdown();
});

test('activated deferred tools stay active across a restart; session_start is replayed', async (t) => {
  const f = supervised({
    kit: {
      tools: ['loader'],
      deferredTools: ['hidden'],
      onFrame(frame, fake) {
        if (frame.type === 'hello_ack')
          fake.send({ type: 'subscribe', events: ['session_start'], intercept: [] });
        if (frame.type === 'tool_call')
          fake.send({
            type: 'tool_result',
            id: frame.id,
            content: [{ type: 'text', text: 'loaded' }],
            activate_tools: ['hidden'],
          });
      },
    },
  });
  t.after(() => f.cleanup());
  await f.host.start();
  const names = () => f.host.toolSource.active().map((tool) => tool.name);
  assert.deepEqual(names(), ['loader']);
  await f.host.toolSource.find('loader')!.execute({}, toolContext());
  assert.deepEqual(names(), ['loader', 'hidden']);
  await f.fakes.get('kit')!.exit(1);
  await settle();
  f.clock.advance(1000);
  await settle();
  assert.equal(f.ofType('ext_restarted').length, 1);
  assert.deepEqual(names(), ['loader', 'hidden'], 'still active after the restart');
  await f.fakes.get('kit')!.next('event', (frame) => frame.event === 'session_start');
  await f.host.shutdown();
});

test('a crash loop: 1 s, 2 s, 4 s, then it stays down until a reload, which starts afresh', async (t) => {
  const f = supervised({ kit: { tools: ['kit_tool'] } });
  t.after(() => f.cleanup());
  await f.host.start();
  for (const delay of [1000, 2000, 4000]) {
    await f.fakes.get('kit')!.exit(9);
    await settle();
    assert.deepEqual(f.clock.pending(), [delay]);
    f.clock.advance(delay);
    await settle();
  }
  assert.equal(f.ofType('ext_restarted').length, 3);
  await f.fakes.get('kit')!.exit(9);
  await settle();
  assert.deepEqual(f.clock.pending(), [], 'no fourth restart');
  const last = f.ofType('ext_error').at(-1) as { message: string };
  assert.match(
    last.message,
    /restarted 3 times within 5 minutes, so it stays down until \/reload-ext/,
  );
  const output = await f.host.toolSource.find('kit_tool')!.execute({}, toolContext());
  assert.match(
    (output.content[0] as { text: string }).text,
    /^extension kit is not running \(exited with status 9; restarted 3 times within 5 minutes; stays down until \/reload-ext\); see /,
  );
  assert.equal(f.ofType('ext_error').length, 4, 'one report per crash');
  await f.host.reload();
  await f.fakes.get('kit')!.exit(9);
  await settle();
  assert.deepEqual(f.clock.pending(), [1000], 'a reload resets the budget');
  await f.host.shutdown();
  assert.deepEqual(f.clock.pending(), [], 'shutdown cancels a pending restart');
});

test('restart "never": reported once, never restarted', async (t) => {
  const f = supervised({ kit: { tools: ['kit_tool'], manifest: { restart: 'never' } } });
  t.after(() => f.cleanup());
  await f.host.start();
  await f.fakes.get('kit')!.exit(2);
  await settle();
  assert.deepEqual(f.clock.pending(), []);
  assert.deepEqual(
    f.ofType('ext_error').map((e) => (e as { message: string }).message),
    ['extension kit exited with status 2; not restarted ("restart": "never" in its manifest)'],
  );
  const output = await f.host.toolSource.find('kit_tool')!.execute({}, toolContext());
  assert.match(
    (output.content[0] as { text: string }).text,
    /not restarted \("restart": "never"\)/,
  );
  await f.host.shutdown();
});

test('a restart that fails before ready is one more crash on the same budget', async (t) => {
  let spawns = 0;
  const f = supervised({ kit: { exitBeforeHello: () => (++spawns === 2 ? 5 : undefined) } });
  t.after(() => f.cleanup());
  await f.host.start();
  await f.fakes.get('kit')!.exit(1);
  await settle();
  f.clock.advance(1000);
  await settle();
  const messages = f.ofType('ext_error').map((e) => (e as { message: string }).message);
  assert.equal(messages.length, 2);
  assert.match(
    messages[1]!,
    /^extension kit failed to restart: exited with status 5 before sending hello; restarting in 2 s \(restart 2 of 3\)$/,
  );
  f.clock.advance(2000);
  await settle();
  assert.deepEqual(f.ofType('ext_restarted'), [
    { type: 'ext_restarted', extension: 'kit', restarts: 2 },
  ]);
  assert.equal(spawns, 3);
  await f.host.shutdown();
});

test('a failure before the first ready is a load error and is not restarted', async (t) => {
  const f = supervised({ kit: { exitBeforeHello: () => 3 } });
  t.after(() => f.cleanup());
  const [report] = await f.host.start();
  assert.equal(report?.status, 'failed');
  assert.deepEqual(f.clock.pending(), []);
  await f.host.shutdown();
});

test('a restart passes the trust gate again: a refusal leaves it down, reported once', async (t) => {
  let checks = 0;
  const f = supervised(
    { kit: { tools: ['kit_tool'] } },
    {
      allow: () =>
        ++checks === 1 ? undefined : 'project extension kit changed since you trusted it',
    },
  );
  t.after(() => f.cleanup());
  await f.host.start();
  await f.fakes.get('kit')!.exit(1);
  await settle();
  f.clock.advance(1000);
  await settle();
  assert.equal(checks, 2);
  assert.deepEqual(f.ofType('ext_restarted'), []);
  const last = f.ofType('ext_error').at(-1) as { message: string };
  assert.equal(
    last.message,
    'extension kit was not restarted: project extension kit changed since you trusted it',
  );
  const output = await f.host.toolSource.find('kit_tool')!.execute({}, toolContext());
  assert.match(
    (output.content[0] as { text: string }).text,
    /not restarted: project extension kit changed/,
  );
  assert.deepEqual(f.clock.pending(), []);
  await f.host.shutdown();
});
