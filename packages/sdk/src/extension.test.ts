// The SDK over the in-memory link: handshake order, bad frames, panels and notes, shutdown
// (requests.test.ts: commands, tools and interceptions).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TestHost, type Received } from './test-host.fixture.js';
import type { FrameFromHost } from '@zot/protocol';

const types = (frames: Received[]) => frames.map((f) => f.type);

test('handshake: hello first, nothing else before hello_ack, onHello, registrations, ready', async () => {
  const h = new TestHost();
  const seen: string[] = [];
  h.ext.notify('info', 'early note');
  h.ext.command('one', 'first', () => 'one');
  h.ext.tool('t', 'a tool', { type: 'object', properties: {} }, () => 'ok');
  h.ext.on('turn_end', () => undefined);
  h.ext.interceptToolCall(() => undefined);
  h.ext.onHello(async (host) => {
    seen.push(`${host.cwd} ${host.model} ${host.zotVersion} ${host.dataDir} ${host.provider}`);
    await new Promise((r) => setTimeout(r, 10));
    h.ext.command('two', `in ${host.cwd}`, () => 'two');
  });
  const running = h.ext.run();
  const hello = await h.waitType('hello');
  assert.deepEqual(hello, {
    type: 'hello',
    name: 'test',
    version: '1.2.3',
    protocol_version: 2,
    capabilities: ['commands', 'tools', 'events'],
  });
  await new Promise((r) => setTimeout(r, 30));
  assert.deepEqual(types(h.frames), ['hello', 'notify'], 'waits for hello_ack');
  h.ack();
  await h.waitType('ready');
  assert.deepEqual(seen, ['/project m1 9.9.9 /ext anthropic']);
  assert.deepEqual(types(h.frames), [
    'hello',
    'notify',
    'register_command',
    'register_command',
    'register_tool',
    'subscribe',
    'ready',
  ]);
  assert.deepEqual(h.frames[3], {
    type: 'register_command',
    name: 'two',
    description: 'in /project',
  });
  assert.deepEqual(h.frames[5], {
    type: 'subscribe',
    events: ['turn_end'],
    intercept: ['tool_call'],
  });
  assert.equal(h.ext.host.model, 'm1');
  h.send({ type: 'shutdown' });
  await running;
  assert.deepEqual(h.exits, [0]);
});

test('bad frames from the host are logged and dropped; a malformed request gets an error reply', async () => {
  const h = new TestHost();
  h.ext.tool('t', 'x', { type: 'object' }, () => 'ok');
  await h.start();
  const from = h.frames.length;
  h.sendRaw('not json');
  h.sendRaw('{"type":"mystery"}');
  h.sendRaw('{"type":"tool_call","id":"bad","name":"t","args":"a string"}');
  const reply = await h.waitFor((f): f is Received => 'id' in f && f.id === 'bad', from);
  assert.equal((reply as { is_error?: boolean }).is_error, true);
  const ok = await h.request({ type: 'tool_call', name: 't', args: {} });
  assert.equal(ok.type, 'tool_result');
  const log = h.stderr.join('');
  assert.match(log, /invalid JSON/);
  assert.match(log, /unknown frame type "mystery"/);
});

test('a host line that is not UTF-8 is logged and dropped, not read with U+FFFD', async () => {
  const h = new TestHost();
  h.ext.tool('t', 'x', { type: 'object' }, () => 'ok');
  await h.start();
  const from = h.frames.length;
  h.sendRaw(
    Buffer.concat([
      Buffer.from('{"type":"tool_call","id":"latin1","name":"t","args":{"city":"M'),
      Buffer.from([0xfc]), // ü in Latin-1
      Buffer.from('nchen"}}'),
    ]),
  );
  const ok = await h.request({ type: 'tool_call', name: 't', args: {} });
  assert.equal(ok.type, 'tool_result');
  assert.deepEqual(
    h.frames.slice(from).filter((f) => 'id' in f && f.id === 'latin1'),
    [],
  );
  assert.match(h.stderr.join(''), /dropped a 71-byte line that is not valid UTF-8/);
});

