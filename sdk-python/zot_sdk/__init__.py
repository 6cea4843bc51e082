"""zot_sdk: zot extensions in Python, standard library only (Python 3.9+).

    from zot_sdk import Extension, display

    ext = Extension("hello", "1.0.0")

    @ext.command("hello", "say hi")
    def hello(args):
        return display("Hello, " + (args or "world") + "!")

    ext.run()

With `"sdk": "python"` in extension.json zot puts its own copy on PYTHONPATH; or copy this
`zot_sdk/` directory next to your script, or `pip install` the SDK (docs/sdk-python.md).
"""
from ._abilities import Answer, Call
from ._extension import LEVELS, Extension
from ._protocol import (
    COMMAND_ACTIONS,
    EVENTS,
    INTERCEPTABLE_EVENTS,
    MAX_LINE_BYTES,
    PANEL_KEYS,
    PROTOCOL_VERSION,
)
from ._results import (
    CommandResult,
    Decision,
    Panel,
    ToolResult,
    add_context,
    allow,
    block,
    display,
    error,
    image,
    insert,
    modify,
    modify_text,
    noop,
    open_panel,
    prompt,
    replace_content,
    replace_text,
    text,
    tool_error,
)
from ._values import HostInfo, InterceptedResult, PanelKey, Prompt, ToolCall

__version__ = "0.1.0"

__all__ = [
    "Answer",
    "Call",
    "COMMAND_ACTIONS",
    "EVENTS",
    "INTERCEPTABLE_EVENTS",
    "LEVELS",
    "MAX_LINE_BYTES",
    "PANEL_KEYS",
    "PROTOCOL_VERSION",
    "CommandResult",
    "Decision",
    "Extension",
    "HostInfo",
    "InterceptedResult",
    "Panel",
    "PanelKey",
    "Prompt",
    "ToolCall",
    "ToolResult",
    "add_context",
    "allow",
    "block",
    "display",
    "error",
    "image",
    "insert",
    "modify",
    "modify_text",
    "noop",
    "open_panel",
    "prompt",
    "replace_content",
    "replace_text",
    "text",
    "tool_error",
]
