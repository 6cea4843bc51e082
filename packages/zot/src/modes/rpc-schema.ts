// RPC mode's wire format, schema-first: each request paired with the data of its response, the
// failure response, and the events (the runtime's one event union, contract/events.ts).
// The committed schema/rpc.schema.json, RPC mode's request validators and the types of
// @zot/rpc-client are all generated from these definitions (scripts/gen-schema.mjs; the two
// documents are put together in rpc-schema-document.ts).
import { Type, type Static, type TObject, type TOptional, type TSchema } from '@sinclair/typebox';
import { CONFIRM_DECISIONS } from '../contract/confirm.js';
import {
  AssistantMessageSchema,
  TextBlockSchema,
  ToolResultAttributionSchema,
} from '../contract/content.js';
import { errorKindSchema } from '../contract/events.js';
import { StateSchema } from '../contract/state.js';
import { ToolDetailsSchema } from '../contract/tool-details.js';
import {
  CommandSummarySchema,
  ExtensionReportSchema,
  ModelSummarySchema,
  SessionSummarySchema,
} from '../contract/summaries.js';

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

export const ConfirmDecisionSchema = Type.Union(
  CONFIRM_DECISIONS.map((decision) => Type.Literal(decision)),
  {
    description:
      'allow this call; allow_tool_session / allow_all_session: this tool / every tool until the process ends; allow_always_user / allow_always_project: also write an allow rule to the user / project settings; deny',
  },
);

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
  list_checkpoints: request(
    'list_checkpoints',
    'The checkpointed turns of the session, numbered from 1, with the files each changed',
    {},
  ),
  rewind: request(
    'rewind',
    'Moves back to before a turn (idle only): its files (default), its conversation, or both; a file rewind is itself a turn, so it can be undone',
    {
      turn: Type.Integer({ description: 'A turn number as list_checkpoints gives it (from 1)' }),
      code: Type.Optional(
        Type.Boolean({
          description: 'Restore the files (default true unless conversation is set)',
        }),
      ),
      conversation: Type.Optional(
        Type.Boolean({
          description:
            "Move the conversation back to before the turn's prompt (the later messages stay in the session file)",
        }),
      ),
      force: Type.Optional(
        Type.Boolean({
          description:
            'Overwrite files changed outside zot since its last checkpoint (without it they fail the request, named)',
        }),
      ),
    },
  ),
  list_branches: request(
    'list_branches',
    "The session tree's branches, in the order they began (at most 500: the first, the active one and the newest)",
    {},
  ),
  switch_branch: request(
    'switch_branch',
    'Makes a branch the active one (idle only); a summary of the branch left is written to the session file',
    {
      branch: Type.Integer({ minimum: 1, description: 'A branch index as list_branches gives it' }),
    },
  ),
  fork: request(
    'fork',
    'Starts a new session file holding the first messages of this one (default all) and continues in it (idle only)',
    {
      messages: Type.Optional(
        Type.Integer({ minimum: 1, description: 'How many messages it keeps' }),
      ),
    },
  ),
  clone: request(
    'clone',
    'Copies the session file, every branch, to a new one and continues in the copy (idle only)',
    {},
  ),
  merge_branch: request(
    'merge_branch',
    "Brings a branch's summary (and optionally its last messages) into the active branch as a marked context message (idle only)",
    {
      branch: Type.Integer({ minimum: 1, description: 'A branch index as list_branches gives it' }),
      messages: Type.Optional(
        Type.Integer({ minimum: 0, maximum: 50, description: 'Its last messages to bring too' }),
      ),
    },
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
    decision: ConfirmDecisionSchema,
  }),
  panel_close: request('panel_close', 'Closes an open extension panel', {
    panel_id: Type.String({ minLength: 1 }),
  }),
  ui_response: Type.Object(
    {
      type: Type.Literal('ui_response'),
      id: Type.String({
        minLength: 1,
        description: 'The id of the ui_request event answered (echoed on the response)',
      }),
      value: Type.Optional(
        Type.Union([Type.Boolean(), Type.String()], {
          description:
            'confirm: true or false; select: one of the options offered; input: the text typed',
        }),
      ),
      cancelled: Type.Optional(
        Type.Literal(true, { description: 'The user dismissed the question (instead of `value`)' }),
      ),
    },
    { description: "Answers an extension's ui_request event: `value`, or `cancelled: true`" },
  ),
} as const;

