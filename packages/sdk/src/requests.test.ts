// The SDK answering requests over the in-memory link: commands, tool calls and interceptions,
// errors as replies, concurrency, and replies checked before they are written.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  allow,
  block,
  display,
  error,
  image,
  insert,
  modify,
  noop,
  openPanel,
  prompt,
  replaceText,
  results,
  text,
  toolError,
} from './index.js';
import { TestHost, type Received } from './test-host.fixture.js';

test('commands: every action, strings display, undefined is noop, case-insensitive names', async () => {
  const h = new TestHost();
  const actions = {
    p: prompt('go'),
    i: insert('typed'),
    d: display('shown'),
    o: openPanel({ id: 'p1', title: 'T', lines: ['a'], footer: 'esc' }),
    n: noop(),
    e: error('nope'),
  };
  for (const [name, result] of Object.entries(actions)) h.ext.command(name, name, () => result);
  h.ext.command('Echo', 'echo', (args, ctx) => `${ctx.name}:${args}`);
  h.ext.command('nothing', 'nothing', () => undefined);
  await h.start();
  const reply = async (name: string, args = '') => {
    const { id, ...rest } = await h.request({ type: 'command_invoked', name, args });
    assert.ok(id);
    return rest;
  };
  assert.deepEqual(await reply('p'), { type: 'command_response', action: 'prompt', prompt: 'go' });
  assert.deepEqual(await reply('i'), {
    type: 'command_response',
    action: 'insert',
    insert: 'typed',
  });
  assert.deepEqual(await reply('d'), {
    type: 'command_response',
    action: 'display',
    display: 'shown',
  });
  assert.deepEqual(await reply('o'), {
    type: 'command_response',
    action: 'open_panel',
    open_panel: { id: 'p1', title: 'T', lines: ['a'], footer: 'esc' },
  });
  assert.deepEqual(await reply('n'), { type: 'command_response', action: 'noop' });
  assert.deepEqual(await reply('e'), { type: 'command_response', action: 'noop', error: 'nope' });
  assert.deepEqual(await reply('echo', 'x y'), {
    type: 'command_response',
    action: 'display',
    display: 'Echo:x y',
  });
  assert.deepEqual(await reply('nothing'), { type: 'command_response', action: 'noop' });
  assert.match(String((await reply('missing'))['error']), /unknown command \/missing/);
});

test('a throwing or rejecting handler becomes an error reply and a stderr line, never a crash', async () => {
  const h = new TestHost();
  h.ext.command('boom', 'x', () => {
    throw new Error('kaput');
  });
  h.ext.tool('bad', 'x', { type: 'object' }, async () => {
    await Promise.resolve();
    throw new Error('tool kaput');
  });
  h.ext.on('turn_start', () => {
    throw new Error('observer kaput');
  });
  await h.start();
  const command = (await h.request({ type: 'command_invoked', name: 'boom', args: '' })) as {
    error?: string;
  };
  assert.match(command.error ?? '', /\/boom failed: kaput/);
  const tool = await h.request({ type: 'tool_call', name: 'bad', args: {} });
  assert.deepEqual(tool, {
    type: 'tool_result',
    id: tool.id,
    content: [{ type: 'text', text: 'tool bad failed: tool kaput' }],
    is_error: true,
  });
  h.send({ type: 'event', event: 'turn_start', step: 1 });
  const unknown = await h.request({ type: 'tool_call', name: 'nope', args: {} });
  assert.match(JSON.stringify(unknown), /unknown tool nope/);
  const log = h.stderr.join('');
  assert.match(log, /\/boom failed: Error: kaput/);
  assert.match(log, /tool bad failed: Error: tool kaput/);
  assert.match(log, /on turn_start failed: Error: observer kaput/);
});

