"""zot_sdk: zot extensions in Python, standard library only (Python 3.9+).

    from zot_sdk import Extension, display

    ext = Extension("hello", "1.0.0")

    @ext.command("hello", "say hi")
    def hello(args):
        return display("Hello, " + (args or "world") + "!")

    ext.run()

Copy this `zot_sdk/` directory next to your script, or `pip install` the SDK.
"""
from ._abilities import Answer, Call
from ._extension import EVENTS, LEVELS, Extension, HostInfo, PanelKey, ToolCall
from ._framing import MAX_LINE_BYTES, PROTOCOL_VERSION
from ._results import (
    CommandResult,
    Decision,
    Panel,
    ToolResult,
    allow,
    block,
    display,
    error,
    image,
    insert,
    modify,
    noop,
    open_panel,
    prompt,
    replace_text,
    text,
    tool_error,
)

__version__ = "0.1.0"

__all__ = [
    "Answer",
    "Call",
    "EVENTS",
    "LEVELS",
    "MAX_LINE_BYTES",
    "PROTOCOL_VERSION",
    "CommandResult",
    "Decision",
    "Extension",
    "HostInfo",
    "Panel",
    "PanelKey",
    "ToolCall",
    "ToolResult",
    "allow",
    "block",
    "display",
    "error",
    "image",
    "insert",
    "modify",
    "noop",
    "open_panel",
    "prompt",
    "replace_text",
    "text",
    "tool_error",
]
