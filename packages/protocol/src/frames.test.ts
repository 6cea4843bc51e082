// Every frame type round-trips (encode, split, decode), and the spec's examples decode.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  EVENT_NAMES,
  FRAME_TYPES_FROM_EXTENSION,
  FRAME_TYPES_FROM_HOST,
  INTERCEPTABLE_EVENTS,
  LineSplitter,
  decodeFromExtension,
  decodeFromHost,
  encodeFrame,
  type FrameFromExtension,
  type FrameFromHost,
  type NotifyLevel,
  type TurnEndStop,
} from './index.js';
import { SPEC_EXAMPLES_FROM_EXTENSION, SPEC_EXAMPLES_FROM_HOST } from './spec-examples.fixture.js';

// One sample per frame type with every field set, typed so that a drift between the
// schemas and the wire shapes of extensions.md fails the build.
const FROM_EXTENSION: FrameFromExtension[] = [
  { type: 'hello', name: 'weather', version: '1.0.0', capabilities: ['commands', 'tools'] },
  { type: 'register_command', name: 'weather', description: 'current weather' },
  {
    type: 'register_tool',
    name: 'weather',
    description: 'Get the weather.',
    schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    deferred: true,
  },
  { type: 'ready' },
  {
    type: 'tool_result',
    id: 't1',
    content: [
      { type: 'text', text: 'Berlin: 16°C' },
      { type: 'image', mime_type: 'image/png', data: 'iVBORw0KGgo=' },
    ],
    is_error: false,
    activate_tools: ['weather'],
  },
  { type: 'subscribe', events: [...EVENT_NAMES], intercept: [...INTERCEPTABLE_EVENTS] },
  {
    type: 'event_intercept_response',
    id: 'i1',
    block: true,
    reason: 'no',
    modified_args: { command: 'ls' },
    replace_text: '[redacted]',
  },
  {
    type: 'command_response',
    id: 'c1',
    action: 'open_panel',
    prompt: 'p',
    insert: 'i',
    display: 'd',
    open_panel: { id: 'todos', title: 'Todos', lines: ['□ a', '✓ b'], footer: 'esc close' },
    error: '',
  },
  { type: 'submit', text: 'Summarize.' },
  { type: 'panel_render', panel_id: 'todos', title: 'Todos', lines: ['x'], footer: 'f' },
  { type: 'panel_close', panel_id: 'todos' },
  { type: 'notify', level: 'success', message: 'done' },
  { type: 'display', text: 'a note' },
  { type: 'clear_notes' },
  { type: 'shutdown_ack' },
];

const FROM_HOST: FrameFromHost[] = [
  {
    type: 'hello_ack',
    protocol_version: 1,
    zot_version: '0.1.0',
    provider: 'anthropic',
    model: 'claude',
    cwd: '/work',
    extension_dir: '/x',
    data_dir: '/x',
  },
  { type: 'command_invoked', id: 'c1', name: 'weather', args: 'berlin' },
  { type: 'tool_call', id: 't1', name: 'weather', args: { city: 'Berlin' } },
  { type: 'event', event: 'session_start' },
  { type: 'event', event: 'turn_start', step: 1 },
  { type: 'event', event: 'turn_end', stop: 'aborted', error: 'stopped' },
  { type: 'event', event: 'tool_call', tool_id: 'a', tool_name: 'read', tool_args: { path: 'x' } },
  {
    type: 'event',
    event: 'tool_confirmation_requested',
    tool_id: 'a',
    tool_name: 'bash',
    tool_preview: 'ls',
  },
  { type: 'event', event: 'assistant_message', text: 'hi' },
  {
    type: 'event_intercept',
    id: 'i1',
    event: 'tool_call',
    tool_id: 'a',
    tool_name: 'bash',
    tool_args: { command: 'rm -rf /tmp/foo' },
  },
  { type: 'event_intercept', id: 'i2', event: 'turn_start', step: 3 },
  { type: 'event_intercept', id: 'i3', event: 'assistant_message', text: 'sk-ant-...' },
  { type: 'panel_key', panel_id: 'todos', key: 'rune', text: 'x' },
  { type: 'panel_close', panel_id: 'todos' },
  { type: 'shutdown' },
];

