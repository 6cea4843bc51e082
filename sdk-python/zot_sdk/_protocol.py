"""The protocol's vocabulary, generated from packages/protocol by scripts/gen-schema.mjs.

Do not edit: run `npm run gen:schema`. npm test fails when this file is not what the
definitions give, so the Python SDK cannot drift from the protocol.
"""

#: The newest protocol version (hello asks for it; hello_ack says what the host speaks).
PROTOCOL_VERSION = 2
#: The longest line (frame) in bytes, without its LF.
MAX_LINE_BYTES = 33554432
#: Lifecycle events an extension can subscribe to.
EVENTS = (
    "session_start",
    "turn_start",
    "turn_end",
    "tool_call",
    "tool_confirmation_requested",
    "assistant_message",
)
#: Events an extension can intercept (block or rewrite).
INTERCEPTABLE_EVENTS = (
    "tool_call",
    "turn_start",
    "assistant_message",
    "tool_result",
    "user_prompt",
)
#: Note levels (notify.level).
NOTIFY_LEVELS = ("info", "success", "warn", "error")
#: What zot does after a slash command (command_response.action).
COMMAND_ACTIONS = ("prompt", "insert", "display", "open_panel", "noop")
#: Key names of panel_key.key; "rune" carries the character in text.
PANEL_KEYS = (
    "up",
    "down",
    "left",
    "right",
    "enter",
    "esc",
    "tab",
    "pageup",
    "pagedown",
    "home",
    "end",
    "backspace",
    "delete",
    "rune",
)
#: Why a turn ended (the turn_end event's stop).
TURN_END_STOPS = ("end_turn", "tool_use", "length", "error", "aborted")
#: Capabilities hello may announce.
CAPABILITIES = ("commands", "tools", "events", "panels")
#: Frame types zot sends.
FRAMES_FROM_HOST = (
    "hello_ack",
    "command_invoked",
    "tool_call",
    "event",
    "event_intercept",
    "panel_key",
    "panel_close",
    "shutdown",
    "cancel",
    "ui_response",
)
#: Frame types an extension sends.
FRAMES_FROM_EXTENSION = (
    "hello",
    "register_command",
    "register_tool",
    "ready",
    "tool_result",
    "subscribe",
    "event_intercept_response",
    "command_response",
    "submit",
    "panel_render",
    "panel_close",
    "open_panel",
    "notify",
    "display",
    "clear_notes",
    "shutdown_ack",
    "tool_progress",
    "ui_request",
    "unregister_tool",
)
