// @zot/protocol/schemas: the TypeBox frame schemas (the single source of the frame types,
// the committed JSON Schema and the generated validators) and the JSON Schema document.
// Loads TypeBox (~100 ms): for tooling, tests and code generation, not for decoding, which
// the main entry does with the generated validators.
export {
  ClearNotesFrameSchema,
  CommandResponseFrameSchema,
  ContentBlockSchema,
  DisplayFrameSchema,
  EventInterceptResponseFrameSchema,
  FRAME_SCHEMAS_FROM_EXTENSION,
  HelloFrameSchema,
  ImageBlockSchema,
  NotifyFrameSchema,
  PanelCloseFrameSchema,
  PanelRenderFrameSchema,
  PanelSpecSchema,
  ReadyFrameSchema,
  RegisterCommandFrameSchema,
  RegisterToolFrameSchema,
  ShutdownAckFrameSchema,
  SubmitFrameSchema,
  SubscribeFrameSchema,
  TextBlockSchema,
  ToolResultFrameSchema,
} from './frames-extension.js';
export {
  AssistantMessageEventFrameSchema,
  AssistantMessageInterceptFrameSchema,
  CommandInvokedFrameSchema,
  EventFrameSchema,
  EventInterceptFrameSchema,
  FRAME_SCHEMAS_FROM_HOST,
  HelloAckFrameSchema,
  PanelKeyFrameSchema,
  SessionStartEventFrameSchema,
  ShutdownFrameSchema,
  ToolCallEventFrameSchema,
  ToolCallFrameSchema,
  ToolCallInterceptFrameSchema,
  ToolConfirmationRequestedEventFrameSchema,
  TurnEndEventFrameSchema,
  TurnStartEventFrameSchema,
  TurnStartInterceptFrameSchema,
} from './frames-host.js';
export { EXTENSION_PROTOCOL_SCHEMA_DOCUMENT } from './schema-document.js';
export {
  CancelFrameSchema,
  ToolProgressFrameSchema,
  UiRequestFrameSchema,
  UiResponseFrameSchema,
  UnregisterToolFrameSchema,
} from './frames-v2.js';
