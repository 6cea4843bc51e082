// Frames of protocol version 2 beyond interception: cancellation, progress, asking the user,
// removing a tool, and the UI-only details of a tool result. Each is bounded in its schema, so a
// receiver refuses an oversized one by name before acting on it.
import { Type, type Static } from '@sinclair/typebox';
import { frame, literalUnion } from './schema-util.js';
import { UI_KINDS, V2_LIMITS } from './v2-limits.js';

export const CancelFrameSchema = frame(
  'cancel',
  {
    id: Type.String({
      description: 'The id of the tool_call or command_invoked the host no longer waits for.',
    }),
  },
  'Version 2: the call was aborted (Esc, RPC abort, timeout, shutdown); stop its work. A reply sent after it is ignored.',
);

export const ToolProgressFrameSchema = frame(
  'tool_progress',
  {
    id: Type.String({ description: 'The id of the tool_call in flight.' }),
    text: Type.String({ maxLength: V2_LIMITS.progressText, description: 'One progress line.' }),
  },
  'Version 2: a progress line for a tool call in flight (shown live; rate-limited by the host).',
);

export const UiRequestFrameSchema = frame(
  'ui_request',
  {
    id: Type.String({ maxLength: 200, description: "The extension's id for this question." }),
    kind: literalUnion(UI_KINDS),
    title: Type.String({ maxLength: V2_LIMITS.uiTitle }),
    options: Type.Optional(
      Type.Array(Type.String({ maxLength: V2_LIMITS.uiOption }), {
        minItems: 1,
        maxItems: V2_LIMITS.uiOptions,
        description: `select: the choices, 1 to ${V2_LIMITS.uiOptions} (the answer is one of them).`,
      }),
    ),
    mask: Type.Optional(Type.Boolean({ description: 'input: hide what is typed.' })),
    timeout_ms: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: V2_LIMITS.uiTimeoutMs,
        description: `How long to wait for the user (1 to ${V2_LIMITS.uiTimeoutMs} ms); then the answer is cancelled.`,
      }),
    ),
  },
  'Version 2: asks the user; the host answers ui_response with the same id.',
);

export const UiResponseFrameSchema = frame(
  'ui_response',
  {
    id: Type.String({ description: 'The id of the ui_request answered.' }),
    value: Type.Optional(
      Type.Union([Type.Boolean(), Type.String({ maxLength: V2_LIMITS.uiValue })], {
        description: 'confirm: a boolean; select: the chosen option; input: the text typed.',
      }),
    ),
    cancelled: Type.Optional(Type.Boolean({ description: 'Dismissed, or past its deadline.' })),
    unavailable: Type.Optional(
      Type.Boolean({ description: 'Nobody can answer (print and JSON runs).' }),
    ),
  },
  'Version 2: the answer to a ui_request: value, or cancelled, or unavailable.',
);

export const UnregisterToolFrameSchema = frame(
  'unregister_tool',
  { name: Type.String({ description: 'A tool this extension registered.' }) },
  'Version 2: removes a tool this extension registered.',
);

export type CancelFrame = Static<typeof CancelFrameSchema>;
export type ToolProgressFrame = Static<typeof ToolProgressFrameSchema>;
export type UiRequestFrame = Static<typeof UiRequestFrameSchema>;
export type UiResponseFrame = Static<typeof UiResponseFrameSchema>;
export type UnregisterToolFrame = Static<typeof UnregisterToolFrameSchema>;
