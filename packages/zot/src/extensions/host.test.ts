// ExtensionHost over in-memory links: handshake, reply types, panel ownership, notes, exit hook.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FrameFromHost } from '@zot/protocol';
import { fakeHost, type FakeScript } from './fake-extension.fixture.js';
import { extensionTimeouts } from './timeouts.js';

/** In-memory delivery runs on microtasks: after this, everything sent has been handled. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

const toolContext = () => ({
  cwd: '/',
  toolCallId: 'c1',
  signal: new AbortController().signal,
  onProgress: () => undefined,
});

/** Answers command `name` by opening panel `panelId`. */
function panelOpener(name: string, panelId: string): FakeScript {
  return {
    commands: [name],
    onFrame(frame, fake) {
      if (frame.type !== 'command_invoked' || frame.name !== name) return;
      fake.send({
        type: 'command_response',
        id: frame.id,
        action: 'open_panel',
        open_panel: { id: panelId, title: 'T', lines: ['one'], footer: 'esc closes' },
      });
    },
  };
}

test('handshake: hello_ack carries the host info; registrations and ready make it ready', async (t) => {
  const f = fakeHost({ kit: { commands: ['Go'], tools: ['kit_tool'] } });
  t.after(() => f.cleanup());
  const [report] = await f.host.start();
  assert.equal(report?.status, 'ready');
  const ack = await f.fakes.get('kit')!.next('hello_ack');
  assert.equal(ack.protocol_version, 1);
  assert.equal(ack.provider, 'test');
  assert.match(ack.extension_dir ?? '', /kit$/);
  assert.deepEqual(
    f.host.commands().map((c) => c.name),
    ['Go'],
  );
  assert.ok(f.host.toolSource.find('kit_tool'));
  await f.host.shutdown();
  assert.match(f.log('kit'), /shutdown_ack received/);
});

test('a reply of another type with a pending call id is dropped and logged; the call waits', async (t) => {
  const f = fakeHost({ kit: { tools: ['kit_tool'] } });
  t.after(() => f.cleanup());
  await f.host.start();
  const fake = f.fakes.get('kit')!;
  const result = f.host.toolSource.find('kit_tool')!.execute({}, toolContext());
  const call = await fake.next('tool_call');
  fake.send({ type: 'command_response', id: call.id, action: 'display', display: 'wrong' });
  fake.send({ type: 'tool_result', id: call.id, content: [{ type: 'text', text: 'right' }] });
  const output = await result;
  assert.deepEqual(output.content, [{ type: 'text', text: 'right' }]);
  assert.match(
    f.log('kit'),
    new RegExp(`ignored a command_response for request ${call.id}, which awaits a tool_result`),
  );
  await f.host.shutdown();
});