test('tools: typed args, text/image/error/results helpers, deferred tools and activateTools', async () => {
  const h = new TestHost();
  h.ext.tool(
    'weather',
    'weather',
    {
      type: 'object',
      properties: {
        city: { type: 'string' },
        days: { type: 'integer' },
        units: { enum: ['c', 'f'] },
      },
      required: ['city'],
    },
    (args) => {
      const city: string = args.city;
      const days: number | undefined = args.days;
      const units: 'c' | 'f' | undefined = args.units;
      return text(`${city} ${days ?? 1} ${units ?? 'c'}`);
    },
  );
  h.ext.tool('pic', 'pic', { type: 'object' }, () =>
    results(text('a'), image('image/png', 'AAAA')),
  );
  h.ext.tool('fail', 'fail', { type: 'object' }, () => toolError('bad input'));
  h.ext.tool('hidden', 'later', { type: 'object' }, () => 'hidden ran', { deferred: true });
  h.ext.tool('loader', 'unlock', { type: 'object' }, () => {
    h.ext.activateTools(['hidden']);
    return 'unlocked';
  });
  h.ext.tool('later_loader', 'unlock after an await', { type: 'object' }, async (_args, ctx) => {
    await new Promise((r) => setTimeout(r, 5));
    ctx.activateTools(['hidden']);
    return 'unlocked later';
  });
  h.ext.tool('loader2', 'unlock', { type: 'object' }, () => text('ok', { activateTools: ['x'] }));
  await h.start();
  const registered = h.frames.filter((f) => f.type === 'register_tool');
  assert.deepEqual(
    registered.map((f) => [f.name, 'deferred' in f ? f.deferred : false]),
    [
      ['weather', false],
      ['pic', false],
      ['fail', false],
      ['hidden', true],
      ['loader', false],
      ['later_loader', false],
      ['loader2', false],
    ],
  );
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const { id: _, ...rest } = await h.request({ type: 'tool_call', name, args });
    return rest;
  };
  assert.deepEqual(await call('weather', { city: 'Berlin', days: 2 }), {
    type: 'tool_result',
    content: [{ type: 'text', text: 'Berlin 2 c' }],
  });
  assert.deepEqual(await call('pic'), {
    type: 'tool_result',
    content: [
      { type: 'text', text: 'a' },
      { type: 'image', mime_type: 'image/png', data: 'AAAA' },
    ],
  });
  assert.deepEqual(await call('fail'), {
    type: 'tool_result',
    content: [{ type: 'text', text: 'bad input' }],
    is_error: true,
  });
  assert.deepEqual(await call('loader'), {
    type: 'tool_result',
    content: [{ type: 'text', text: 'unlocked' }],
    activate_tools: ['hidden'],
  });
  assert.deepEqual((await call('later_loader'))['activate_tools'], ['hidden']);
  assert.deepEqual((await call('loader2'))['activate_tools'], ['x']);
  // Outside a tool handler: on the next result.
  h.ext.activateTools(['later']);
  assert.deepEqual((await call('fail'))['activate_tools'], ['later']);
});

test('handlers run concurrently: a slow call does not hold back a fast one', async () => {
  const h = new TestHost();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  h.ext.tool('slow', 'slow', { type: 'object' }, async () => {
    await gate;
    return 'slow';
  });
  h.ext.tool('fast', 'fast', { type: 'object' }, () => 'fast');
  await h.start();
  const from = h.frames.length;
  h.send({ type: 'tool_call', id: 's', name: 'slow', args: {} });
  h.send({ type: 'tool_call', id: 'f', name: 'fast', args: {} });
  await h.waitFor((f): f is Received => 'id' in f && f.id === 'f', from);
  assert.ok(!h.frames.some((f) => 'id' in f && f.id === 's'), 'slow answered first');
  release();
  await h.waitFor((f): f is Received => 'id' in f && f.id === 's', from);
});

