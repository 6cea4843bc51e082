// RPC mode's wire format, schema-first: requests, the response envelope and the events (the
// runtime's one event union, contract/events.ts).
// The committed schema/rpc.schema.json is generated from RPC_SCHEMA_DOCUMENT.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { EVENT_SCHEMAS } from '../contract/events.js';
import { StateSchema } from '../contract/state.js';

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
  prompt: request('prompt', 'Sends a prompt: after the running one, or into it (steer)', {
    message: Type.String(),
    images: Type.Optional(Type.Array(ImageInput)),
    mode: Type.Optional(
      Type.Union([Type.Literal('follow_up'), Type.Literal('steer')], {
        description:
          'follow_up (default): run after the current prompt; steer: add to the running prompt at its next step',
      }),
    ),
  }),
  abort: request('abort', 'Aborts the running prompt or compaction', {
    queue: Type.Optional(
      Type.Boolean({ description: 'Also drop every prompt waiting behind it (as Esc in the TUI)' }),
    ),
  }),
  compact: request('compact', 'Summarises the transcript', {}),
  get_state: request('get_state', 'Snapshot of the runtime', {}),
  get_messages: request('get_messages', 'The transcript', {}),
  clear: request('clear', 'Drops the transcript (idle only)', {}),
  set_model: request(
    'set_model',
    'Switches model (idle only): an id of the current provider, or provider/id; saved for the next run',
    { model: Type.String({ minLength: 1 }) },
  ),
  get_models: request('get_models', 'Models of every provider', {}),
  get_sessions: request(
    'get_sessions',
    "This directory's recorded sessions, newest first (path, name, model, messages, cost, first prompt)",
    {},
  ),
  switch_session: request(
    'switch_session',
    'Continues a recorded session in this process (idle only): its transcript, usage and file',
    { path: Type.String({ minLength: 1 }) },
  ),
  ping: request('ping', 'Health check', {}),
  get_commands: request('get_commands', 'Slash commands: built-in and from extensions', {}),
  command: request('command', 'Runs a slash command as the TUI would', {
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
  confirm: request('confirm', 'Answers a confirm_request (an ask rule, or --no-yolo)', {
    tool_id: Type.String({ minLength: 1 }),
    decision: Type.Union(
      [
        'allow',
        'allow_tool_session',
        'allow_all_session',
        'allow_always_user',
        'allow_always_project',
        'deny',
      ].map((d) => Type.Literal(d)),
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
    event: Type.Union([...EVENT_SCHEMAS]),
    state: StateSchema,
  },
};
