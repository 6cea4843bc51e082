// Every event the runtime publishes, defined once. The agent's, the extension host's and the
// session's events are members of one union; JSON and RPC modes write them as they are, the
// TUI renders them, and schema/rpc.schema.json is generated from these definitions.
// Elsewhere they are imported with `import type` only (no TypeBox at run time).
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import {
  AssistantContentSchema,
  StopReasonSchema,
  ToolContentSchema,
  UserContentSchema,
} from './content.js';
import { ToolDetailsSchema } from './tool-details.js';
import { StateFields } from './state.js';
import { UsageSchema } from './usage.js';
import { ERROR_KIND_MEANINGS, type ErrorKind } from './errors.js';

const event = <T extends string, P extends Record<string, TSchema>>(
  type: T,
  description: string,
  props: P,
) =>
  // Closed: the schema lists every field zot sends, and the tests hold each line to it.
  Type.Object({ type: Type.Literal(type), ...props }, { description, additionalProperties: false });

const literals = <T extends string>(values: readonly T[], options?: { description: string }) =>
  Type.Union(
    values.map((value) => Type.Literal(value)),
    options,
  );

/** The closed set of error kinds, each documented (contract/errors.ts). */
export const errorKindSchema = (description: string) =>
  Type.Union(
    (Object.entries(ERROR_KIND_MEANINGS) as Array<[ErrorKind, string]>).map(([kind, meaning]) =>
      Type.Literal(kind, { description: meaning }),
    ),
    { description },
  );
const KIND = 'What kind of failure it is, for a program to branch on (the message is for people)';
/** The id of the RPC request an event answers, when it had one. */
export const RequestIdSchema = Type.Union([Type.String(), Type.Number()], {
  description: 'The id of the RPC request that started it, when the request had one',
});
const Extension = Type.String({ description: 'The extension it concerns' });
const PanelFields = {
  title: Type.Optional(Type.String()),
  lines: Type.Optional(Type.Array(Type.String())),
  footer: Type.Optional(Type.String()),
};
export const PanelSpecSchema = Type.Object({ id: Type.String(), ...PanelFields });

/** Events of one agent run: the model's stream, tool calls, usage. */
export const AGENT_EVENTS = [
  event('turn_start', 'A model call starts (step 1, 2, ... within one prompt)', {
    step: Type.Integer({ minimum: 1 }),
  }),
  event('user_message', 'The prompt as it entered the transcript', {
    content: Type.Array(UserContentSchema),
    time: Type.String(),
  }),
  event('assistant_start', 'The model began answering', {}),
  event('text_delta', 'Streamed answer text (held back while text is intercepted)', {
    delta: Type.String(),
  }),
  event('thinking_delta', 'Streamed reasoning text (held back while text is intercepted)', {
    delta: Type.String(),
  }),
  event(
    'tool_call_delta',
    "A streamed piece of a tool call's raw JSON arguments, before its tool_call event (held back while text is intercepted)",
    {
      id: Type.String({ description: 'The id the tool_call event will have' }),
      name: Type.String({ description: 'The tool name as streamed so far' }),
      delta: Type.String({ description: 'Raw argument text; the pieces concatenate to JSON' }),
    },
  ),
  event('tool_call', 'The model called a tool (arguments as the model sent them)', {
    id: Type.String(),
    name: Type.String(),
    args: Type.Record(Type.String(), Type.Unknown()),
    preview: Type.String({
      description: 'One line summing the call up, as a confirmation shows it',
    }),
    extension: Type.Optional(
      Type.String({ description: 'Set when an extension provides the tool' }),
    ),
  }),
  event('tool_progress', 'A line of progress from a running tool (e.g. bash output)', {
    id: Type.String(),
    text: Type.String(),
  }),
  event('tool_result', 'What the model gets back from a tool call', {
    id: Type.String(),
    is_error: Type.Boolean(),
    content: Type.Array(ToolContentSchema),
    details: Type.Optional(ToolDetailsSchema),
    extension: Type.Optional(Type.String({ description: 'Set when an extension produced it' })),
  }),
  event('assistant_message', 'The whole answer, after interception', {
    content: Type.Array(AssistantContentSchema),
    time: Type.String(),
    refusal: Type.Optional(
      Type.Literal(true, {
        description: 'The model declined to answer (a provider refusal); its text says why',
      }),
    ),
    cancelled: Type.Optional(
      Type.Literal(true, {
        description:
          'The user cancelled the reply: the content is what came before it (often nothing)',
      }),
    ),
  }),
  Type.Composite(
    [UsageSchema, Type.Object({ type: Type.Literal('usage'), cumulative: UsageSchema })],
    {
      description: 'Tokens and cost of one model call, and the session totals',
      additionalProperties: false,
    },
  ),
  event('turn_end', 'A model call ended', {
    stop: StopReasonSchema,
    error: Type.Optional(Type.String()),
    error_kind: Type.Optional(errorKindSchema(`With stop "error": ${KIND.toLowerCase()}`)),
  }),
  event('done', 'A prompt, command or compaction finished; the runtime takes the next one', {
    id: Type.Optional(RequestIdSchema),
    error_kind: Type.Optional(
      errorKindSchema('Set when it ended with an error (the `error` event before it says more)'),
    ),
  }),
  event('error', 'Something failed that the user should see', {
    message: Type.String(),
    kind: errorKindSchema(KIND),
  }),
] as const;

