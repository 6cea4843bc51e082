"""What handlers return: command results, tool results, interception decisions, panels.

Each is a plain dict of the reply frame's fields (a dict subclass, so it prints, compares and
serialises like one); the SDK adds `type` and `id` when it sends the reply.
"""


class CommandResult(dict):
    """The fields of a `command_response`: what zot does after a slash command."""


class ToolResult(dict):
    """The fields of a `tool_result`: `content` blocks, optional `is_error`, `activate_tools`."""

    def __add__(self, other):
        """`text("a") + image(...)`: the blocks of both, an error if either is one."""
        return _merge_tool_results([self, other])


class Decision(dict):
    """The fields of an `event_intercept_response`; empty means allow, unchanged."""


class Panel(dict):
    """A panel's content: `id`, and optional `title`, `lines` and `footer`."""

    def __init__(self, id, title=None, lines=None, footer=None):
        super().__init__(id=str(id))
        if title is not None:
            self["title"] = str(title)
        if lines is not None:
            self["lines"] = [str(line) for line in lines]
        if footer is not None:
            self["footer"] = str(footer)


def as_panel(panel, title=None, lines=None, footer=None):
    """A Panel from a Panel, a dict with `id` (or `panel_id`), or an id plus keywords."""
    if isinstance(panel, dict):
        fields = dict(panel)
        panel_id = fields.pop("id", None)
        if panel_id is None:
            panel_id = fields.pop("panel_id", None)
        if panel_id is None:
            raise ValueError("a panel needs an id")
        return Panel(
            panel_id,
            fields.get("title", title),
            fields.get("lines", lines),
            fields.get("footer", footer),
        )
    return Panel(panel, title, lines, footer)


# Command results.


def prompt(text):
    """Send `text` to the model as a user message; a turn runs."""
    return CommandResult(action="prompt", prompt=str(text))


def insert(text):
    """Put `text` into the editor at the cursor, without sending it."""
    return CommandResult(action="insert", insert=str(text))


def display(text):
    """Show `text` as a one-off note; no model call, nothing in the transcript."""
    return CommandResult(action="display", display=str(text))


def open_panel(panel, title=None, lines=None, footer=None):
    """Open a panel: `open_panel("todo", title="Todos", lines=[...], footer="esc close")`."""
    return CommandResult(action="open_panel", open_panel=as_panel(panel, title, lines, footer))


def noop():
    """Nothing to do (the handler already acted, e.g. with `ext.notify`)."""
    return CommandResult(action="noop")


def error(message):
    """Show `message` as an error line; nothing else happens."""
    return CommandResult(error=str(message) or "error")


# Tool results.


def text(s, activate_tools=None):
    """A tool result with one text block."""
    result = ToolResult(content=[{"type": "text", "text": str(s)}])
    if activate_tools:
        result["activate_tools"] = [str(name) for name in activate_tools]
    return result


def image(mime_type, data):
    """A tool result with one image block; `data` is base64 text, or raw bytes to encode."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        import base64  # rarely needed: not imported at start-up

        data = base64.b64encode(bytes(data)).decode("ascii")
    return ToolResult(content=[{"type": "image", "mime_type": str(mime_type), "data": str(data)}])


def tool_error(message):
    """A failed call: the model reads `message` and can correct itself."""
    return ToolResult(content=[{"type": "text", "text": str(message)}], is_error=True)


# Interception decisions.


def allow():
    """Let it happen, unchanged (the same as returning None)."""
    return Decision()


def block(reason=""):
    """Refuse: the model (tool calls) or the user (turns, messages) sees `reason`."""
    decision = Decision(block=True)
    if reason:
        decision["reason"] = str(reason)
    return decision


def modify(args):
    """Run the intercepted tool call with these arguments instead (a dict)."""
    if not isinstance(args, dict):
        raise TypeError("modify() takes the new arguments as a dict")
    return Decision(modified_args=args)


def replace_text(text, scope=None):
    """Show this text instead of the assistant's message; the model keeps its own, unless
    `scope` is "transcript" (later turns get this text too)."""
    decision = Decision(replace_text=str(text))
    if scope is not None:
        if scope != "transcript":
            raise ValueError('replace_text(): scope is "transcript" or None')
        decision["scope"] = scope
    return decision


def replace_content(content):
    """Give the model this content instead of the tool's result: a str, or blocks made with
    text() and image()."""
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    return Decision(replace_content=list(content))


def modify_text(text):
    """Run the intercepted prompt with this text instead."""
    return Decision(modified_text=str(text))


def add_context(text):
    """Give the model this context for the turn (marked as coming from your extension)."""
    return Decision(add_context=str(text))


# Normalising what handlers return.


def command_fields(value):
    """A command handler's return value as `command_response` fields."""
    if value is None:
        return CommandResult(action="noop")
    if isinstance(value, str):
        return display(value)
    if isinstance(value, dict):
        return value
    raise TypeError(
        "a command handler returns prompt(), insert(), display(), open_panel(), noop(), "
        "error(), a str or None; got %s" % type(value).__name__
    )


def _block_of(item):
    if isinstance(item, str):
        return {"type": "text", "text": item}
    if isinstance(item, dict) and isinstance(item.get("type"), str):
        return item
    return None


def _merge_tool_results(items):
    merged = ToolResult(content=[])
    for item in items:
        part = tool_fields(item)
        merged["content"].extend(part.get("content", []))
        if part.get("is_error"):
            merged["is_error"] = True
        for name in part.get("activate_tools", ()):
            merged.setdefault("activate_tools", [])
            if name not in merged["activate_tools"]:
                merged["activate_tools"].append(name)
    return merged


def tool_fields(value):
    """A tool handler's return value as `tool_result` fields.

    ToolResult as is; a str is one text block; None is no content; a list concatenates its
    items (results, strings or content blocks); any other JSON value is sent as JSON text.
    """
    if isinstance(value, ToolResult):
        return value
    if value is None:
        return ToolResult(content=[])
    if isinstance(value, str):
        return text(value)
    if isinstance(value, (list, tuple)):
        blocks = [_block_of(item) for item in value]
        if all(block is not None for block in blocks):
            return ToolResult(content=blocks)
        return _merge_tool_results(value)
    if isinstance(value, dict) and isinstance(value.get("content"), list):
        return ToolResult(value)
    import json

    return text(json.dumps(value, ensure_ascii=False, indent=2))


def decision_fields(value):
    """An interceptor's return value as `event_intercept_response` fields."""
    if value is None or value is True:
        return Decision()
    if value is False:
        return block()
    if isinstance(value, dict):
        return value
    raise TypeError(
        "an interceptor returns allow(), block(), modify(), replace_text(), a bool or None; "
        "got %s" % type(value).__name__
    )