test('interception: undefined allows, block wins, modify and replaceText chain; name and args exposed', async () => {
  const h = new TestHost();
  const seen: string[] = [];
  h.ext.interceptToolCall((call) => {
    seen.push(`${call.id} ${call.name} ${JSON.stringify(call.args)}`);
    if (call.name === 'bash' && String(call.args['command']).includes('rm -rf /')) {
      return block('refused');
    }
    if (call.name === 'bash') return modify({ ...call.args, command: 'echo safe' }, 'rewritten');
    return undefined;
  });
  h.ext.interceptToolCall((call) => {
    seen.push(`second sees ${JSON.stringify(call.args)}`);
    return allow();
  });
  h.ext.interceptTurnStart(({ step }) =>
    step !== undefined && step > 2 ? block('too many') : undefined,
  );
  h.ext.interceptAssistantMessage(({ text }) => replaceText(text.replace('sk-1', '[x]')));
  h.ext.interceptAssistantMessage(({ text }) => replaceText(text.toUpperCase(), 'upper'));
  await h.start();
  const intercept = async (frame: Record<string, unknown>) => {
    const { id: _, ...rest } = await h.request({ type: 'event_intercept', ...frame });
    return rest;
  };
  const base = { event: 'tool_call', tool_id: 'c1', tool_name: 'bash' };
  assert.deepEqual(await intercept({ ...base, tool_args: { command: 'rm -rf /' } }), {
    type: 'event_intercept_response',
    block: true,
    reason: 'refused',
  });
  assert.deepEqual(await intercept({ ...base, tool_args: { command: 'ls', cwd: 'x' } }), {
    type: 'event_intercept_response',
    reason: 'rewritten',
    modified_args: { command: 'echo safe', cwd: 'x' },
  });
  assert.deepEqual(await intercept({ ...base, tool_name: 'read', tool_args: { path: 'a' } }), {
    type: 'event_intercept_response',
  });
  assert.deepEqual(seen, [
    'c1 bash {"command":"rm -rf /"}',
    'c1 bash {"command":"ls","cwd":"x"}',
    'second sees {"command":"echo safe","cwd":"x"}',
    'c1 read {"path":"a"}',
    'second sees {"path":"a"}',
  ]);
  assert.deepEqual(await intercept({ event: 'turn_start', step: 1 }), {
    type: 'event_intercept_response',
  });
  assert.equal((await intercept({ event: 'turn_start', step: 3 }))['block'], true);
  assert.deepEqual(await intercept({ event: 'assistant_message', text: 'key sk-1' }), {
    type: 'event_intercept_response',
    reason: 'upper',
    replace_text: 'KEY [X]',
  });
});

test('a throwing interceptor answers with an error, never an allow; a block too when asked to', async () => {
  for (const policy of ['allow', 'block'] as const) {
    const h = new TestHost({ interceptFailure: policy });
    h.ext.interceptTurnStart(() => {
      throw new Error('oops');
    });
    await h.start();
    const reply = (await h.request({ type: 'event_intercept', event: 'turn_start', step: 1 })) as {
      block?: boolean;
      reason?: string;
      error?: string;
    };
    assert.equal(reply.block, policy === 'block' ? true : undefined);
    assert.match(reply.error ?? '', /turn_start interceptor failed: oops/);
    assert.match(h.stderr.join(''), /turn_start interceptor failed: Error: oops/);
  }
});

test('an interception the SDK cannot read or answer is an error answer, not a decision', async () => {
  const h = new TestHost();
  const seen: unknown[] = [];
  h.ext.interceptToolCall((call) => {
    seen.push(call.args);
    // A rewrite nested past the frame bound cannot be sent back.
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 200; i++) deep = { a: deep };
    return call.name === 'rewrite' ? modify(deep) : block('refused');
  });
  await h.start();
  let args = '{}';
  for (let i = 0; i < 128; i++) args = `{"a":${args}}`;
  h.sendRaw(
    `{"type":"event_intercept","id":"deep","event":"tool_call","tool_name":"x","tool_args":${args}}`,
  );
  const unread = await h.waitFor((f): f is Received => 'id' in f && f.id === 'deep');
  assert.deepEqual(Object.keys(unread).sort(), ['error', 'id', 'type']);
  assert.match((unread as { error: string }).error, /deeper than 128 levels/);
  assert.deepEqual(seen, [], 'no interceptor ran on a frame the SDK could not read');
  const rewrite = await h.request({
    type: 'event_intercept',
    event: 'tool_call',
    tool_name: 'rewrite',
    tool_args: {},
  });
  assert.equal(rewrite['block'], undefined);
  assert.equal(rewrite['modified_args'], undefined);
  assert.match(rewrite['error'], /invalid reply from test: .*deeper than 128 levels/);
});

