"""The Extension: what an extension registers and what it can send at any time.

Contract: stdout carries protocol frames only, one per line, each written whole under one lock
and flushed; registrations made after `ready` are sent at once, earlier ones with `ready`. The
handshake and shutdown are in _lifecycle.py, dispatch to handlers and the replies in
_dispatch.py.
"""
import sys
import threading

from ._abilities import Calls, RoutedUi, Ui
from ._dispatch import Dispatch
from ._framing import encode
from ._lifecycle import Lifecycle
from ._listen import DEFAULT_MAX_CONNECTIONS, Listening
from ._protocol import EVENTS, NOTIFY_LEVELS
from ._results import as_panel
from ._workers import Workers

#: Note levels for `ext.notify`.
LEVELS = NOTIFY_LEVELS

_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")


def _check_name(kind, name, extra):
    if not isinstance(name, str) or not 1 <= len(name) <= 64:
        raise ValueError("%s name must be a string of 1 to 64 characters: %r" % (kind, name))
    if name[0] not in _NAME_CHARS or any(c not in _NAME_CHARS and c not in extra for c in name):
        raise ValueError(
            "%s name %r: use letters, digits and %s, starting with a letter or digit"
            % (kind, name, " ".join(extra))
        )


class Extension(Lifecycle, Dispatch):
    """A zot extension: decorate handlers, then call `run()`.

    >>> ext = Extension("hello", "1.0.0")
    >>> @ext.command("hello", "say hi")
    ... def hello(args):
    ...     return display("hi " + args)
    """

    def __init__(self, name, version="0.1.0", max_workers=32):
        self.name = name
        self.version = version
        self._host = None
        #: listen(): the server whose connections are each a session of this extension.
        self._listening = None
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

    @property
    def host(self):
        """The HostInfo from `hello_ack` (set before the `on_hello` hooks run; None until then).
        Listening, the one of the connection whose handler asks (None outside a handler)."""
        if self._listening is not None:
            session = getattr(self._context, "session", None)
            return session.host if session is not None and session is not self else None
        return self._host

    @host.setter
    def host(self, value):
        self._host = value

    def command(self, name, description="", handler=None):
        """Decorator: `@ext.command("name", "description")` on `def handler(args: str)`."""
        name = name[1:] if isinstance(name, str) and name.startswith("/") else name
        _check_name("command", name, "._:-")

        def register(fn):
            frame = {"type": "register_command", "name": name, "description": str(description)}
            target = self._target("command")
            if target is not self:
                return target.command(name, description, fn)
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
            target = self._target("tool")
            if target is not self:
                return target.tool(name, description, schema, deferred, fn)
            with self._lock:
                self._tools[name] = (frame, fn)
                self._announce(frame)
            return fn

        return register(handler) if handler is not None else register

    def unregister_tool(self, name):
        """Removes a registered tool (protocol version 2); an unknown name does nothing."""
        target = self._target("unregister_tool")
        if target is not self:
            return target.unregister_tool(name)
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
            target = self._target("on")
            if target is not self:
                return target.on(event)(fn)
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

    def intercept_tool_result(self, fn):
        """Decorator: `def screen(result)` with `result.name`, `.args`, `.content`, `.is_error`,
        for every tool; returns allow(), block(reason) or replace_content(...)."""
        return self._intercept("tool_result", fn)

    def intercept_user_prompt(self, fn):
        """Decorator: `def screen(prompt)` with `prompt.text`, `prompt.source`; returns
        allow(), block(reason) (the user is told) or modify_text(text)."""
        return self._intercept("user_prompt", fn)

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
        target = self._target("intercept")
        if target is not self:
            return target._intercept(event, fn)
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


    def _send(self, frame):
        """Writes one frame, held until `ready` during the handshake. Raises if it is not JSON.
        Listening, a handler's frame goes to its own connection, any other to every one."""
        data = encode(frame)
        if self._listening is not None:
            session = getattr(self._context, "session", None)
            for target in [session] if session is not None else self._listening.sessions():
                target._send(frame)
            return
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
        elif self._listening is not None:
            for session in self._listening.sessions():
                session.activate_tools(names)
        else:
            with self._lock:
                self._pending_activations.extend(names)

    def listen(self, port=0, host="127.0.0.1", token=None, tls=None,
               max_connections=DEFAULT_MAX_CONNECTIONS):
        """Serves the extension over WebSocket instead of stdio; returns a `Listening` with its
        `url` (give it to zot: `zot --ext-url URL`, or a manifest's "transport") and `wait()`.

        Each connection is a session of its own with these handlers. `token`: every connection
        must send `Authorization: Bearer <token>` (else 401). `tls`: (cert_file, key_file) PEM
        paths, served as wss://. Register everything first; registering afterwards raises.
        """
        if self._listening is not None or self._phase != "idle":
            raise RuntimeError("run() or listen() was already called")
        self._listening = Listening(self, host, port, token, tls, max_connections)
        self.ui = RoutedUi(self)
        return self._listening

    def _session(self):
        """A session of this extension for one connection: the same handlers, its own state."""
        session = Extension(self.name, self.version, self._max_workers)
        with self._lock:
            session._commands = dict(self._commands)
            session._tools = dict(self._tools)
            session._events = {event: list(fns) for event, fns in self._events.items()}
            session._interceptors = dict(self._interceptors)
        for hooks in ("_hello_hooks", "_panel_key_hooks", "_panel_close_hooks", "_shutdown_hooks"):
            setattr(session, hooks, list(getattr(self, hooks)))
        # Shared: a handler that calls ext.* finds its session (and its activations) here.
        session._context = self._context
        return session

    def _target(self, what):
        """Where a registration goes: here; listening, the connection whose handler runs."""
        if self._listening is None:
            return self
        session = getattr(self._context, "session", None)
        if session is None:
            raise RuntimeError("%s after listen(): register before it, or from a handler" % what)
        return session

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
