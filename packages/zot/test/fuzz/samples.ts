// Well-formed inputs the mutators start from: one or more per frame type, RPC request and
// session entry. Mutating valid shapes reaches deeper into the checks than random bytes.
import { EVENT_NAMES, INTERCEPTABLE_EVENTS } from '@zot/protocol';

type Sample = Record<string, unknown>;

export const EXTENSION_FRAMES: readonly Sample[] = [
  { type: 'hello', name: 'fuzz', version: '1.0.0', capabilities: ['commands', 'tools'] },
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
  { type: 'event_intercept_response', id: 'i1', block: true, reason: 'no', replace_text: 'x' },
  { type: 'event_intercept_response', id: 'i1', modified_args: { command: 'ls' } },
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

export const HOST_FRAMES: readonly Sample[] = [
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
  { type: 'event', event: 'turn_end', stop: 'aborted', error: 'stopped' },
  { type: 'event', event: 'tool_call', tool_id: 'a', tool_name: 'read', tool_args: { path: 'x' } },
  { type: 'event_intercept', id: 'i3', event: 'assistant_message', text: 'sk-ant-...' },
  { type: 'panel_key', panel_id: 'todos', key: 'rune', text: 'x' },
  { type: 'shutdown' },
];

export const RPC_REQUESTS: readonly Sample[] = [
  { type: 'hello', id: 1, token: 'secret' },
  { type: 'prompt', id: 'p', message: 'hi', images: [{ mime_type: 'image/png', data: 'AAAA' }] },
  { type: 'abort', id: 2 },
  { type: 'compact' },
  { type: 'get_state', id: 'x' },
  { type: 'get_messages' },
  { type: 'set_model', id: 3, model: 'm' },
  { type: 'command', id: 'c', text: '/weather berlin' },
  { type: 'panel_key', panel_id: 'p', key: 'x', text: '' },
  { type: 'confirm', tool_id: 't', decision: 'allow_tool_session' },
  { type: 'panel_close', panel_id: 'p' },
];

const T = '2025-01-01T00:00:00.000Z';

export const SESSION_ENTRIES: readonly Sample[] = [
  {
    type: 'session',
    version: 1,
    cwd: '/work',
    created: T,
    provider: 'anthropic',
    model: 'claude',
  },
  { type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'hi' }], time: T } },
  {
    type: 'message',
    message: {
      role: 'assistant',
      content: [
        { type: 'text', text: 'calling' },
        { type: 'tool_call', id: 'a1', name: 'read', args: { path: 'x' } },
      ],
      stop: 'tool_use',
      time: T,
    },
  },
  {
    type: 'message',
    message: {
      role: 'tool',
      content: [
        {
          type: 'tool_result',
          call_id: 'a1',
          name: 'read',
          is_error: false,
          content: [{ type: 'text', text: 'x' }],
        },
      ],
      time: T,
    },
  },
  { type: 'compaction', time: T, summary: 'earlier talk', kept: 2 },
  { type: 'clear', time: T },
  { type: 'intercept', extension: 'guard', action: 'block', reason: 'no' },
];

/** Every field name of a sample list, at any level: the keys the mutators put values under. */
export function fieldsOf(samples: readonly Sample[]): string[] {
  const names = new Set<string>();
  const walk = (value: unknown, depth: number): void => {
    if (depth > 6 || value === null || typeof value !== 'object') return;
    for (const [name, child] of Object.entries(value)) {
      if (!Array.isArray(value)) names.add(name);
      walk(child, depth + 1);
    }
  };
  samples.forEach((sample) => walk(sample, 0));
  return [...names];
}
