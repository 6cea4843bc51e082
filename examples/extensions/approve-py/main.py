#!/usr/bin/env python3
"""approve-py: a tool that asks the user before it writes a file.

The model calls `approve_write` with a path and the content; the extension asks the user with
`ext.ui.confirm` (a dialog in the TUI, a `ui_request` event for an RPC front end), showing what
would be written, and waits: yes writes the file, no or Esc refuses, and no answer in time
refuses too. Where nobody can answer (print and JSON runs) nothing is written. The model learns
which.
"""
import os

from zot_sdk import Extension, text, tool_error

ext = Extension("approve-py", "1.0.0")
PREVIEW_LINES = 8
PREVIEW_WIDTH = 100
TITLE_LIMIT = 1000  # the protocol's bound on a question's title


def answer_within():
    """Milliseconds to wait for the user: most of the host's tool timeout (zot passes its env on)."""
    try:
        ms = float(os.environ.get("ZOT_EXT_TOOL_TIMEOUT_MS", "60000"))
    except ValueError:
        ms = 60000.0
    return max(500, int(ms * 0.8))


def inside_project(path):
    """The absolute path for `path` inside the user's project, or None if it leaves it."""
    root = os.path.realpath(ext.host.cwd or ".")
    target = os.path.realpath(os.path.join(root, path))
    return target if os.path.commonpath([root, target]) == root and target != root else None


def question(path, target, content):
    """The question: the file, whether it is created or overwritten, and the content's head."""
    lines = content.splitlines()
    preview = [line[:PREVIEW_WIDTH] for line in lines[:PREVIEW_LINES]] or ["(empty file)"]
    if len(lines) > PREVIEW_LINES:
        preview.append("... %d more lines" % (len(lines) - PREVIEW_LINES))
    exists = "overwrite" if os.path.exists(target) else "create"
    head = "Write %s? (%s, %d bytes)" % (path, exists, len(content.encode("utf-8")))
    return "\n".join([head, ""] + preview)[:TITLE_LIMIT]


@ext.tool(
    "approve_write",
    "Write a text file in the project, but only after the user approves it. "
    "Returns whether the file was written.",
    {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "file path, relative to the project"},
            "content": {"type": "string", "description": "the whole new content of the file"},
        },
        "required": ["path", "content"],
    },
)
def approve_write(args):
    path, content = args["path"], args["content"]
    target = inside_project(path)
    if target is None:
        return tool_error("%s is outside the project; choose a path inside it." % path)
    answer = ext.ui.confirm(question(path, target, content), timeout_ms=answer_within())
    if answer.reason == "unavailable":
        return tool_error("Nobody can approve writes here (no interactive front end); %s was not written." % path)
    if answer.reason == "cancelled":
        return tool_error("The user did not answer (dismissed, or not in time); %s was not written." % path)
    if not answer.value:
        return tool_error("The user refused; %s was not written. Ask what they want instead." % path)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "w", encoding="utf-8") as handle:
        handle.write(content)
    return text("Wrote %s with the user's approval." % path)


ext.run()
