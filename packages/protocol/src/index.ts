// @zot/protocol: frame types, boundary validation, JSONL framing and limits.
// Imports nothing of ours. At runtime it loads only node built-ins and the validators
// generated from the TypeBox schemas; the schemas themselves (and TypeBox) live behind
// `@zot/protocol/schemas`. Type exports are erased, so they cost nothing at runtime.
export {
  COMMAND_ACTIONS,
  EVENT_NAMES,
  INTERCEPTABLE_EVENTS,
  KNOWN_CAPABILITIES,
  MAX_FRAME_BYTES,
  NOTIFY_LEVELS,
  PANEL_KEYS,
  PROTOCOL_VERSION,
  TURN_END_STOPS,
  isEventName,
  isInterceptableEvent,
  type CommandAction,
  type EventName,
  type InterceptableEvent,
  type NotifyLevel,
  type PanelKey,
  type TurnEndStop,
} from './constants.js';
// `export type` (not `export { type X }`): verbatimModuleSyntax keeps the latter as a
// runtime `export {} from`, which would load the schema module and TypeBox.
export type {
  ClearNotesFrame,
  CommandResponseFrame,
  ContentBlock,
  DisplayFrame,
  EventInterceptResponseFrame,
  FrameFromExtension,
  FrameTypeFromExtension,
  HelloFrame,
  ImageBlock,
  NotifyFrame,
  PanelCloseFrame,
  PanelRenderFrame,
  OpenPanelFrame,
  PanelSpec,
  ReadyFrame,
  RegisterCommandFrame,
  RegisterToolFrame,
  ShutdownAckFrame,
  SubmitFrame,
  SubscribeFrame,
  TextBlock,
  ToolResultFrame,
} from './frames-extension.js';
export type {
  AssistantMessageEventFrame,
  AssistantMessageInterceptFrame,
  CommandInvokedFrame,
  EventFrame,
  EventInterceptFrame,
  FrameFromHost,
  FrameTypeFromHost,
  HelloAckFrame,
  PanelKeyFrame,
  SessionStartEventFrame,
  ShutdownFrame,
  ToolCallEventFrame,
  ToolCallFrame,
  ToolCallInterceptFrame,
  ToolConfirmationRequestedEventFrame,
  TurnEndEventFrame,
  TurnStartEventFrame,
  TurnStartInterceptFrame,
} from './frames-host.js';
export {
  FRAME_TYPES_FROM_EXTENSION,
  FRAME_TYPES_FROM_HOST,
  checkFrameFromExtension,
  checkFrameFromHost,
  decodeFromExtension,
  decodeFromHost,
  encodeFrame,
  type DecodeFailure,
  type DecodeFailureKind,
  type DecodeResult,
} from './decode.js';
export { MAX_JSON_DEPTH, exceedsJsonDepth, parseBoundedJson } from './bounds.js';
export { formatFrameError, type FrameValidator, type Shape } from './errors.js';
export { LineSplitter, createLineDecoder, type LineDecoderOptions } from './jsonl.js';
export type { SendOptions, Transport, TransportExit, TransportHandlers } from './transport.js';
export { InMemoryTransport } from './in-memory-transport.js';
export {
  Peer,
  REPLY_TYPE,
  RequestError,
  answer,
  isReplyType,
  isRequestType,
  type Delivery,
  type OutgoingRequest,
  type ReplyBody,
  type ReplyFrame,
  type ReplyTo,
  type ReplyType,
  type RequestFrame,
  type RequestOf,
  type RequestType,
} from './peer.js';
