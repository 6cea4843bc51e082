#!/usr/bin/env python3
"""approve-py: a tool that asks the user in a panel before it proceeds.

The model calls `approve_write` with a path and the content; the extension opens a panel on
its own (the top-level open_panel frame) showing what would be written, and waits: `y` writes
the file, `n` or esc refuses, and no answer in time refuses too. The model learns which.
"""
import itertools
import os
import threading

from zot_sdk import Extension, text, tool_error

ext = Extension("approve-py", "1.0.0")
PREVIEW_LINES = 8

numbers = itertools.count(1)
gates = {}  # panel id -> {"answered": Event, "approved": bool}
gates_lock = threading.Lock()


def answer_within():
    """Seconds to wait for the user: most of the host's tool timeout (zot passes its env on)."""
    try:
        ms = float(os.environ.get("ZOT_EXT_TOOL_TIMEOUT_MS", "60000"))
    except ValueError:
        ms = 60000.0
    return max(0.5, ms * 0.8 / 1000.0)


def inside_project(path):
    """The absolute path for `path` inside the user's project, or None if it leaves it."""
    root = os.path.realpath(ext.host.cwd or ".")
    target = os.path.realpath(os.path.join(root, path))
    return target if os.path.commonpath([root, target]) == root and target != root else None


def decide(panel_id, approved):
    with gates_lock:
        gate = gates.get(panel_id)
    if gate is not None and not gate["answered"].is_set():
        gate["approved"] = approved
        gate["answered"].set()
        return True
    return False


@ext.tool(
    "approve_write",
    "Write a text file in the project, but only after the user approves it in a panel. "
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
    panel_id = "approve-%d" % next(numbers)
    gate = {"answered": threading.Event(), "approved": False}
    with gates_lock:
        gates[panel_id] = gate
    preview = content.splitlines()[:PREVIEW_LINES] or ["(empty file)"]
    if len(content.splitlines()) > PREVIEW_LINES:
        preview.append("... %d more lines" % (len(content.splitlines()) - PREVIEW_LINES))
    exists = "overwrite" if os.path.exists(target) else "create"
    ext.open_panel(
        panel_id,
        title="Write %s? (%s, %d bytes)" % (path, exists, len(content.encode("utf-8"))),
        lines=preview,
        footer="y write - n refuse - esc refuse",
    )
    try:
        answered = gate["answered"].wait(answer_within())
    finally:
        with gates_lock:
            gates.pop(panel_id, None)
    if not answered:
        ext.close_panel(panel_id)
        return tool_error("The user did not answer in time; %s was not written." % path)
    if not gate["approved"]:
        return tool_error("The user refused; %s was not written. Ask what they want instead." % path)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "w", encoding="utf-8") as handle:
        handle.write(content)
    return text("Wrote %s with the user's approval." % path)


@ext.on_panel_key
def key(key):
    if key.key != "rune" or key.text not in ("y", "Y", "n", "N"):
        return
    if decide(key.panel_id, key.text in ("y", "Y")):
        ext.close_panel(key.panel_id)


@ext.on_panel_close
def closed(panel_id):
    decide(panel_id, False)  # esc: a refusal


ext.run()