test('events, panels, notes, submit; registrations after ready go out at once', async () => {
  const h = new TestHost();
  const events: string[] = [];
  h.ext.on('tool_call', (e) => void events.push(`tool ${e.tool_name}`));
  h.ext.on('turn_end', (e) => void events.push(`end ${e.stop}`));
  h.ext.onPanelKey((k) => void events.push(`key ${k.panelId} ${k.key} ${k.text ?? ''}`));
  // panel_close is sent last, and frames are handled in order: once it is seen, all are
  let closed!: () => void;
  const allHandled = new Promise<void>((resolve) => (closed = resolve));
  h.ext.onPanelClose((id) => {
    events.push(`closed ${id}`);
    closed();
  });
  const { running } = await h.start();
  assert.deepEqual((await h.waitType('hello')).capabilities, ['events', 'panels']);
  const from = h.frames.length;
  h.send({ type: 'event', event: 'tool_call', tool_name: 'read', tool_args: {} });
  h.send({ type: 'event', event: 'turn_end', stop: 'end_turn' });
  h.send({ type: 'event', event: 'session_start' });
  h.send({ type: 'panel_key', panel_id: 'p', key: 'rune', text: 'x' });
  h.send({ type: 'panel_key', panel_id: 'p', key: 'down' });
  h.send({ type: 'panel_close', panel_id: 'p' });
  h.ext.openPanel({ id: 'p', title: 'Ask', lines: ['ok?'], footer: 'y/n' });
  h.ext.renderPanel({ id: 'p', lines: ['two'] });
  h.ext.closePanel('p');
  h.ext.notify('warn', 'careful');
  h.ext.clearNotes();
  h.ext.submit('do it');
  h.ext.command('late', 'registered after ready', () => 'late');
  h.ext.tool('late_tool', 'x', { type: 'object' }, () => 'x');
  h.ext.on('turn_start', () => undefined);
  await h.waitType('subscribe', from);
  assert.deepEqual(h.frames.slice(from), [
    { type: 'open_panel', panel: { id: 'p', title: 'Ask', lines: ['ok?'], footer: 'y/n' } },
    { type: 'panel_render', panel_id: 'p', lines: ['two'] },
    { type: 'panel_close', panel_id: 'p' },
    { type: 'notify', level: 'warn', message: 'careful' },
    { type: 'clear_notes' },
    { type: 'submit', text: 'do it' },
    { type: 'register_command', name: 'late', description: 'registered after ready' },
    { type: 'register_tool', name: 'late_tool', description: 'x', schema: { type: 'object' } },
    { type: 'subscribe', events: ['tool_call', 'turn_end', 'turn_start'], intercept: [] },
  ]);
  await allHandled;
  assert.deepEqual(events, [
    'tool read',
    'end end_turn',
    'key p rune x',
    'key p down ',
    'closed p',
  ]);
  const late = (await h.request({ type: 'command_invoked', name: 'late', args: '' })) as {
    display?: string;
  };
  assert.equal(late.display, 'late');
  h.send({ type: 'shutdown' });
  await running;
});

test('shutdown: onShutdown runs, shutdown_ack, exit 0; a hanging hook is cut at the budget', async () => {
  const h = new TestHost({ shutdownTimeoutMs: 50 });
  const order: string[] = [];
  h.ext.onShutdown(async () => {
    await new Promise((r) => setTimeout(r, 10));
    order.push('saved');
  });
  h.ext.onShutdown(() => new Promise(() => undefined)); // never settles
  const { running } = await h.start();
  const began = Date.now();
  h.send({ type: 'shutdown' });
  await running;
  assert.ok(Date.now() - began < 1000);
  assert.deepEqual(order, ['saved']);
  assert.equal(h.frames.at(-1)?.type, 'shutdown_ack');
  assert.deepEqual(h.exits, [0]);
});

test('the host going away before hello_ack ends run() without registering', async () => {
  const h = new TestHost();
  let hooks = 0;
  h.ext.onShutdown(() => void hooks++);
  h.ext.command('c', 'c', () => 'c');
  const running = h.ext.run();
  await h.waitType('hello');
  // Severs the link from the host's side.
  await (h as unknown as { hostEnd: { terminate(): Promise<void> } }).hostEnd.terminate();
  await running;
  assert.deepEqual(types(h.frames), ['hello']);
  assert.equal(hooks, 1);
  assert.deepEqual(h.exits, [0]);
  await assert.rejects(h.ext.run(), /already called/);
});

test('shutdown answers requests already taken before shutdown_ack', async () => {
  const h = new TestHost();
  h.ext.tool('slow', 'x', { type: 'object' }, async () => {
    await new Promise((r) => setTimeout(r, 30));
    return 'finished';
  });
  const { running } = await h.start();
  h.send({ type: 'tool_call', id: 's1', name: 'slow', args: {} });
  h.send({ type: 'shutdown' });
  await running;
  assert.deepEqual(
    h.frames.slice(-2).map((f) => [f.type, 'id' in f ? f.id : '']),
    [
      ['tool_result', 's1'],
      ['shutdown_ack', ''],
    ],
  );
});

test('requests that arrive before ready are handled after the registrations are out', async () => {
  const h = new TestHost();
  h.ext.onHello(() => new Promise((r) => setTimeout(r, 20)));
  h.ext.command('c', 'c', () => 'early');
  const running = h.ext.run();
  await h.waitType('hello');
  h.ack();
  h.send({ type: 'command_invoked', id: 'e1', name: 'c', args: '' });
  h.send({ type: 'shutdown' });
  await running;
  assert.deepEqual(types(h.frames), [
    'hello',
    'register_command',
    'ready',
    'command_response',
    'shutdown_ack',
  ]);
});

