// Frames an extension writes to the host (extensions.md "Extension → host"), schema first.
// Required fields are only what a receiver cannot act without: `type`, correlation ids
// (`id`, `panel_id`, `open_panel.id`) and registration names. Everything else is optional,
// because SDKs omit empty fields (Go `omitempty`). Unknown fields are allowed everywhere.
import { Type, type Static } from '@sinclair/typebox';
import { COMMAND_ACTIONS, NOTIFY_LEVELS } from './constants.js';
import {
  ToolProgressFrameSchema,
  UiRequestFrameSchema,
  UnregisterToolFrameSchema,
} from './frames-v2.js';
import { frame, jsonObject, literalUnion, orNull } from './schema-util.js';

const Id = Type.String({ description: 'Echo of the id of the host request this frame answers.' });
const PanelId = Type.String({ description: 'Identifier of an extension-owned panel.' });
const PanelLines = Type.Array(Type.String(), { description: 'Panel body, one entry per line.' });

export const TextBlockSchema = Type.Object(
  { type: Type.Literal('text'), text: Type.Optional(Type.String()) },
  { title: 'TextBlock', description: 'A text block of tool output.' },
);
export const ImageBlockSchema = Type.Object(
  {
    type: Type.Literal('image'),
    mime_type: Type.Optional(Type.String({ description: 'For example "image/png".' })),
    data: Type.Optional(Type.String({ description: 'Base64-encoded image bytes.' })),
  },
  { title: 'ImageBlock', description: 'An image block of tool output.' },
);
export const ContentBlockSchema = Type.Union([TextBlockSchema, ImageBlockSchema], {
  title: 'ContentBlock',
  description: 'One block of tool output, discriminated on `type`.',
});

export const PanelSpecSchema = Type.Object(
  {
    id: PanelId,
    title: Type.Optional(Type.String()),
    lines: Type.Optional(PanelLines),
    footer: Type.Optional(Type.String()),
  },
  { title: 'PanelSpec', description: 'Initial content of a panel opened by `open_panel`.' },
);

export const HelloFrameSchema = frame(
  'hello',
  {
    name: Type.String({ description: 'Extension name; should match the manifest name.' }),
    version: Type.Optional(Type.String()),
    protocol_version: Type.Optional(
      Type.Integer({
        description:
          'The protocol version the extension speaks: 2 opts in to version 2; absent means 1 (exactly the original frames).',
      }),
    ),
    capabilities: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'Informational, for example "commands", "tools", "panels"; names the host does not know are ignored.',
      }),
    ),
  },
  'Required first frame on stdout; the host replies hello_ack.',
);

export const RegisterCommandFrameSchema = frame(
  'register_command',
  {
    name: Type.String({ description: 'Slash command name, matched case-insensitively.' }),
    description: Type.Optional(Type.String()),
  },
  'Registers a slash command.',
);

export const RegisterToolFrameSchema = frame(
  'register_tool',
  {
    name: Type.String({ description: 'Tool name, in the namespace of the built-in tools.' }),
    description: Type.Optional(Type.String()),
    schema: Type.Optional(
      orNull(jsonObject(), { description: 'JSON Schema object describing the tool arguments.' }),
    ),
    deferred: Type.Optional(
      Type.Boolean({ description: 'Register without advertising until named in activate_tools.' }),
    ),
  },
  'Registers a tool the model can call.',
);

export const ReadyFrameSchema = frame('ready', {}, 'All initial registrations are flushed.');

export const ToolResultFrameSchema = frame(
  'tool_result',
  {
    id: Id,
    content: Type.Optional(orNull(Type.Array(ContentBlockSchema))),
    is_error: Type.Optional(Type.Boolean({ description: 'Marks the call as failed.' })),
    activate_tools: Type.Optional(
      Type.Array(Type.String(), { description: 'Registered deferred tools to make available.' }),
    ),
    details: Type.Optional(
      jsonObject({
        description:
          'Version 2: what front ends render and the model never sees: {"kind":"diff","diff":"..."} or {"kind":"table","columns":[...],"rows":[[...]]}; other kinds are ignored.',
      }),
    ),
  },
  'Reply to a tool_call.',
);

