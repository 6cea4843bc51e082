// Protocol constants and the closed vocabularies of extensions.md.
// Contract: every list here is the single source for both the frame schemas and callers' guards.

/**
 * The newest wire protocol version zot speaks. An extension opts in by sending it as
 * `hello.protocol_version`; `hello_ack.protocol_version` is the version the host then speaks with
 * that extension (see negotiateProtocolVersion).
 */
export const PROTOCOL_VERSION = 2;

/** The version of an extension whose hello names none: it sees exactly the original frames. */
export const BASE_PROTOCOL_VERSION = 1;

/** The versions a connection can speak. */
export type ProtocolVersion = 1 | 2;

/**
 * The version the host speaks with an extension whose hello said `requested`: 2 for 2 or later
 * (the newest zot knows), 1 for anything else (absent, 1, or a version that never existed).
 */
export function negotiateProtocolVersion(requested: unknown): ProtocolVersion {
  return typeof requested === 'number' && Number.isInteger(requested) && requested >= 2 ? 2 : 1;
}

/**
 * Frame types (either way) that exist from protocol version 2 only: the host never sends one to a
 * version-1 extension and refuses one from it.
 */
export const V2_FRAME_TYPES = [
  'cancel',
  'tool_progress',
  'ui_request',
  'ui_response',
  'unregister_tool',
] as const;

/** Interceptable events of protocol version 2 (a version-1 extension cannot subscribe to them). */
export const V2_INTERCEPTABLE_EVENTS = ['tool_result', 'user_prompt'] as const;

/** Longest accepted line (frame) in bytes, excluding its LF (design D12: 32 MiB). */
export const MAX_FRAME_BYTES = 32 * 1024 * 1024;

/** Lifecycle events an extension may `subscribe` to. */
export const EVENT_NAMES = [
  'session_start',
  'turn_start',
  'turn_end',
  'tool_call',
  'tool_confirmation_requested',
  'assistant_message',
] as const;
export type EventName = (typeof EVENT_NAMES)[number];

/** Events an extension may `intercept` (block or rewrite) via `event_intercept`. */
export const INTERCEPTABLE_EVENTS = [
  'tool_call',
  'turn_start',
  'assistant_message',
  ...V2_INTERCEPTABLE_EVENTS,
] as const;
export type InterceptableEvent = (typeof INTERCEPTABLE_EVENTS)[number];

/** `turn_end.stop` values (design D16); the same set is used by JSON/RPC events. */
export const TURN_END_STOPS = ['end_turn', 'tool_use', 'length', 'error', 'aborted'] as const;
export type TurnEndStop = (typeof TURN_END_STOPS)[number];

/** `user_prompt.source` values: typed (or sent by a front end), an extension's, steering, queued. */
export const PROMPT_SOURCES = ['user', 'extension', 'steer', 'queue'] as const;
export type PromptSource = (typeof PROMPT_SOURCES)[number];

/** Longest `add_context` a turn_start interceptor may return, in characters. */
export const MAX_ADD_CONTEXT_CHARS = 64 * 1024;

/** Longest `modified_text` a user_prompt interceptor may return, in characters. */
export const MAX_MODIFIED_PROMPT_CHARS = 1024 * 1024;

/** `notify.level` values. */
export const NOTIFY_LEVELS = ['info', 'success', 'warn', 'error'] as const;
export type NotifyLevel = (typeof NOTIFY_LEVELS)[number];

/** `command_response.action` values. */
export const COMMAND_ACTIONS = ['prompt', 'insert', 'display', 'open_panel', 'noop'] as const;
export type CommandAction = (typeof COMMAND_ACTIONS)[number];

/** Normalized key names sent in `panel_key.key`; `rune` carries the character in `text`. */
export const PANEL_KEYS = [
  'up',
  'down',
  'left',
  'right',
  'enter',
  'esc',
  'tab',
  'pageup',
  'pagedown',
  'home',
  'end',
  'backspace',
  'delete',
  'rune',
] as const;
export type PanelKey = (typeof PANEL_KEYS)[number];

/** Capabilities the spec names for `hello.capabilities` (others are tolerated). */
export const KNOWN_CAPABILITIES = ['commands', 'tools', 'events', 'panels'] as const;

const eventNames: ReadonlySet<string> = new Set(EVENT_NAMES);
const interceptable: ReadonlySet<string> = new Set(INTERCEPTABLE_EVENTS);

/** True when `name` is a recognised lifecycle event (subscribe lists are free-form strings). */
export function isEventName(name: unknown): name is EventName {
  return typeof name === 'string' && eventNames.has(name);
}

/** True when `name` is an event that may be intercepted. */
export function isInterceptableEvent(name: unknown): name is InterceptableEvent {
  return typeof name === 'string' && interceptable.has(name);
}

const v2FrameTypes: ReadonlySet<string> = new Set(V2_FRAME_TYPES);
const v2Intercepts: ReadonlySet<string> = new Set(V2_INTERCEPTABLE_EVENTS);

/** The lowest protocol version at which a frame of this `type` (and `event`, if any) exists. */
export function frameVersion(frame: { type: string; event?: unknown }): ProtocolVersion {
  if (v2FrameTypes.has(frame.type)) return 2;
  if (frame.type === 'event_intercept' && typeof frame.event === 'string')
    return v2Intercepts.has(frame.event) ? 2 : 1;
  return 1;
}

/** The lowest protocol version at which `event` may be intercepted (1 for unknown names). */
export function interceptVersion(event: string): ProtocolVersion {
  return v2Intercepts.has(event) ? 2 : 1;
}