test('a tool registered again with another description, schema or deferral is announced again', async () => {
  const h = new TestHost();
  h.ext.tool('t', 'first', { type: 'object' }, () => 'a');
  await h.start();
  const from = h.frames.length;
  h.ext.tool('t', 'first', { type: 'object' }, () => 'same registration, new handler');
  h.ext.tool('t', 'second', { type: 'object' }, () => 'b');
  h.ext.tool('t', 'second', { type: 'object', properties: { x: { type: 'string' } } }, () => 'c');
  h.ext.tool('t', 'second', { type: 'object', properties: { x: { type: 'string' } } }, () => 'd', {
    deferred: true,
  });
  h.ext.command('end', 'marks the end', () => 'x');
  await h.waitType('register_command', from);
  assert.deepEqual(
    h.frames.slice(from).map((f) => JSON.stringify(f)),
    [
      { type: 'register_tool', name: 't', description: 'second', schema: { type: 'object' } },
      {
        type: 'register_tool',
        name: 't',
        description: 'second',
        schema: { type: 'object', properties: { x: { type: 'string' } } },
      },
      {
        type: 'register_tool',
        name: 't',
        description: 'second',
        schema: { type: 'object', properties: { x: { type: 'string' } } },
        deferred: true,
      },
      { type: 'register_command', name: 'end', description: 'marks the end' },
    ].map((f) => JSON.stringify(f)),
  );
  const reply = await h.request({ type: 'tool_call', name: 't', args: {} });
  assert.equal(reply.content[0].text, 'd', 'the last handler answers');
});

test('a shutdown while an onHello hook waits aborts its signal; ready and the ack still follow', async () => {
  const h = new TestHost();
  let aborted = false;
  h.ext.onHello(
    (_host, signal) =>
      new Promise<void>((resolve) => {
        const stop = () => {
          aborted = true;
          resolve();
        };
        if (signal.aborted) stop();
        else signal.addEventListener('abort', stop);
      }),
  );
  h.ext.command('c', 'c', () => 'c');
  const running = h.ext.run();
  await h.waitType('hello');
  h.ack();
  h.send({ type: 'shutdown' });
  await running;
  assert.equal(aborted, true);
  assert.deepEqual(types(h.frames), ['hello', 'register_command', 'ready', 'shutdown_ack']);
  assert.deepEqual(h.exits, [0]);
});

test('ext.ui: each answer kind reaches the caller; a value that does not fit, a cancel and shutdown read as cancelled', async () => {
  const h = new TestHost();
  const { running } = await h.start({ protocol_version: 2 });
  const ask = async <T>(question: Promise<T>, answer: Record<string, unknown>) => {
    const from = h.frames.length - 1;
    const asked = await h.waitFor(
      (f): f is Extract<Received, { type: 'ui_request' }> =>
        f.type === 'ui_request' && h.frames.indexOf(f) > from,
    );
    h.send({ type: 'ui_response', id: asked.id, ...answer } as FrameFromHost);
    return { asked, answer: await question };
  };
  const yes = await ask(h.ext.ui.confirm('Go?', { timeoutMs: 5000 }), { value: true });
  assert.deepEqual(yes.answer, { ok: true, value: true });
  assert.equal(yes.asked.timeout_ms, 5000);
  const no = await ask(h.ext.ui.confirm('Go?'), { value: false });
  assert.deepEqual(no.answer, { ok: true, value: false });
  const picked = await ask(h.ext.ui.select('Which?', ['a', 'b']), { value: 'b' });
  assert.deepEqual(picked.answer, { ok: true, value: 'b' });
  assert.deepEqual(picked.asked.options, ['a', 'b']);
  const strange = await ask(h.ext.ui.select('Which?', ['a']), { value: 'z' });
  assert.deepEqual(strange.answer, { ok: false, reason: 'cancelled' });
  const typed = await ask(h.ext.ui.input('Key?', { mask: true }), { value: 'k3y' });
  assert.deepEqual(typed.answer, { ok: true, value: 'k3y' });
  assert.equal(typed.asked.mask, true);
  const dismissed = await ask(h.ext.ui.input('Name?'), { cancelled: true });
  assert.deepEqual(dismissed.answer, { ok: false, reason: 'cancelled' });
  const nobody = await ask(h.ext.ui.confirm('Anyone?'), { unavailable: true });
  assert.deepEqual(nobody.answer, { ok: false, reason: 'unavailable' });
  const open = h.ext.ui.confirm('Still there?');
  await h.waitFor((f): f is Received => f.type === 'ui_request' && f.title === 'Still there?');
  h.send({ type: 'shutdown' } as FrameFromHost);
  assert.deepEqual(await open, { ok: false, reason: 'cancelled' });
  await running;
});
