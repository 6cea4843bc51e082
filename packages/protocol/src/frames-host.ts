// Frames the host writes to an extension (extensions.md "Host → extension"), schema first.
// Same tolerance rule as frames-extension.ts: only `type`, ids and the names a receiver
// dispatches on are required; unknown fields are allowed everywhere.
import { Type, type Static, type TProperties } from '@sinclair/typebox';
import { PANEL_KEYS, PROMPT_SOURCES, TURN_END_STOPS } from './constants.js';
import { ContentBlockSchema, PanelCloseFrameSchema } from './frames-extension.js';
import { CancelFrameSchema, UiResponseFrameSchema } from './frames-v2.js';
import { frame, jsonObject, literalUnion, orNull, pascalCase } from './schema-util.js';

const Id = Type.String({ description: 'Request id; echo it in the reply.' });
const ToolArgs = jsonObject({ description: 'Parsed JSON arguments of the tool call.' });
const Step = Type.Integer({ description: 'Turn number within the prompt, from 1.' });

export const HelloAckFrameSchema = frame(
  'hello_ack',
  {
    protocol_version: Type.Integer({
      description:
        'The version the host speaks with this extension: 2 when its hello said protocol_version 2, else 1.',
    }),
    zot_version: Type.Optional(Type.String()),
    provider: Type.Optional(Type.String()),
    model: Type.Optional(Type.String()),
    cwd: Type.Optional(Type.String({ description: "The user's project directory." })),
    extension_dir: Type.Optional(Type.String({ description: "The extension's own directory." })),
    data_dir: Type.Optional(Type.String({ description: 'Where the extension keeps its state.' })),
  },
  'Reply to hello with host metadata.',
);

export const CommandInvokedFrameSchema = frame(
  'command_invoked',
  {
    id: Id,
    name: Type.String({ description: 'The command name as registered.' }),
    args: Type.Optional(Type.String({ description: 'Text after the command name, trimmed.' })),
  },
  'The user ran a registered slash command.',
);

export const ToolCallFrameSchema = frame(
  'tool_call',
  {
    id: Id,
    name: Type.String({ description: 'The tool name as registered.' }),
    args: Type.Optional(orNull(ToolArgs)),
  },
  'The model called a registered tool; reply tool_result.',
);

/** An `event` frame, titled after its event: `turn_start` -> `TurnStartEventFrame`. */
function eventFrame<const E extends string, P extends TProperties>(
  event: E,
  properties: P,
  description: string,
) {
  const props = { event: Type.Literal(event), ...properties };
  return frame('event', props, description, `${pascalCase(event)}EventFrame`);
}

export const SessionStartEventFrameSchema = eventFrame('session_start', {}, 'A session started.');
export const TurnStartEventFrameSchema = eventFrame(
  'turn_start',
  { step: Type.Optional(Step) },
  'A turn is about to call the model.',
);
export const TurnEndEventFrameSchema = eventFrame(
  'turn_end',
  {
    stop: Type.Optional(literalUnion(TURN_END_STOPS)),
    error: Type.Optional(
      Type.String({ description: 'Why the turn failed, when stop is "error".' }),
    ),
  },
  'A turn ended.',
);
/** The call a `tool_call` event or interception is about (fresh schemas at each use). */
const toolCallFields = () => ({
  tool_id: Type.Optional(Type.String()),
  tool_name: Type.Optional(Type.String()),
  tool_args: Type.Optional(ToolArgs),
});

export const ToolCallEventFrameSchema = eventFrame(
  'tool_call',
  toolCallFields(),
  'A tool call is about to run.',
);
export const ToolConfirmationRequestedEventFrameSchema = eventFrame(
  'tool_confirmation_requested',
  {
    tool_id: Type.Optional(Type.String()),
    tool_name: Type.Optional(Type.String()),
    tool_preview: Type.Optional(Type.String({ description: 'Preview shown in the dialog.' })),
  },
  'The host waits for interactive approval of a tool call.',
);
export const AssistantMessageEventFrameSchema = eventFrame(
  'assistant_message',
  { text: Type.Optional(Type.String()) },
  'The assistant finished a message.',
);

export const EventFrameSchema = Type.Union(
  [
    SessionStartEventFrameSchema,
    TurnStartEventFrameSchema,
    TurnEndEventFrameSchema,
    ToolCallEventFrameSchema,
    ToolConfirmationRequestedEventFrameSchema,
    AssistantMessageEventFrameSchema,
  ],
  {
    title: 'EventFrame',
    description: 'A subscribed lifecycle event, discriminated on `event`; no reply.',
  },
);

/** An `event_intercept` frame: `turn_start` -> `TurnStartInterceptFrame`. */
function interceptFrame<const E extends string, P extends TProperties>(
  event: E,
  properties: P,
  description: string,
) {
  const props = { id: Id, event: Type.Literal(event), ...properties };
  return frame('event_intercept', props, description, `${pascalCase(event)}InterceptFrame`);
}