test('replies are checked at the boundary: an invalid result becomes an error result', async () => {
  const h = new TestHost();
  h.ext.tool('odd', 'x', { type: 'object' }, () => ({
    content: [{ type: 'video' } as never],
  }));
  h.ext.command('odd', 'x', () => ({ action: 'prompt', prompt: 42 }) as never);
  await h.start();
  const tool = (await h.request({ type: 'tool_call', name: 'odd', args: {} })) as {
    is_error?: boolean;
    content?: Array<{ text?: string }>;
  };
  assert.equal(tool.is_error, true);
  assert.match(
    tool.content?.[0]?.text ?? '',
    /invalid reply from test: tool_result: \/content\/0\/type/,
  );
  const command = (await h.request({ type: 'command_invoked', name: 'odd', args: '' })) as {
    error?: string;
  };
  assert.match(
    command.error ?? '',
    /invalid reply from test: command_response: \/prompt must be a string/,
  );
  assert.throws(() => h.ext.notify('loud' as never, 'x'), /notify: \/level must be/);
});

test('cancel: onCancel listeners run once, a late one at once, a throwing one is logged; signal read late is aborted', async () => {
  const h = new TestHost();
  const heard: string[] = [];
  let cancelled!: () => void;
  const gate = new Promise<void>((resolve) => (cancelled = resolve));
  let lateSignal: AbortSignal | undefined;
  h.ext.tool('wait', 'waits for its cancel', { type: 'object' }, async (_args, call) => {
    call.onCancel((reason) => heard.push(`first: ${reason.message}`));
    call.onCancel(() => {
      throw new Error('listener kaput');
    });
    call.onCancel(() => cancelled());
    await gate;
    call.onCancel((reason) => heard.push(`late: ${reason.message}`));
    lateSignal = call.signal;
    return 'stopped';
  });
  await h.start();
  const from = h.frames.length;
  h.send({ type: 'tool_call', id: 'w', name: 'wait', args: {} });
  h.send({ type: 'cancel', id: 'w' });
  h.send({ type: 'cancel', id: 'w' });
  await h.waitFor((f): f is Received => 'id' in f && f.id === 'w', from);
  assert.deepEqual(heard, ['first: cancelled by zot', 'late: cancelled by zot']);
  assert.equal(lateSignal?.aborted, true);
  assert.equal((lateSignal?.reason as Error).message, 'cancelled by zot');
  assert.match(h.stderr.join(''), /onCancel listener failed: Error: listener kaput/);
});

test('cancel: a signal read before the cancel aborts with it; a call not cancelled keeps it unaborted', async () => {
  const h = new TestHost();
  const signals: AbortSignal[] = [];
  let entered!: () => void;
  const inside = new Promise<void>((resolve) => (entered = resolve));
  h.ext.tool('watch', 'reads its signal at once', { type: 'object' }, (_args, call) => {
    signals.push(call.signal);
    entered();
    return new Promise<string>((resolve) =>
      call.signal.addEventListener('abort', () => resolve('aborted')),
    );
  });
  h.ext.tool('quick', 'answers at once', { type: 'object' }, (_args, call) => {
    signals.push(call.signal);
    return 'quick';
  });
  await h.start();
  const from = h.frames.length;
  assert.deepEqual((await h.request({ type: 'tool_call', name: 'quick', args: {} })).content, [
    { type: 'text', text: 'quick' },
  ]);
  h.send({ type: 'tool_call', id: 'w', name: 'watch', args: {} });
  await inside;
  h.send({ type: 'cancel', id: 'w' });
  await h.waitFor((f): f is Received => 'id' in f && f.id === 'w', from);
  assert.equal(signals[0]!.aborted, false, 'the quick call was never cancelled');
  assert.equal(signals[1]!.aborted, true);
});