/** Events of the extension host (design D20, D21). */
export const HOST_EVENTS = [
  event(
    'ext_error',
    'An extension failed to load or died; for a death the message says whether and when it restarts',
    {
      extension: Extension,
      message: Type.String(),
      log_path: Type.String(),
    },
  ),
  event('ext_restarted', 'An extension that died is running again', {
    extension: Extension,
    restarts: Type.Integer({
      minimum: 1,
      description: 'How many times it has been restarted since zot (or a reload) loaded it',
    }),
  }),
  event('ext_warning', 'A problem with an extension that did not stop it', {
    extension: Extension,
    message: Type.String(),
    untrusted: Type.Optional(
      Type.Literal(true, { description: 'A project extension not started for want of trust' }),
    ),
  }),
  event('ext_notify', 'A note from an extension, shown below the chat', {
    extension: Extension,
    level: literals(['info', 'success', 'warn', 'error']),
    message: Type.String(),
  }),
  event('ext_display', 'A block an extension shows in the chat (not sent to the model)', {
    extension: Extension,
    text: Type.String(),
  }),
  event('ext_clear_notes', "The extension's notes were cleared (by it or by the runtime)", {
    extension: Extension,
  }),
  event('ext_submit', 'An extension asks to send a prompt; front ends decide (not run by zot)', {
    extension: Extension,
    text: Type.String(),
  }),
  event('ext_panel_open', 'An extension opened a panel', {
    extension: Extension,
    panel: PanelSpecSchema,
  }),
  event('ext_panel_render', "The panel's content changed", {
    extension: Extension,
    panel_id: Type.String(),
    ...PanelFields,
  }),
  event('ext_panel_close', 'The panel closed (by its extension, the user, or a crash)', {
    extension: Extension,
    panel_id: Type.String(),
  }),
] as const;