test('panels: only the owner renders or closes; keys are a closed set; esc closes', async (t) => {
  const f = fakeHost({ a: panelOpener('todo', 'p'), b: {} });
  t.after(() => f.cleanup());
  await f.host.start();
  const [a, b] = [f.fakes.get('a')!, f.fakes.get('b')!];
  const outcome = await f.host.runCommand('todo', '');
  assert.equal(outcome.kind, 'response');
  assert.deepEqual(f.host.openPanel(), {
    extension: 'a',
    id: 'p',
    title: 'T',
    lines: ['one'],
    footer: 'esc closes',
  });
  // Another extension cannot draw on or close a panel it does not own.
  b.send({ type: 'panel_render', panel_id: 'p', lines: ['hijacked'] });
  b.send({ type: 'panel_close', panel_id: 'p' });
  a.send({ type: 'panel_render', panel_id: 'p', lines: ['two', 'three'] });
  a.send({ type: 'panel_render', panel_id: 'elsewhere', lines: ['x'] });
  await settle();
  const panelEvents = f.events.filter((e) => e.type.startsWith('ext_panel'));
  assert.deepEqual(panelEvents, [
    { type: 'ext_panel_render', extension: 'a', panel_id: 'p', lines: ['two', 'three'] },
  ]);
  assert.deepEqual(f.host.openPanel()?.lines, ['two', 'three']);
  assert.match(f.log('b'), /ignored panel_render for panel "p": it belongs to extension a/);
  assert.match(f.log('b'), /ignored panel_close for panel "p": it belongs to extension a/);
  assert.match(f.log('a'), /ignored panel_render for panel "elsewhere": no such panel is open/);

  const unknown = f.host.panelKey('p', 'escape');
  assert.equal(unknown.ok, false);
  assert.match(!unknown.ok ? unknown.error : '', /unknown panel key "escape" \(one of up, down/);
  assert.equal(f.host.panelKey('p', 'rune').ok, false, 'rune needs text');
  assert.equal(f.host.panelKey('q', 'down').ok, false, 'no such panel');
  assert.deepEqual(f.host.panelKey('p', 'rune', 'x'), { ok: true });
  assert.deepEqual(await a.next('panel_key'), {
    type: 'panel_key',
    panel_id: 'p',
    key: 'rune',
    text: 'x',
  } satisfies FrameFromHost);
  assert.deepEqual(f.host.panelKey('p', 'esc'), { ok: true });
  await a.next('panel_close');
  assert.equal(f.host.openPanel(), undefined);
  assert.deepEqual(f.events.at(-1), { type: 'ext_panel_close', extension: 'a', panel_id: 'p' });
  assert.ok(!a.received.some((frame) => frame.type === 'panel_key' && frame.key === 'esc'));
  await f.host.shutdown();
});

test('a panel closes with its extension: on a crash and on a reload', async (t) => {
  const f = fakeHost({ a: panelOpener('todo', 'p') });
  t.after(() => f.cleanup());
  await f.host.start();
  await f.host.runCommand('todo', '');
  await f.fakes.get('a')!.exit(3);
  assert.equal(f.host.openPanel(), undefined);
  const crash = f.events.findIndex((e) => e.type === 'ext_error');
  assert.deepEqual(f.events.slice(crash + 1), [
    { type: 'ext_panel_close', extension: 'a', panel_id: 'p' },
  ]);
  await f.host.reload();
  await f.host.runCommand('todo', '');
  const before = f.events.length;
  await f.host.reload();
  assert.deepEqual(
    f.events.slice(before).filter((e) => e.type === 'ext_panel_close'),
    [{ type: 'ext_panel_close', extension: 'a', panel_id: 'p' }],
  );
  await f.host.shutdown();
});

test('notes cleared for any reason emit ext_clear_notes once per extension that had some', async (t) => {
  const f = fakeHost({ a: {}, b: {}, c: {} });
  t.after(() => f.cleanup());
  await f.host.start();
  const note = (name: string, message: string) =>
    f.fakes.get(name)!.send({ type: 'notify', message });
  note('a', 'one');
  note('a', 'two');
  note('b', 'three');
  f.fakes.get('c')!.send({ type: 'display', text: 'shown' });
  f.fakes.get('c')!.send({ type: 'clear_notes' });
  await settle();
  assert.equal(f.host.notes.notes.length, 3);
  const clears = () => f.events.filter((e) => e.type === 'ext_clear_notes');
  assert.deepEqual(clears(), [{ type: 'ext_clear_notes', extension: 'c' }]);
  assert.deepEqual(f.host.notes.clearAll(), ['a', 'b']); // what the session does per prompt
  assert.deepEqual(clears().slice(1), [
    { type: 'ext_clear_notes', extension: 'a' },
    { type: 'ext_clear_notes', extension: 'b' },
  ]);
  assert.deepEqual(f.host.notes.clearAll(), [], 'nothing left, nothing emitted');
  note('b', 'again');
  await settle();
  await f.host.reload();
  assert.deepEqual(clears().at(-1), { type: 'ext_clear_notes', extension: 'b' });
  assert.equal(clears().length, 4);
  await f.host.shutdown();
});

test('hosts started and shut down repeatedly leave no exit listener behind', async (t) => {
  const listeners = process.listenerCount('exit');
  for (let i = 0; i < 12; i++) {
    const f = fakeHost({ a: {} });
    t.after(() => f.cleanup());
    await f.host.start();
    assert.equal(process.listenerCount('exit'), listeners + 1, 'the hook while running');
    await f.host.shutdown();
  }
  assert.equal(process.listenerCount('exit'), listeners);
});

test("a manifest's ready_timeout_ms is its ready deadline, unless ZOT_EXT_READY_TIMEOUT_MS is set", async (t) => {
  // Both say ready after the default deadline; only the one that asked for more time is waited for.
  const scripts = {
    quick: { tools: ['q'], readyAfterMs: 200 },
    patient: { tools: ['p'], readyAfterMs: 200, manifest: { ready_timeout_ms: 60_000 } },
  };
  const timeouts = { ...extensionTimeouts({}), readyMs: 20 };
  const f = fakeHost(scripts, { timeouts });
  t.after(() => f.cleanup());
  const reports = await f.host.start();
  const status = Object.fromEntries(reports.map((r) => [r.name, [r.status, r.error]]));
  assert.deepEqual(status.quick, ['failed', 'no "ready" within 20 ms of hello']);
  assert.deepEqual(status.patient, ['ready', undefined]);
  await f.host.shutdown();

  const set = fakeHost(scripts, { timeouts: { ...timeouts, readyFromEnv: true } });
  t.after(() => set.cleanup());
  const overridden = await set.host.start();
  assert.deepEqual(
    overridden.map((r) => r.status),
    ['failed', 'failed'],
    'the variable, when set, is for every extension',
  );
  await set.host.shutdown();
});

test('startEarly: the extensions start before anyone subscribes; their events wait for the first subscriber', async (t) => {
  const f = fakeHost(
    {
      noisy: {
        tools: ['n'],
        onFrame(frame, fake) {
          if (frame.type === 'hello_ack')
            fake.send({ type: 'notify', level: 'info', message: 'up' });
        },
      },
      broken: { exitBeforeHello: () => 3 },
    },
    { subscribe: false },
  );
  t.after(() => f.cleanup());
  f.host.startEarly();
  await f.fakes.get('noisy')!.next('hello_ack');
  await settle();
  const seen: string[] = [];
  f.host.subscribe((event) => seen.push(event.type));
  const reports = await f.host.start(); // the early start, not a second one
  assert.deepEqual(
    reports.map((r) => [r.name, r.status]),
    [
      ['noisy', 'ready'],
      ['broken', 'failed'],
    ],
  );
  assert.equal(f.fakes.size, 2, 'each extension was spawned once');
  assert.deepEqual(seen, ['ext_notify', 'ext_error']);
  await f.host.shutdown();
});