export type RpcRequestType = keyof typeof RPC_REQUESTS;
export type RpcRequest = {
  [K in RpcRequestType]: Static<(typeof RPC_REQUESTS)[K]>;
}[RpcRequestType];

// get_messages reports images by size: a transcript dump stays small.
const ImageSizeSchema = Type.Object({
  type: Type.Literal('image'),
  mime_type: Type.String(),
  bytes: Type.Integer({ minimum: 0, description: 'The size of the image (its data is left out)' }),
});
const PublicToolResultSchema = Type.Object({
  type: Type.Literal('tool_result'),
  call_id: Type.String(),
  name: Type.Optional(Type.String({ description: 'The tool that was called' })),
  is_error: Type.Boolean(),
  content: Type.Array(Type.Union([TextBlockSchema, ImageSizeSchema])),
  attribution: Type.Optional(ToolResultAttributionSchema),
  details: Type.Optional(ToolDetailsSchema),
});
const Time = Type.String({ description: 'ISO 8601' });
/** A transcript message as get_messages reports it. */
export const PublicMessageSchema = Type.Union([
  Type.Object({
    role: Type.Literal('user'),
    content: Type.Array(Type.Union([TextBlockSchema, ImageSizeSchema])),
    time: Time,
  }),
  AssistantMessageSchema,
  Type.Object({
    role: Type.Literal('tool'),
    content: Type.Array(PublicToolResultSchema),
    time: Time,
  }),
]);

export type PublicMessage = Static<typeof PublicMessageSchema>;

const CheckpointTurnSchema = Type.Object({
  turn: Type.Integer({ minimum: 1 }),
  time: Type.String({ description: 'ISO 8601' }),
  label: Type.String({ description: "The prompt's first line, or what a rewind restored" }),
  files: Type.Array(
    Type.Object({
      path: Type.String(),
      added: Type.Optional(Type.Integer({ minimum: 0, description: 'Absent for a binary file' })),
      removed: Type.Optional(Type.Integer({ minimum: 0 })),
    }),
  ),
  skipped: Type.Integer({ minimum: 0, description: 'Files its checkpoint skipped' }),
});

const BranchSchema = Type.Object({
  index: Type.Integer({ minimum: 1, description: 'From 1, in the order the branches began' }),
  leaf: Type.Integer({ minimum: 1, description: 'Line of its last entry in the session file' }),
  start: Type.Integer({ minimum: 1, description: 'Line of its first own entry' }),
  from: Type.Integer({
    minimum: 0,
    description: 'Line of the entry it continues from (0: the start of the session)',
  }),
  parent: Type.Optional(Type.Integer({ minimum: 1, description: 'The branch it left from' })),
  messages: Type.Integer({ minimum: 0, description: 'Messages of its transcript' }),
  prompts: Type.Integer({ minimum: 0, description: 'User prompts of its own' }),
  first_prompt: Type.Optional(Type.String({ description: 'Its first own prompt, first line' })),
  summary: Type.Optional(
    Type.Object({
      text: Type.String(),
      by: Type.String({ description: '"model", or "zot" (made without a model)' }),
      time: Type.String({ description: 'ISO 8601' }),
    }),
  ),
  active: Type.Boolean({ description: 'The session stands on its last entry' }),
});

const SessionMoved = Type.Object({
  session_file: Type.String(),
  message_count: Type.Integer({ minimum: 0 }),
});

const Started = Type.Object(
  { started: Type.Literal(true) },
  { description: 'The work began after this response; its events follow' },
);

/**
 * The `data` of each request's successful response; `null` for a response without `data`.
 * Paired with RPC_REQUESTS key for key (a test holds them to the same keys, and to no
 * untyped data).
 */