export const SubscribeFrameSchema = frame(
  'subscribe',
  {
    events: Type.Optional(
      Type.Array(Type.String(), { description: 'Events to observe; unknown names are ignored.' }),
    ),
    intercept: Type.Optional(
      Type.Array(Type.String(), { description: 'Events to intercept; unknown names are ignored.' }),
    ),
  },
  'Declares observed and intercepted lifecycle events.',
);

export const EventInterceptResponseFrameSchema = frame(
  'event_intercept_response',
  {
    id: Id,
    block: Type.Optional(Type.Boolean({ description: 'Refuse the action.' })),
    reason: Type.Optional(Type.String({ description: 'Refusal text or pass-through note.' })),
    modified_args: Type.Optional(
      Type.Unknown({ description: 'tool_call only: rewritten args; ignored unless an object.' }),
    ),
    replace_text: Type.Optional(
      Type.String({
        description:
          'assistant_message only: replaces the user-visible text; the model keeps its original unless scope is "transcript".',
      }),
    ),
    scope: Type.Optional(
      Type.String({
        description:
          'Version 2, with replace_text: "transcript" also replaces the text the model gets back on later turns (audited).',
      }),
    ),
    replace_content: Type.Optional(
      Type.Array(ContentBlockSchema, {
        description: 'Version 2, tool_result only: the content the model gets instead.',
      }),
    ),
    modified_text: Type.Optional(
      Type.String({ description: 'Version 2, user_prompt only: the prompt text instead.' }),
    ),
    add_context: Type.Optional(
      Type.String({
        description:
          'Version 2, turn_start only: context the model gets for this turn, marked and attributed to the extension.',
      }),
    ),
    error: Type.Optional(
      Type.String({
        description:
          "zot's addition: the extension could not decide (a frame it could not read, an interceptor that failed); the answer is not a decision and zot applies the manifest's intercept_failure policy.",
      }),
    ),
  },
  'Reply to an event_intercept; every field defaults to allow, unmodified. With `error` set it is a failure, not a decision.',
);

export const CommandResponseFrameSchema = frame(
  'command_response',
  {
    id: Id,
    action: Type.Optional(literalUnion(COMMAND_ACTIONS)),
    prompt: Type.Optional(Type.String({ description: 'action "prompt": the user message.' })),
    insert: Type.Optional(Type.String({ description: 'action "insert": text for the editor.' })),
    display: Type.Optional(Type.String({ description: 'action "display": a one-shot note.' })),
    open_panel: Type.Optional(PanelSpecSchema),
    error: Type.Optional(
      Type.String({ description: 'When non-empty: shown in red; the action is not applied.' }),
    ),
  },
  'Reply to a command_invoked.',
);

export const SubmitFrameSchema = frame(
  'submit',
  { text: Type.Optional(Type.String({ description: 'Prompt text; blank text is ignored.' })) },
  'Submits (or queues) a user prompt in the TUI.',
);

export const PanelRenderFrameSchema = frame(
  'panel_render',
  {
    panel_id: PanelId,
    title: Type.Optional(Type.String()),
    lines: Type.Optional(PanelLines),
    footer: Type.Optional(Type.String()),
  },
  'Redraws an open panel.',
);

/** zot's addition to the spec: a panel opened without a command (an approval during a tool call). */
export const OpenPanelFrameSchema = frame(
  'open_panel',
  { panel: PanelSpecSchema },
  "zot's addition: opens a panel on the extension's own initiative (e.g. to ask during a tool call); as a command's open_panel.",
);

/** Same shape in both directions: the extension closes its panel, or the host reports a close. */
export const PanelCloseFrameSchema = frame(
  'panel_close',
  { panel_id: PanelId },
  'A panel was closed (by either side).',
);