test('the samples cover every frame type of both directions and every event', () => {
  assert.deepEqual(new Set(FROM_EXTENSION.map((f) => f.type)), new Set(FRAME_TYPES_FROM_EXTENSION));
  assert.deepEqual(new Set(FROM_HOST.map((f) => f.type)), new Set(FRAME_TYPES_FROM_HOST));
  const events = FROM_HOST.flatMap((f) => (f.type === 'event' ? [f.event] : []));
  assert.deepEqual(new Set(events), new Set(EVENT_NAMES));
  const intercepts = FROM_HOST.flatMap((f) => (f.type === 'event_intercept' ? [f.event] : []));
  assert.deepEqual(new Set(intercepts), new Set(INTERCEPTABLE_EVENTS));
});

test('every extension frame round-trips through encodeFrame and decodeFromExtension', () => {
  for (const frame of FROM_EXTENSION) {
    const line = encodeFrame(frame);
    assert.ok(line.endsWith('\n'), frame.type);
    assert.equal(line.indexOf('\n'), line.length - 1, `${frame.type}: one LF, at the end`);
    assert.deepEqual(decodeFromExtension(line.slice(0, -1)), { ok: true, frame }, frame.type);
  }
});

test('every host frame round-trips through encodeFrame and decodeFromHost', () => {
  for (const frame of FROM_HOST) {
    const line = encodeFrame(frame);
    assert.equal(line.indexOf('\n'), line.length - 1, `${frame.type}: one LF, at the end`);
    assert.deepEqual(decodeFromHost(line.slice(0, -1)), { ok: true, frame }, frame.type);
  }
});

test('a stream of every frame survives the splitter at any chunk size', () => {
  const wire = Buffer.from(FROM_EXTENSION.map(encodeFrame).join(''));
  for (const size of [1, 2, 3, 7, 64, wire.length]) {
    const decoded: unknown[] = [];
    const splitter = new LineSplitter({
      onLine: (line) => {
        const result = decodeFromExtension(line);
        assert.ok(result.ok, line);
        decoded.push(result.frame);
      },
    });
    for (let i = 0; i < wire.length; i += size) splitter.push(wire.subarray(i, i + size));
    splitter.end();
    assert.deepEqual(decoded, FROM_EXTENSION, `chunk size ${size}`);
  }
});

test('the JSON examples of extensions.md decode (extension → host)', () => {
  for (const example of SPEC_EXAMPLES_FROM_EXTENSION) {
    const result = decodeFromExtension(example);
    assert.ok(result.ok, `${example}\n${result.ok ? '' : result.error}`);
    assert.deepEqual(result.frame, JSON.parse(example));
  }
});

test('the JSON examples of extensions.md decode (host → extension)', () => {
  for (const example of SPEC_EXAMPLES_FROM_HOST) {
    const result = decodeFromHost(example);
    assert.ok(result.ok, `${example}\n${result.ok ? '' : result.error}`);
    assert.deepEqual(result.frame, JSON.parse(example));
  }
});

test('decoded frames narrow on type (and on event)', () => {
  const result = decodeFromHost('{"type":"event","event":"turn_end","stop":"end_turn"}');
  assert.ok(result.ok);
  const frame = result.frame;
  if (frame.type === 'event' && frame.event === 'turn_end') {
    const stop: TurnEndStop | undefined = frame.stop; // literal types survive Static<>
    assert.equal(stop, 'end_turn');
  } else assert.fail('expected a turn_end event');
  const notify = decodeFromExtension('{"type":"notify","level":"warn"}');
  assert.ok(notify.ok && notify.frame.type === 'notify');
  const level: NotifyLevel | undefined = notify.frame.level;
  assert.equal(level, 'warn');
});
