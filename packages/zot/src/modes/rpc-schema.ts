// RPC mode's wire format, schema-first: requests, the response envelope and the events.
// The committed schema/rpc.schema.json is generated from RPC_SCHEMA_DOCUMENT.
import { Type, type Static, type TSchema } from '@sinclair/typebox';

const Id = Type.Union([Type.String(), Type.Number()], { description: 'Echoed on the response' });

function request<T extends string, P extends Record<string, TSchema>>(
  type: T,
  description: string,
  props: P,
) {
  return Type.Object(
    { type: Type.Literal(type), id: Type.Optional(Id), ...props },
    { description },
  );
}

const ImageInput = Type.Object({
  mime_type: Type.String({ minLength: 1 }),
  data: Type.String({ description: 'base64' }),
});

export const RPC_REQUESTS = {
  hello: request('hello', 'Authenticates (required first when ZOTCORE_RPC_TOKEN is set)', {
    token: Type.Optional(Type.String()),
  }),
  prompt: request('prompt', 'Starts a prompt (queued behind a running one)', {
    message: Type.String(),
    images: Type.Optional(Type.Array(ImageInput)),
  }),
  abort: request('abort', 'Aborts the running prompt or compaction', {}),
  compact: request('compact', 'Summarises the transcript', {}),
  get_state: request('get_state', 'Snapshot of the runtime', {}),
  get_messages: request('get_messages', 'The transcript', {}),
  clear: request('clear', 'Drops the transcript (idle only)', {}),
  set_model: request('set_model', 'Switches model within the provider (idle only)', {
    model: Type.String({ minLength: 1 }),
  }),
  get_models: request('get_models', 'Models of the current provider', {}),
  ping: request('ping', 'Health check', {}),
  get_commands: request('get_commands', 'Slash commands: built-in and from extensions', {}),
  command: request('command', 'Runs a slash command as the TUI would (DECISIONS 19, 21)', {
    text: Type.String({ pattern: '^/', description: 'For example "/weather berlin"' }),
  }),
  reload_extensions: request(
    'reload_extensions',
    'Restarts every extension; returns a report per extension',
    {},
  ),
  panel_key: request('panel_key', 'Sends a key to an open extension panel', {
    panel_id: Type.String({ minLength: 1 }),
    key: Type.String({ minLength: 1 }),
    text: Type.Optional(Type.String()),
  }),
  confirm: request('confirm', 'Answers a confirm_request (with --no-yolo)', {
    tool_id: Type.String({ minLength: 1 }),
    decision: Type.Union(
      ['allow', 'allow_tool_session', 'allow_all_session', 'deny'].map((d) => Type.Literal(d)),
    ),
  }),
  panel_close: request('panel_close', 'Closes an open extension panel', {
    panel_id: Type.String({ minLength: 1 }),
  }),
} as const;

export type RpcRequestType = keyof typeof RPC_REQUESTS;
export type RpcRequest = {
  [K in RpcRequestType]: Static<(typeof RPC_REQUESTS)[K]>;
}[RpcRequestType];

export const RpcResponseSchema = Type.Object({
  type: Type.Literal('response'),
  id: Type.Optional(Id),
  command: Type.String(),
  success: Type.Boolean(),
  data: Type.Optional(Type.Unknown()),
  error: Type.Optional(Type.String()),
});
export type RpcResponse = Static<typeof RpcResponseSchema>;

const Text = Type.Object({ type: Type.Literal('text'), text: Type.String() });
const Image = Type.Object({
  type: Type.Literal('image'),
  mime_type: Type.String(),
  data: Type.String(),
});
const ToolContent = Type.Union([Text, Image]);
const UsageFields = {
  input: Type.Number(),
  output: Type.Number(),
  cache_read: Type.Number(),
  cache_write: Type.Number(),
  cost_usd: Type.Number(),
};
const event = <T extends string, P extends Record<string, TSchema>>(type: T, props: P) =>
  Type.Object({ type: Type.Literal(type), ...props });

export const RPC_EVENTS = [
  event('turn_start', { step: Type.Integer({ minimum: 1 }) }),
  event('user_message', { content: Type.Array(ToolContent), time: Type.String() }),
  event('assistant_start', {}),
  event('text_delta', { delta: Type.String() }),
  event('tool_call', {
    id: Type.String(),
    name: Type.String(),
    args: Type.Record(Type.String(), Type.Unknown()),
  }),
  event('tool_progress', { id: Type.String(), text: Type.String() }),
  event('tool_result', {
    id: Type.String(),
    is_error: Type.Boolean(),
    content: Type.Array(ToolContent),
    extension: Type.Optional(Type.String()),
  }),
  event('assistant_message', { content: Type.Array(Type.Unknown()), time: Type.String() }),
  event('usage', { ...UsageFields, cumulative: Type.Object(UsageFields) }),
  event('turn_end', {
    stop: Type.Union(
      ['end_turn', 'tool_use', 'length', 'error', 'aborted'].map((s) => Type.Literal(s)),
    ),
    error: Type.Optional(Type.String()),
  }),
  event('done', {}),
  event('error', { message: Type.String() }),
  event('compact_done', { summary: Type.String() }),
  event('confirm_request', {
    tool_id: Type.String(),
    tool_name: Type.String(),
    tool_preview: Type.String(),
  }),
  event('intercept', {
    extension: Type.String(),
    event: Type.Union(['tool_call', 'turn_start', 'assistant_message'].map((e) => Type.Literal(e))),
    action: Type.Union(['block', 'modify_args', 'replace_text'].map((a) => Type.Literal(a))),
    reason: Type.Optional(Type.String()),
    before: Type.Optional(
      Type.Unknown({ description: 'Absent for assistant text: see before_chars/before_sha256' }),
    ),
    before_chars: Type.Optional(Type.Integer()),
    before_sha256: Type.Optional(Type.String()),
    after: Type.Optional(Type.Unknown()),
  }),
  event('ext_error', { extension: Type.String(), message: Type.String(), log_path: Type.String() }),
  event('ext_warning', { extension: Type.String(), message: Type.String() }),
  event('ext_notify', {
    extension: Type.String(),
    level: Type.Union(['info', 'success', 'warn', 'error'].map((l) => Type.Literal(l))),
    message: Type.String(),
  }),
  event('ext_display', { extension: Type.String(), text: Type.String() }),
  event('ext_insert', { extension: Type.String(), text: Type.String() }),
  event('ext_clear_notes', { extension: Type.String() }),
  event('ext_panel_open', {
    extension: Type.String(),
    panel: Type.Object({
      id: Type.String(),
      title: Type.Optional(Type.String()),
      lines: Type.Optional(Type.Array(Type.String())),
      footer: Type.Optional(Type.String()),
    }),
  }),
  event('ext_panel_render', {
    extension: Type.String(),
    panel_id: Type.String(),
    title: Type.Optional(Type.String()),
    lines: Type.Optional(Type.Array(Type.String())),
    footer: Type.Optional(Type.String()),
  }),
  event('ext_panel_close', { extension: Type.String(), panel_id: Type.String() }),
];

/** The document scripts/gen-schema.mjs writes to schema/rpc.schema.json. */
export const RPC_SCHEMA_DOCUMENT = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://zot.dev/schema/rpc.schema.json',
  title: 'zot RPC protocol',
  description:
    'Requests (client to zot), responses and events (zot to client), one JSON object per line.',
  $defs: {
    request: Type.Union(Object.values(RPC_REQUESTS)),
    response: RpcResponseSchema,
    event: Type.Union(RPC_EVENTS),
  },
};