/** Events of the session runtime itself. */
export const SESSION_EVENTS = [
  event('state', 'The runtime snapshot changed (the same fields as get_state)', StateFields),
  event('ext_insert', 'A command asked to put text into the editor (not sent)', {
    extension: Extension,
    text: Type.String(),
  }),
  event('intercept', 'An extension blocked or rewrote something (the audit trail)', {
    extension: Extension,
    event: literals(['tool_call', 'turn_start', 'assistant_message', 'tool_result', 'user_prompt']),
    action: literals([
      'block',
      'modify_args',
      'replace_text',
      'replace_content',
      'modify_text',
      'add_context',
    ]),
    scope: Type.Optional(
      Type.Literal('transcript', {
        description:
          "replace_text only: the model's own copy was replaced too (it does not see its original on later turns)",
      }),
    ),
    reason: Type.Optional(Type.String()),
    failure: Type.Optional(
      Type.Union(
        ['crash', 'timeout', 'malformed', 'not_running', 'restarting', 'error', 'unsendable'].map(
          (v) => Type.Literal(v),
        ),
        {
          description:
            'Set when a fail-closed extension ("intercept_failure": "block") blocked by failing, not by answering',
        },
      ),
    ),
    before: Type.Optional(
      Type.Unknown({
        description:
          'Absent for assistant text and prompts: see before_chars/before_sha256; for a tool result, its size and hash ({bytes, sha256}), never its content',
      }),
    ),
    before_chars: Type.Optional(Type.Integer()),
    before_sha256: Type.Optional(Type.String()),
    after: Type.Optional(
      Type.Unknown({
        description: 'For a tool result, the size and hash ({bytes, sha256}) of the replacement',
      }),
    ),
  }),
  event(
    'permission',
    'A permission decision other than a plain allow: a deny, an ask and its answer (the audit trail)',
    {
      tool_id: Type.String(),
      tool: Type.String(),
      args: Type.String({ description: "A preview of the call's arguments" }),
      decision: literals(['deny', 'ask', 'allow']),
      rule: Type.Union([Type.String(), Type.Null()], {
        description:
          'The rule that decided, as written; null when none did (the mode, or a command that cannot be checked)',
      }),
      source: literals(['cli', 'user', 'project', 'dialog', 'mode'], {
        description:
          "Where the deciding rule came from; `dialog` for a person's answer, `mode` when no rule decided",
      }),
      file: Type.Optional(
        Type.String({ description: 'The settings file of a user or project rule' }),
      ),
      reason: Type.String(),
    },
  ),
  event('compact_done', 'The transcript was summarised', {
    summary: Type.String(),
    tokens_before: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: "The context before: the last model call's, or estimated when none was made",
      }),
    ),
    tokens_after: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'The context after, estimated (about four characters a token)',
      }),
    ),
  }),
  event('queue', 'What waits: steering for the running prompt, follow-ups after it', {
    steering: Type.Array(Type.String()),
    follow_up: Type.Array(Type.String()),
  }),
  event('warning', 'A diagnostic (stderr in every mode; not written to JSON or RPC output)', {
    message: Type.String(),
  }),
] as const;

/**
 * Events only RPC front ends get: questions (ask rules, --no-yolo, an extension's ui_request) and
 * the end of a command.
 */
export const FRONT_END_EVENTS = [
  event('confirm_request', 'A tool call waits for the user: answer with `confirm`', {
    tool_id: Type.String(),
    tool_name: Type.String(),
    tool_preview: Type.String({ description: 'One line, as the tool_call event gives it' }),
    tool_detail: Type.String({
      description:
        'Everything the call will do, to show before asking: the whole command (bash), else every argument as indented JSON',
    }),
    rule: Type.Optional(Type.String({ description: 'The ask rule that asks, when one does' })),
    reason: Type.Optional(Type.String({ description: 'Why the call is asked about' })),
  }),
  event(
    'ui_request',
    'An extension asks the user and waits: answer with `ui_response` (the same `id`)',
    {
      id: Type.String({
        description:
          "zot's id for this question, unique in the session (not the extension's own id)",
      }),
      extension: Extension,
      kind: literals(['confirm', 'select', 'input'], {
        description:
          'confirm: answer a boolean; select: one of `options`; input: a string (hidden as typed when `mask`)',
      }),
      title: Type.String({ description: "The extension's question (untrusted text)" }),
      options: Type.Optional(Type.Array(Type.String(), { description: 'select: the choices' })),
      mask: Type.Optional(Type.Boolean({ description: 'input: hide what is typed' })),
      timeout_ms: Type.Optional(
        Type.Integer({
          minimum: 1,
          description:
            'After this long the question is withdrawn (the extension hears `cancelled`); a later answer is refused',
        }),
      ),
    },
  ),
  event('command_done', 'An RPC `command` finished (after its response and its events)', {
    id: Type.Optional(RequestIdSchema),
    name: Type.String(),
    action: literals(['display', 'insert', 'open_panel', 'noop', 'error']),
  }),
] as const;

export const EVENT_SCHEMAS = [
  ...AGENT_EVENTS,
  ...HOST_EVENTS,
  ...SESSION_EVENTS,
  ...FRONT_END_EVENTS,
] as const;

type Members<T extends readonly TSchema[]> = Static<T[number]>;
export type AgentEvent = Members<typeof AGENT_EVENTS>;
export type HostEvent = Members<typeof HOST_EVENTS>;
/** Everything a session publishes to its subscribers. */
export type SessionEvent = AgentEvent | HostEvent | Members<typeof SESSION_EVENTS>;
/** What only RPC front ends receive. */
export type FrontEndEvent = Members<typeof FRONT_END_EVENTS>;