export const NotifyFrameSchema = frame(
  'notify',
  {
    level: Type.Optional(literalUnion(NOTIFY_LEVELS, { description: 'Defaults to "info".' })),
    message: Type.Optional(Type.String()),
  },
  'A one-shot note shown below the transcript.',
);

export const DisplayFrameSchema = frame(
  'display',
  { text: Type.Optional(Type.String()) },
  'A one-shot styled note (ext_display in JSON/RPC).',
);

export const ClearNotesFrameSchema = frame(
  'clear_notes',
  {},
  'Removes every note this extension pushed.',
);

export const ShutdownAckFrameSchema = frame(
  'shutdown_ack',
  {},
  'Reply to shutdown; exit promptly after.',
);

export type TextBlock = Static<typeof TextBlockSchema>;
export type ImageBlock = Static<typeof ImageBlockSchema>;
export type ContentBlock = Static<typeof ContentBlockSchema>;
export type PanelSpec = Static<typeof PanelSpecSchema>;
export type HelloFrame = Static<typeof HelloFrameSchema>;
export type RegisterCommandFrame = Static<typeof RegisterCommandFrameSchema>;
export type RegisterToolFrame = Static<typeof RegisterToolFrameSchema>;
export type ReadyFrame = Static<typeof ReadyFrameSchema>;
export type ToolResultFrame = Static<typeof ToolResultFrameSchema>;
export type SubscribeFrame = Static<typeof SubscribeFrameSchema>;
export type EventInterceptResponseFrame = Static<typeof EventInterceptResponseFrameSchema>;
export type CommandResponseFrame = Static<typeof CommandResponseFrameSchema>;
export type SubmitFrame = Static<typeof SubmitFrameSchema>;
export type PanelRenderFrame = Static<typeof PanelRenderFrameSchema>;
export type OpenPanelFrame = Static<typeof OpenPanelFrameSchema>;
export type PanelCloseFrame = Static<typeof PanelCloseFrameSchema>;
export type NotifyFrame = Static<typeof NotifyFrameSchema>;
export type DisplayFrame = Static<typeof DisplayFrameSchema>;
export type ClearNotesFrame = Static<typeof ClearNotesFrameSchema>;
export type ShutdownAckFrame = Static<typeof ShutdownAckFrameSchema>;

/** Schema of every extension → host frame, keyed by wire `type` (table order = spec order). */
export const FRAME_SCHEMAS_FROM_EXTENSION = {
  hello: HelloFrameSchema,
  register_command: RegisterCommandFrameSchema,
  register_tool: RegisterToolFrameSchema,
  ready: ReadyFrameSchema,
  tool_result: ToolResultFrameSchema,
  subscribe: SubscribeFrameSchema,
  event_intercept_response: EventInterceptResponseFrameSchema,
  command_response: CommandResponseFrameSchema,
  submit: SubmitFrameSchema,
  panel_render: PanelRenderFrameSchema,
  panel_close: PanelCloseFrameSchema,
  open_panel: OpenPanelFrameSchema,
  notify: NotifyFrameSchema,
  display: DisplayFrameSchema,
  clear_notes: ClearNotesFrameSchema,
  shutdown_ack: ShutdownAckFrameSchema,
  tool_progress: ToolProgressFrameSchema,
  ui_request: UiRequestFrameSchema,
  unregister_tool: UnregisterToolFrameSchema,
} as const;

/** Every frame an extension may send, discriminated on `type`. */
export type FrameFromExtension = {
  [K in keyof typeof FRAME_SCHEMAS_FROM_EXTENSION]: Static<
    (typeof FRAME_SCHEMAS_FROM_EXTENSION)[K]
  >;
}[keyof typeof FRAME_SCHEMAS_FROM_EXTENSION];
export type FrameTypeFromExtension = FrameFromExtension['type'];