export const RPC_RESPONSES = {
  hello: Type.Object({
    protocol_version: Type.Integer({ description: 'The RPC protocol version (1)' }),
    version: Type.String({ description: "zot's version" }),
    provider: Type.String(),
    model: Type.String(),
  }),
  prompt: Started,
  abort: Type.Optional(
    Type.Object(
      { dropped: Type.Integer({ minimum: 0, description: 'Waiting prompts dropped' }) },
      { description: 'Only with `queue: true`' },
    ),
  ),
  compact: Started,
  get_state: StateSchema,
  get_messages: Type.Object({ messages: Type.Array(PublicMessageSchema) }),
  clear: null,
  set_model: Type.Object({ model: Type.String(), provider: Type.String() }),
  get_models: Type.Object({ models: Type.Array(ModelSummarySchema) }),
  get_sessions: Type.Object({ sessions: Type.Array(SessionSummarySchema) }),
  switch_session: Type.Object({
    session_file: Type.Union([Type.String(), Type.Null()]),
    message_count: Type.Integer({ minimum: 0 }),
  }),
  list_checkpoints: Type.Object({
    enabled: Type.Boolean({ description: 'False when checkpoints are off (--no-checkpoints)' }),
    turns: Type.Array(CheckpointTurnSchema),
  }),
  rewind: Type.Object({
    restored: Type.Optional(Type.Array(Type.String(), { description: 'Files written back' })),
    removed: Type.Optional(
      Type.Array(Type.String(), { description: 'Files created since, removed' }),
    ),
    kept: Type.Optional(
      Type.Array(Type.Object({ path: Type.String(), reason: Type.String() }), {
        description: 'Files created since that were left in place, with why',
      }),
    ),
    undo_turn: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: 'Rewinding the files to this turn undoes the rewind',
      }),
    ),
    message_count: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'With conversation: the messages the transcript kept',
      }),
    ),
  }),
  list_branches: Type.Object({
    branches: Type.Array(BranchSchema),
    total: Type.Integer({ minimum: 0, description: 'How many branches the session holds' }),
    head: Type.Integer({
      minimum: 0,
      description: 'The line the session stands on (inside a branch after a rewind)',
    }),
  }),
  switch_branch: Type.Object({
    branch: Type.Integer({ minimum: 1 }),
    message_count: Type.Integer({ minimum: 0 }),
    left: Type.Optional(
      Type.Integer({ minimum: 1, description: 'The branch left, whose summary is being written' }),
    ),
  }),
  fork: SessionMoved,
  clone: SessionMoved,
  merge_branch: Type.Object({
    branch: Type.Integer({ minimum: 1 }),
    text: Type.String({ description: 'The context message, as the model sees it' }),
    summary_by: Type.String({ description: '"model", "zot", or "none"' }),
    message_count: Type.Integer({ minimum: 0 }),
  }),
  ping: Type.Object({ pong: Type.Literal(true) }),
  get_commands: Type.Object({ commands: Type.Array(CommandSummarySchema) }),
  command: Started,
  reload_extensions: Type.Object({ extensions: Type.Array(ExtensionReportSchema) }),
  panel_key: null,
  confirm: null,
  panel_close: null,
  ui_response: null,
} as const satisfies Record<RpcRequestType, TSchema | null>;

type DataOf<S> = S extends null
  ? undefined
  : S extends TOptional<TSchema>
    ? Static<S> | undefined
    : S extends TSchema
      ? Static<S>
      : never;
/** The `data` of each request's successful response (undefined: the response has none). */
export type RpcResponseData = { [K in RpcRequestType]: DataOf<(typeof RPC_RESPONSES)[K]> };

const ResponseId = Type.Optional(Type.Union([Type.String(), Type.Number()]));

/** The successful response to one request type. */
function successResponse(type: RpcRequestType): TObject {
  const data = RPC_RESPONSES[type];
  return Type.Object(
    {
      type: Type.Literal('response'),
      id: ResponseId,
      command: Type.Literal(type),
      success: Type.Literal(true),
      ...(data === null ? {} : { data }),
    },
    { additionalProperties: false, description: `A successful ${type}` },
  );
}

/** Any failed request, including lines that were no request at all. */
export const RpcFailureSchema = Type.Object(
  {
    type: Type.Literal('response'),
    id: ResponseId,
    command: Type.String({
      description: 'The request type, or "unknown" when the line did not say (not JSON, no type)',
    }),
    success: Type.Literal(false),
    error: Type.String({ description: 'What failed and what to do, for people' }),
    error_kind: errorKindSchema('What kind of failure it is, for a program to branch on'),
  },
  { additionalProperties: false },
);
export type RpcFailure = Static<typeof RpcFailureSchema>;
/** A successful response as RPC mode writes it (the handlers hold each `data` to its schema). */
export interface RpcSuccess {
  type: 'response';
  id?: string | number;
  command: RpcRequestType;
  success: true;
  data?: RpcResponseData[RpcRequestType];
}

export const RPC_SUCCESS_RESPONSES = Object.fromEntries(
  (Object.keys(RPC_REQUESTS) as RpcRequestType[]).map((type) => [type, successResponse(type)]),
) as Record<RpcRequestType, TObject>;

export const RpcResponseSchema = Type.Union([
  ...Object.values(RPC_SUCCESS_RESPONSES),
  RpcFailureSchema,
]);
