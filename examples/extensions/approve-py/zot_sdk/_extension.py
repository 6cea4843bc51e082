"""The Extension: registrations, the handshake, dispatch to handlers on worker threads, replies.

Contract: stdout carries protocol frames only, one per line, each written whole under one lock
and flushed; a handler that raises becomes an error reply and a stderr line, never a crash;
`hello` is the first frame, registrations follow `hello_ack` and the `on_hello` hooks, then
`ready`; `shutdown` runs the `on_shutdown` hooks (bounded by the host's grace), answers
`shutdown_ack` and ends `run()`.
"""
import functools
import os
import sys
import threading

from ._framing import PROTOCOL_VERSION, FrameError, LineReader, encode, decode
from ._results import (
    Decision,
    ToolResult,
    as_panel,
    command_fields,
    decision_fields,
    error as _error_result,
    tool_error,
    tool_fields,
)
from ._abilities import Calls, Ui
from ._workers import Leaders, Workers

#: Events an extension can observe with `@ext.on(...)`.
EVENTS = (
    "session_start",
    "turn_start",
    "turn_end",
    "tool_call",
    "tool_confirmation_requested",
    "assistant_message",
)
#: Note levels for `ext.notify`.
LEVELS = ("info", "success", "warn", "error")

_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")


class HostInfo:
    """What `hello_ack` says about the host: versions, model, the user's project, your dirs."""

    def __init__(self, frame):
        self.protocol_version = frame.get("protocol_version")
        self.zot_version = frame.get("zot_version")
        self.provider = frame.get("provider")
        self.model = frame.get("model")
        #: The user's project directory (your process runs in the extension directory).
        self.cwd = frame.get("cwd")
        self.extension_dir = frame.get("extension_dir") or os.getcwd()
        #: Where to keep your state (settings, caches); today the extension directory.
        self.data_dir = frame.get("data_dir") or self.extension_dir
        #: The whole `hello_ack` frame, for fields newer than this SDK.
        self.raw = frame

    def __repr__(self):
        return "HostInfo(zot %s, %s/%s, cwd=%r)" % (
            self.zot_version,
            self.provider,
            self.model,
            self.cwd,
        )


class ToolCall:
    """An intercepted tool call: `name`, `args` (a dict) and the call's `id`."""

    __slots__ = ("id", "name", "args")

    def __init__(self, id, name, args):
        self.id = id
        self.name = name
        self.args = args

    def __repr__(self):
        return "ToolCall(%r, %r)" % (self.name, self.args)


class PanelKey:
    """A key pressed in one of your panels: `panel_id`, `key` and, for `key == "rune"`, `text`."""

    __slots__ = ("panel_id", "key", "text")

    def __init__(self, panel_id, key, text):
        self.panel_id = panel_id
        self.key = key
        self.text = text

    def __repr__(self):
        if self.key == "rune":
            return "PanelKey(%r, rune %r)" % (self.panel_id, self.text)
        return "PanelKey(%r, %r)" % (self.panel_id, self.key)


def _arity(fn):
    """How many positional arguments `fn` takes, or None when it takes any number."""
    code = getattr(fn, "__code__", None)
    bound = 0
    if code is None:
        code = getattr(getattr(fn, "__func__", None), "__code__", None)
        bound = 1
    if code is None or code.co_flags & 0x04:  # not a plain function, or *args
        return None
    return code.co_argcount - bound


def _call(fn, *args):
    """Calls a handler with as many of `args` as it accepts (so `def hook():` works too)."""
    wanted = _arity(fn)
    if wanted is not None and wanted < len(args):
        args = args[:wanted]
    return fn(*args)


def _describe(error):
    message = str(error)
    return "%s: %s" % (type(error).__name__, message) if message else type(error).__name__


