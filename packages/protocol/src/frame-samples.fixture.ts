// One sample per frame type with every field set, as fixtures for the tests. Not part of the
// public API. Typed, so that a drift between the schemas and the wire shapes of
// extensions.md fails the build.
import {
  EVENT_NAMES,
  INTERCEPTABLE_EVENTS,
  type FrameFromExtension,
  type FrameFromHost,
} from './index.js';

/** Every extension → host frame type, every field set. */
export const FROM_EXTENSION: readonly FrameFromExtension[] = [
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
    details: { kind: 'diff', diff: '--- a\n+++ b\n' },
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
  {
    type: 'open_panel',
    panel: { id: 'ask', title: 'Write the file?', lines: ['a.txt'], footer: 'y/n' },
  },
  { type: 'notify', level: 'success', message: 'done' },
  { type: 'display', text: 'a note' },
  { type: 'clear_notes' },
  { type: 'shutdown_ack' },
  { type: 'tool_progress', id: 't1', text: 'fetching Berlin' },
  {
    type: 'ui_request',
    id: 'u1',
    kind: 'select',
    title: 'Which city?',
    options: ['Berlin', 'Paris'],
    mask: false,
    timeout_ms: 30000,
  },
  { type: 'unregister_tool', name: 'weather' },
];

/** Every host → extension frame type (and every event), every field set. */
export const FROM_HOST: readonly FrameFromHost[] = [
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
  { type: 'cancel', id: 't1' },
  { type: 'ui_response', id: 'u1', value: 'Berlin', cancelled: false, unavailable: false },
];
