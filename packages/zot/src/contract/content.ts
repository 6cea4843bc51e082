// The conversation's content blocks and messages, schema-first: the TypeScript types of
// providers/types.ts, the RPC schema and the events are all derived from these definitions.
// Other modules import them with `import type` only, so TypeBox never loads at run time
// outside the schema generator.
import { Type, type Static } from '@sinclair/typebox';
import { ToolDetailsSchema } from './tool-details.js';

export const TextBlockSchema = Type.Object({ type: Type.Literal('text'), text: Type.String() });
export const ImageBlockSchema = Type.Object(
  {
    type: Type.Literal('image'),
    mime_type: Type.String(),
    data: Type.String({ description: 'base64, without a data: prefix' }),
  },
  { description: 'In RPC get_messages, images carry `bytes` instead of `data`' },
);
export const ThinkingBlockSchema = Type.Object({
  type: Type.Literal('thinking'),
  thinking: Type.String(),
  signature: Type.Optional(
    Type.String({ description: 'Anthropic: must be echoed back unchanged on later requests' }),
  ),
});
export const ToolCallBlockSchema = Type.Object({
  type: Type.Literal('tool_call'),
  id: Type.String(),
  name: Type.String(),
  args: Type.Record(Type.String(), Type.Unknown()),
});
export const ToolContentSchema = Type.Union([TextBlockSchema, ImageBlockSchema]);
export const ToolResultAttributionSchema = Type.Object(
  { extension: Type.String(), tool: Type.String() },
  { description: 'Which extension, and which of its tools, produced a tool result' },
);
export const ToolResultBlockSchema = Type.Object({
  type: Type.Literal('tool_result'),
  call_id: Type.String(),
  name: Type.Optional(Type.String({ description: 'The tool that was called' })),
  is_error: Type.Boolean(),
  content: Type.Array(ToolContentSchema),
  // Set for extension tools; request builders never send it to a model API.
  attribution: Type.Optional(ToolResultAttributionSchema),
  details: Type.Optional(ToolDetailsSchema),
});
export const UserContentSchema = Type.Union([TextBlockSchema, ImageBlockSchema]);
export const AssistantContentSchema = Type.Union([
  TextBlockSchema,
  ThinkingBlockSchema,
  ToolCallBlockSchema,
]);

const Time = Type.String({ description: 'ISO 8601' });
export const UserMessageSchema = Type.Object({
  role: Type.Literal('user'),
  content: Type.Array(UserContentSchema),
  time: Time,
  context: Type.Optional(
    Type.String({
      description:
        "Set on context an extension added to a turn (a turn_start interceptor's add_context): the extension that added it. Not typed by the user.",
    }),
  ),
});
export const AssistantMessageSchema = Type.Object({
  role: Type.Literal('assistant'),
  content: Type.Array(AssistantContentSchema),
  time: Time,
  refusal: Type.Optional(
    Type.Literal(true, { description: 'The model declined to answer; its text says why' }),
  ),
  cancelled: Type.Optional(
    Type.Literal(true, {
      description:
        'The user cancelled the reply here: the content is what came before (often nothing)',
    }),
  ),
  shown: Type.Optional(
    Type.Array(AssistantContentSchema, {
      description:
        'What the user was shown when an extension rewrote the message (replace_text): `content` keeps what the model said, which the model gets back on later turns',
    }),
  ),
});
export const ToolMessageSchema = Type.Object(
  { role: Type.Literal('tool'), content: Type.Array(ToolResultBlockSchema), time: Time },
  { description: 'Results of the tool calls of the preceding assistant message, in call order' },
);
export const MessageSchema = Type.Union([
  UserMessageSchema,
  AssistantMessageSchema,
  ToolMessageSchema,
]);

export const STOP_REASONS = ['end_turn', 'tool_use', 'length', 'error', 'aborted'] as const;
export const StopReasonSchema = Type.Union(STOP_REASONS.map((s) => Type.Literal(s)));

export type TextBlock = Static<typeof TextBlockSchema>;
export type ImageBlock = Static<typeof ImageBlockSchema>;
export type ThinkingBlock = Static<typeof ThinkingBlockSchema>;
export type ToolCallBlock = Static<typeof ToolCallBlockSchema>;
export type ToolResultAttribution = Static<typeof ToolResultAttributionSchema>;
export type ToolResultBlock = Static<typeof ToolResultBlockSchema>;
export type UserContent = Static<typeof UserContentSchema>;
export type AssistantContent = Static<typeof AssistantContentSchema>;
export type UserMessage = Static<typeof UserMessageSchema>;
export type AssistantMessage = Static<typeof AssistantMessageSchema>;
export type ToolMessage = Static<typeof ToolMessageSchema>;
export type Message = Static<typeof MessageSchema>;
export type StopReason = (typeof STOP_REASONS)[number];