def _check_name(kind, name, extra):
    if not isinstance(name, str) or not 1 <= len(name) <= 64:
        raise ValueError("%s name must be a string of 1 to 64 characters: %r" % (kind, name))
    if name[0] not in _NAME_CHARS or any(c not in _NAME_CHARS and c not in extra for c in name):
        raise ValueError(
            "%s name %r: use letters, digits and %s, starting with a letter or digit"
            % (kind, name, " ".join(extra))
        )


def _grace_seconds():
    """The host's shutdown grace (the host passes its environment on), in seconds."""
    try:
        ms = float(os.environ.get("ZOT_EXT_SHUTDOWN_GRACE_MS", "2000"))
    except ValueError:
        ms = 2000.0
    return (ms if ms >= 0 else 2000.0) / 1000.0


class Extension:
    """A zot extension: decorate handlers, then call `run()`.

    >>> ext = Extension("hello", "1.0.0")
    >>> @ext.command("hello", "say hi")
    ... def hello(args):
    ...     return display("hi " + args)
    """

    def __init__(self, name, version="0.1.0", max_workers=32):
        self.name = name
        self.version = version
        #: Set from `hello_ack` before the `on_hello` hooks run; None until then.
        self.host = None
        self._commands = {}
        self._tools = {}
        self._events = {}
        self._interceptors = {}
        self._hello_hooks = []
        self._panel_key_hooks = []
        self._panel_close_hooks = []
        self._shutdown_hooks = []
        # One lock guards the phase, the registrations and every write to stdout.
        self._lock = threading.RLock()
        self._phase = "idle"  # idle -> handshake -> ready -> closed
        self._outbox = []
        self._out = None
        self._subscribed = None
        self._pending_activations = []
        self._context = threading.local()
        self._unknown = set()
        self._max_workers = max_workers
        self._leaders = None
        self._calls = Calls(self._send)
        #: Questions to the user (protocol version 2): `ext.ui.confirm("Go on?")`.
        self.ui = Ui(self._send)
        self._event_lane = Workers(name + "-events", 1, self._worker_failed)
        self._panel_lane = Workers(name + "-panels", 1, self._worker_failed)

    # Registration ------------------------------------------------------------------------

    def command(self, name, description="", handler=None):
        """Decorator: `@ext.command("name", "description")` on `def handler(args: str)`."""
        name = name[1:] if isinstance(name, str) and name.startswith("/") else name
        _check_name("command", name, "._:-")

        def register(fn):
            frame = {"type": "register_command", "name": name, "description": str(description)}
            with self._lock:
                self._commands[name] = (frame, fn)
                self._announce(frame)
            return fn

        return register(handler) if handler is not None else register

    def tool(self, name, description="", schema=None, deferred=False, handler=None):
        """Decorator: `@ext.tool(name, description, schema)` on `def handler(args: dict)`."""
        _check_name("tool", name, "_-")
        if schema is not None and not isinstance(schema, dict):
            raise TypeError("a tool schema is a dict (a JSON Schema object)")

        def register(fn):
            frame = {"type": "register_tool", "name": name, "description": str(description)}
            if schema is not None:
                frame["schema"] = schema
            if deferred:
                frame["deferred"] = True
            with self._lock:
                self._tools[name] = (frame, fn)
                self._announce(frame)
            return fn

        return register(handler) if handler is not None else register

    def unregister_tool(self, name):
        """Removes a registered tool (protocol version 2); an unknown name does nothing."""
        with self._lock:
            if self._tools.pop(name, None) is None:
                return
            if self._phase == "ready":
                self._write(encode({"type": "unregister_tool", "name": name}))

    def on(self, event):
        """Decorator: `@ext.on("turn_end")` on `def handler(event: dict)` (the `event` frame)."""
        if event not in EVENTS:
            self.log("warning: %r is not an event zot announces (%s)" % (event, ", ".join(EVENTS)))

        def register(fn):
            with self._lock:
                self._events.setdefault(event, []).append(fn)
                self._resubscribe()
            return fn

        return register

    def intercept_tool_call(self, fn):
        """Decorator: `def guard(call)` with `call.name`, `call.args`; returns a decision."""
        return self._intercept("tool_call", fn)

    def intercept_turn_start(self, fn):
        """Decorator: `def gate(step: int)`; returns allow() or block(reason)."""
        return self._intercept("turn_start", fn)

    def intercept_assistant_message(self, fn):
        """Decorator: `def scrub(text: str)`; returns allow(), block() or replace_text()."""
        return self._intercept("assistant_message", fn)

    def on_hello(self, fn):
        """Decorator: `def hook(host: HostInfo)`, run after `hello_ack`, before `ready`."""
        self._hello_hooks.append(fn)
        return fn

    def on_panel_key(self, fn):
        """Decorator: `def hook(key: PanelKey)`; keys arrive one at a time, in order."""
        self._panel_key_hooks.append(fn)
        return fn

    def on_panel_close(self, fn):
        """Decorator: `def hook(panel_id: str)`, when the user closed your panel (Esc)."""
        self._panel_close_hooks.append(fn)
        return fn

    def on_shutdown(self, fn):
        """Decorator: `def hook()`, run on `shutdown` before `shutdown_ack` (keep it short)."""
        self._shutdown_hooks.append(fn)
        return fn

    def _intercept(self, event, fn):
        with self._lock:
            self._interceptors[event] = fn
            self._resubscribe()
        return fn

    def _subscription(self):
        events = [event for event in EVENTS if self._events.get(event)]
        events += [event for event in self._events if event not in EVENTS]
        intercept = [event for event in self._interceptors]
        return events, intercept

    def _announce(self, frame):
        """Sends a registration at once after `ready`; before, `_go_ready` sends them all."""
        if self._phase == "ready":
            self._send(frame)

    def _resubscribe(self):
        if self._phase == "ready":
            events, intercept = self._subscription()
            if (events, intercept) != self._subscribed:
                self._subscribed = (events, intercept)
                self._send({"type": "subscribe", "events": events, "intercept": intercept})

    # Sending ------------------------------------------------------------------------------

    def _send(self, frame):
        """Writes one frame, held until `ready` during the handshake. Raises if it is not JSON."""
        data = encode(frame)
        with self._lock:
            if self._phase in ("idle", "handshake"):
                self._outbox.append(data)
            elif self._phase == "ready":
                self._write(data)

    def _write(self, data):
        # Called with the lock held.
        try:
            self._out.write(data)
            self._out.flush()
        except (OSError, ValueError):  # the host is gone: nothing more can be said
            self._phase = "closed"

    def _reply(self, frame, fallback):
        """Sends a reply; if it is not valid JSON, logs why and sends `fallback` instead."""
        try:
            self._send(frame)
        except (TypeError, ValueError, RecursionError) as problem:
            self.log("reply %s %s is not JSON (%s); sending an error instead" % (
                frame.get("type"), frame.get("id"), _describe(problem)))
            self._send(fallback)

    def notify(self, message, level="info"):
        """A one-off note attributed to the extension; level info, success, warn or error."""
        if level not in LEVELS:
            raise ValueError("notify level must be one of %s, not %r" % (", ".join(LEVELS), level))
        self._send({"type": "notify", "level": level, "message": str(message)})

    def display(self, text):
        """A one-off note with `text` (the `display` frame), at any time."""
        self._send({"type": "display", "text": str(text)})

    def clear_notes(self):
        """Removes every note this extension posted."""
        self._send({"type": "clear_notes"})

    def submit(self, text):
        """Submits `text` as if the user typed it (interactive sessions; ignored elsewhere)."""
        self._send({"type": "submit", "text": str(text)})

    def open_panel(self, panel, title=None, lines=None, footer=None):
        """Opens a panel at any time (e.g. during a tool call); returns its id."""
        spec = as_panel(panel, title, lines, footer)
        self._send({"type": "open_panel", "panel": spec})
        return spec["id"]

    def render_panel(self, panel, title=None, lines=None, footer=None):
        """Redraws an open panel: `render_panel("todo", lines=[...], footer=...)`."""
        spec = as_panel(panel, title, lines, footer)
        frame = {"type": "panel_render", "panel_id": spec.pop("id")}
        frame.update(spec)
        self._send(frame)

    def close_panel(self, panel):
        """Closes a panel you opened (an id, or the panel itself)."""
        panel_id = panel.get("id") if isinstance(panel, dict) else panel
        self._send({"type": "panel_close", "panel_id": str(panel_id)})

    def activate_tools(self, *names):
        """Offers these deferred tools to the model from its next request on.

        Inside a tool handler they go with that call's result; elsewhere with the next result of
        any of this extension's tools (the protocol carries them only in `tool_result`).
        """
        if len(names) == 1 and isinstance(names[0], (list, tuple)):
            names = tuple(names[0])
        names = [str(name) for name in names]
        current = getattr(self._context, "activations", None)
        if current is not None:
            current.extend(names)
        else:
            with self._lock:
                self._pending_activations.extend(names)

    def log(self, *parts):
        """Writes a line to stderr, which zot appends to the extension's log."""
        stream = sys.stderr
        if stream is None:
            return
        try:
            stream.write("[%s] %s\n" % (self.name, " ".join(str(part) for part in parts)))
            stream.flush()
        except (OSError, ValueError):
            pass

    def _report(self, where, problem):
        import traceback  # only when something went wrong

        detail = "".join(traceback.format_exception(type(problem), problem, problem.__traceback__))
        self.log("%s raised %s\n%s" % (where, _describe(problem), detail.rstrip()))

    def _worker_failed(self, problem):
        self._report("a worker task", problem)

    # Running ------------------------------------------------------------------------------

    def run(self):
        """Speaks the protocol on stdin/stdout until `shutdown` or end of input, then exits.

        Before anything else it keeps the real stdout for frames and points file descriptor 1
        and `sys.stdout` at stderr, so a stray `print` (or a child process) cannot corrupt the
        protocol.
        """
        stdin = sys.stdin.buffer
        frames = os.fdopen(os.dup(1), "wb")
        try:
            os.dup2(2, 1)
        except OSError:
            pass
        sys.stdout = sys.stderr
        status = self.serve(stdin, frames)
        for stream in (sys.stderr, sys.__stderr__):
            try:
                stream.flush()
            except (AttributeError, OSError, ValueError):
                pass
        # Exit within the host's grace even if a thread of the extension's own never ends.
        watchdog = threading.Timer(max(0.2, _grace_seconds() / 4), os._exit, (status,))
        watchdog.daemon = True
        watchdog.start()
        sys.exit(status)

    def serve(self, stdin, stdout):
        """The protocol on binary streams (for tests and embedding); returns an exit status."""
        self._out = stdout
        reader = LineReader(stdin)
        hello = {"type": "hello", "name": self.name, "version": str(self.version)}
        hello["protocol_version"] = PROTOCOL_VERSION
        hello["capabilities"] = self._capabilities()
        with self._lock:
            self._phase = "handshake"
            self._write(encode(hello))
        early = []
        while True:
            frame = self._next_frame(reader)
            if frame is None:
                return self._finish(False)
            kind = frame["type"]
            if kind == "hello_ack":
                break
            if kind == "shutdown":
                return self._finish(True)
            early.append(frame)
        self.host = HostInfo(frame)
        for hook in self._hello_hooks:
            try:
                _call(hook, self.host)
            except Exception as problem:
                self._report("on_hello hook %s" % getattr(hook, "__name__", hook), problem)
        self._go_ready()
        early.reverse()

        def read():
            return early.pop() if early else self._next_frame(reader)

        self._leaders = Leaders(
            self.name + "-handler", self._max_workers, read, self._route, self._worker_failed
        )
        return self._finish(self._leaders.run())

    def _capabilities(self):
        capabilities = []
        if self._commands:
            capabilities.append("commands")
        if self._tools:
            capabilities.append("tools")
        if self._events or self._interceptors:
            capabilities.append("events")
        if self._panel_key_hooks or self._panel_close_hooks:
            capabilities.append("panels")
        return capabilities

    def _go_ready(self):
        with self._lock:
            frames = [frame for frame, _ in self._commands.values()]
            frames += [frame for frame, _ in self._tools.values()]
            events, intercept = self._subscription()
            if events or intercept:
                self._subscribed = (events, intercept)
                frames.append({"type": "subscribe", "events": events, "intercept": intercept})
            frames.append({"type": "ready"})
            for frame in frames:
                self._write(encode(frame))
            self._phase = "ready"
            outbox, self._outbox = self._outbox, []
            for data in outbox:
                self._write(data)

    def _next_frame(self, reader):
        while True:
            oversize = reader.oversize
            line = reader.read_line()
            if reader.oversize != oversize:
                self.log("dropped a line longer than the protocol's limit")
            if line is None:
                return None
            try:
                frame = decode(line)
            except FrameError as problem:
                self.log("ignored a line from zot: %s" % problem)
                continue
            if frame is not None:
                return frame

    def _finish(self, ack):
        import time

        # Requests in flight get part of the grace to answer; then the hooks; then the ack.
        deadline = time.monotonic() + _grace_seconds() * 0.6
        for lane in (self._leaders, self._event_lane, self._panel_lane):
            if lane is not None:
                lane.wait(max(0.0, deadline - time.monotonic()) * 0.5)
        hooks = list(self._shutdown_hooks)
        if hooks:
            def run_hooks():
                for hook in hooks:
                    try:
                        _call(hook)
                    except Exception as problem:
                        self._report("on_shutdown hook", problem)

            thread = threading.Thread(target=run_hooks, name=self.name + "-shutdown", daemon=True)
            thread.start()
            thread.join(max(0.05, deadline - time.monotonic()))
            if thread.is_alive():
                self.log("on_shutdown hooks are still running; exiting anyway")
        with self._lock:
            if ack and self._phase != "closed":
                self._phase = "ready"
                self._write(encode({"type": "shutdown_ack"}))
            self._phase = "closed"
        return 0

    # Dispatch -----------------------------------------------------------------------------

    def _route(self, frame):
        """Called by the reading thread in input order: a task for a worker, or None."""
        kind = frame["type"]
        if kind == "tool_call":
            return functools.partial(self._run_tool, frame)
        if kind == "command_invoked":
            return functools.partial(self._run_command, frame)
        if kind == "event_intercept":
            return functools.partial(self._run_intercept, frame)
        if kind == "shutdown":
            self._calls.cancel_all()
            self.ui.close()
            return Leaders.STOP
        if kind == "cancel":
            self._calls.cancel(frame.get("id"))
            return None
        if kind == "ui_response":
            self.ui.answer(frame)
            return None
        if kind == "event":
            self._event_lane.submit(self._run_event, frame)
        elif kind == "panel_key" or kind == "panel_close":
            self._panel_lane.submit(self._run_panel, frame)
        elif kind != "hello_ack" and kind not in self._unknown:
            self._unknown.add(kind)
            self.log("ignoring frames of unknown type %r" % kind)
        return None

    def _run_command(self, frame):
        request = frame.get("id")
        name = frame.get("name")
        args = frame.get("args")
        args = args if isinstance(args, str) else ""
        entry = self._commands.get(name)
        if entry is None and isinstance(name, str):
            lowered = name.lower()
            entry = next((e for n, e in self._commands.items() if n.lower() == lowered), None)
        if entry is None:
            fields = _error_result("%s has no command /%s" % (self.name, name))
        else:
            call = self._calls.open(request, name)
            try:
                fields = command_fields(_call(entry[1], args, call))
            except Exception as problem:
                self._report("command /%s" % name, problem)
                fields = _error_result("/%s failed: %s" % (name, _describe(problem)))
            finally:
                self._calls.close(call)
        reply = {"type": "command_response", "id": request}
        reply.update(fields)
        reply["type"] = "command_response"
        reply["id"] = request
        fallback = {"type": "command_response", "id": request,
                    "error": "/%s returned something that is not JSON" % name}
        self._reply(reply, fallback)

    def _run_tool(self, frame):
        request = frame.get("id")
        name = frame.get("name")
        args = frame.get("args")
        args = args if isinstance(args, dict) else {}
        entry = self._tools.get(name)
        activations = []
        if entry is None:
            fields = tool_error("%s has no tool %s" % (self.name, name))
        else:
            self._context.activations = activations
            call = self._calls.open(request, name)
            try:
                fields = tool_fields(_call(entry[1], args, call))
            except Exception as problem:
                self._report("tool %s" % name, problem)
                fields = tool_error("tool %s failed: %s" % (name, _describe(problem)))
            finally:
                self._context.activations = None
                self._calls.close(call)
        with self._lock:
            if self._pending_activations:
                activations.extend(self._pending_activations)
                self._pending_activations = []
        reply = {"type": "tool_result", "id": request}
        reply.update(fields)
        reply["type"] = "tool_result"
        reply["id"] = request
        if activations:
            names = list(reply.get("activate_tools") or [])
            for name in activations:
                if name not in names:
                    names.append(name)
            reply["activate_tools"] = names
        fallback = dict(tool_error("tool %s returned something that is not JSON" % name))
        fallback.update(type="tool_result", id=request)
        self._reply(reply, fallback)

    def _run_intercept(self, frame):
        # An interceptor that could not decide answers with `error`, never with an allow: zot
        # then applies the manifest's "intercept_failure" policy.
        request = frame.get("id")
        event = frame.get("event")
        fn = self._interceptors.get(event)
        fields = Decision()
        if fn is not None:
            args = frame.get("tool_args", {})
            if event == "tool_call" and not isinstance(args, dict):
                fields = {"error": "%s: tool_call interception without an object tool_args"
                          % self.name}
                fn = None
            elif event == "tool_call":
                subject = ToolCall(frame.get("tool_id"), frame.get("tool_name"), args)
            elif event == "turn_start":
                subject = frame.get("step")
            elif event == "assistant_message":
                subject = frame.get("text") if isinstance(frame.get("text"), str) else ""
            else:
                subject = frame
        if fn is not None:
            try:
                fields = decision_fields(_call(fn, subject))
            except Exception as problem:
                self._report("%s interceptor" % event, problem)
                fields = {"error": "%s: %s interceptor failed: %s" % (
                    self.name, event, _describe(problem))}
        reply = {"type": "event_intercept_response", "id": request}
        reply.update(fields)
        reply["type"] = "event_intercept_response"
        reply["id"] = request
        fallback = {"type": "event_intercept_response", "id": request,
                    "error": "%s: the %s interceptor's answer is not JSON" % (self.name, event)}
        self._reply(reply, fallback)

    def _run_event(self, frame):
        for fn in list(self._events.get(frame.get("event"), ())):
            try:
                _call(fn, frame)
            except Exception as problem:
                self._report("%s event handler" % frame.get("event"), problem)

    def _run_panel(self, frame):
        if frame["type"] == "panel_key":
            key = PanelKey(frame.get("panel_id"), frame.get("key"), frame.get("text"))
            hooks, subject, what = self._panel_key_hooks, key, "on_panel_key hook"
        else:
            hooks, subject = self._panel_close_hooks, frame.get("panel_id")
            what = "on_panel_close hook"
        for fn in list(hooks):
            try:
                _call(fn, subject)
            except Exception as problem:
                self._report(what, problem)
