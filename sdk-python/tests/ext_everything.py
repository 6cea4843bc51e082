#!/usr/bin/env python3
"""An extension that uses every part of zot_sdk, for the end-to-end test (test_e2e.py)."""
import os
import subprocess
import sys

from zot_sdk import (
    Extension,
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

ext = Extension("everything", "1.2.3")


@ext.on_hello
def hello(host):
    ext.log("hello_ack from zot", host.zot_version, "cwd", host.cwd)
    print("a stray print in on_hello must not reach the host")

    @ext.command("where", "the project directory")
    def where(args):
        return display(host.cwd)


RESULTS = {
    "prompt": lambda a: prompt("say " + a),
    "insert": lambda a: insert(a),
    "display": lambda a: display(a),
    "panel": lambda a: open_panel("main", title="Main", lines=[a], footer="esc"),
    "noop": lambda a: noop(),
    "error": lambda a: error("failed: " + a),
}


@ext.command("do", "each command result: /do <kind> <text>")
def do(args):
    kind, _, rest = args.partition(" ")
    print("print() in a handler goes to stderr")
    if kind == "child":
        subprocess.run([sys.executable, "-c", "print('a child writing to stdout')"], check=True)
        os.write(1, b"raw write to fd 1\n")
        return display("child done")
    if kind == "notes":
        ext.notify("info note")
        ext.notify("warn note", level="warn")
        ext.display("a display")
        ext.clear_notes()
        ext.submit("submitted")
        return noop()
    if kind == "raise":
        raise RuntimeError("asked to raise")
    return RESULTS[kind](rest)


@ext.tool(
    "echo",
    "echoes its arguments",
    {"type": "object", "properties": {"s": {"type": "string"}}, "required": ["s"]},
)
def echo(args):
    if args["s"] == "image":
        return text("an image:") + image("image/png", b"\x89PNG\r\n\x1a\n")
    if args["s"] == "fail":
        return tool_error("refused")
    if args["s"] == "raise":
        raise ValueError("tool raised")
    if args["s"] == "unlock":
        ext.activate_tools("secret")
    return text(args["s"])


@ext.tool("secret", "a deferred tool", {"type": "object"}, deferred=True)
def secret(args):
    return "secret ran"


@ext.on("session_start")
@ext.on("turn_end")
def observe(event):
    ext.notify("event " + event["event"])


@ext.intercept_tool_call
def guard(call):
    if call.name == "bash" and "rm -rf" in call.args.get("command", ""):
        return block("refused rm -rf")
    if call.name == "bash":
        return modify({"command": "echo guarded: " + call.args.get("command", "")})
    return allow()


@ext.intercept_turn_start
def gate(step):
    return block("too many steps") if step > 5 else None


@ext.intercept_assistant_message
def scrub(message):
    return replace_text(message.replace("SECRET", "[redacted]")) if "SECRET" in message else None


@ext.on_panel_key
def key(k):
    if k.key == "enter":
        ext.close_panel(k.panel_id)
    else:
        ext.render_panel(k.panel_id, title="Main", lines=["key " + (k.text or k.key)], footer="esc")


@ext.on_panel_close
def closed(panel_id):
    ext.notify("closed " + panel_id)


@ext.on_shutdown
def bye():
    ext.log("shutting down")


ext.run()