export const ToolCallInterceptFrameSchema = interceptFrame(
  'tool_call',
  toolCallFields(),
  'Block the call or rewrite its args.',
);
export const TurnStartInterceptFrameSchema = interceptFrame(
  'turn_start',
  { step: Type.Optional(Step) },
  'Block the turn before the model is called.',
);
export const AssistantMessageInterceptFrameSchema = interceptFrame(
  'assistant_message',
  { text: Type.Optional(Type.String({ description: 'The assembled assistant text.' })) },
  'Suppress or rewrite the user-visible text.',
);

export const ToolResultInterceptFrameSchema = interceptFrame(
  'tool_result',
  {
    tool: Type.Optional(Type.String({ description: 'The tool that ran.' })),
    args: Type.Optional(ToolArgs),
    tool_call_id: Type.Optional(Type.String()),
    content: Type.Optional(
      Type.Array(ContentBlockSchema, { description: "The result's content blocks." }),
    ),
    is_error: Type.Optional(Type.Boolean()),
  },
  'Version 2: allow, replace the content (replace_content), or block (the model gets an error with the reason) a tool result before the model sees it.',
);
export const UserPromptInterceptFrameSchema = interceptFrame(
  'user_prompt',
  {
    text: Type.Optional(Type.String({ description: "The prompt's text." })),
    source: Type.Optional(
      literalUnion(PROMPT_SOURCES, {
        description: 'typed by the user, submitted by an extension, steering, or queued.',
      }),
    ),
  },
  'Version 2: allow, rewrite (modified_text) or block (the reason is shown to the user) a prompt.',
);

export const EventInterceptFrameSchema = Type.Union(
  [
    ToolCallInterceptFrameSchema,
    TurnStartInterceptFrameSchema,
    AssistantMessageInterceptFrameSchema,
    ToolResultInterceptFrameSchema,
    UserPromptInterceptFrameSchema,
  ],
  {
    title: 'EventInterceptFrame',
    description: 'A chance to block or rewrite an event; reply event_intercept_response.',
  },
);

export const PanelKeyFrameSchema = frame(
  'panel_key',
  {
    panel_id: Type.String(),
    key: literalUnion(PANEL_KEYS, { description: 'Normalized key name.' }),
    text: Type.Optional(Type.String({ description: 'The typed character when key is "rune".' })),
  },
  'A key pressed while the panel is focused.',
);

export const ShutdownFrameSchema = frame(
  'shutdown',
  {},
  'Graceful exit: reply shutdown_ack, then exit.',
);

export type HelloAckFrame = Static<typeof HelloAckFrameSchema>;
export type CommandInvokedFrame = Static<typeof CommandInvokedFrameSchema>;
export type ToolCallFrame = Static<typeof ToolCallFrameSchema>;
export type SessionStartEventFrame = Static<typeof SessionStartEventFrameSchema>;
export type TurnStartEventFrame = Static<typeof TurnStartEventFrameSchema>;
export type TurnEndEventFrame = Static<typeof TurnEndEventFrameSchema>;
export type ToolCallEventFrame = Static<typeof ToolCallEventFrameSchema>;
export type ToolConfirmationRequestedEventFrame = Static<
  typeof ToolConfirmationRequestedEventFrameSchema
>;
export type AssistantMessageEventFrame = Static<typeof AssistantMessageEventFrameSchema>;
export type EventFrame = Static<typeof EventFrameSchema>;
export type ToolCallInterceptFrame = Static<typeof ToolCallInterceptFrameSchema>;
export type TurnStartInterceptFrame = Static<typeof TurnStartInterceptFrameSchema>;
export type AssistantMessageInterceptFrame = Static<typeof AssistantMessageInterceptFrameSchema>;
export type ToolResultInterceptFrame = Static<typeof ToolResultInterceptFrameSchema>;
export type UserPromptInterceptFrame = Static<typeof UserPromptInterceptFrameSchema>;
export type EventInterceptFrame = Static<typeof EventInterceptFrameSchema>;
export type PanelKeyFrame = Static<typeof PanelKeyFrameSchema>;
export type ShutdownFrame = Static<typeof ShutdownFrameSchema>;

/** Schema of every host → extension frame, keyed by wire `type` (table order = spec order). */
export const FRAME_SCHEMAS_FROM_HOST = {
  hello_ack: HelloAckFrameSchema,
  command_invoked: CommandInvokedFrameSchema,
  tool_call: ToolCallFrameSchema,
  event: EventFrameSchema,
  event_intercept: EventInterceptFrameSchema,
  panel_key: PanelKeyFrameSchema,
  panel_close: PanelCloseFrameSchema,
  shutdown: ShutdownFrameSchema,
  cancel: CancelFrameSchema,
  ui_response: UiResponseFrameSchema,
} as const;

/** Every frame the host may send, discriminated on `type`. */
export type FrameFromHost = {
  [K in keyof typeof FRAME_SCHEMAS_FROM_HOST]: Static<(typeof FRAME_SCHEMAS_FROM_HOST)[K]>;
}[keyof typeof FRAME_SCHEMAS_FROM_HOST];
export type FrameTypeFromHost = FrameFromHost['type'];
