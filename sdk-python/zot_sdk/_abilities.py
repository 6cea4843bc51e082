"""Protocol version 2 for handlers: a call's cancellation and progress, questions to the user.

A tool or command handler that takes a second argument gets a `Call`: `call.cancelled` is a
`threading.Event` set when zot cancels the request (Esc, an RPC abort, its timeout, shutdown),
`call.progress(text)` sends a live line. `ext.ui.confirm/select/input` ask the user and block
the calling thread until zot answers (`Answer.ok`, `.value`, `.reason`).
"""
import itertools
import threading

PROGRESS_MAX_CHARS = 4096
UI_MAX_OPTIONS = 100
UI_MAX_TIMEOUT_MS = 3600000


class Call:
    """The request a handler is answering: `id`, `name`, `cancelled`, `progress(text)`."""

    __slots__ = ("id", "name", "cancelled", "_send", "_done")

    def __init__(self, id, name, send):
        self.id = id
        self.name = name
        #: Set when zot cancels this request; what is answered after that is ignored.
        self.cancelled = threading.Event()
        self._send = send
        self._done = False

    def progress(self, text):
        """A progress line shown live while the call runs (not after its answer or a cancel)."""
        if self._done or self.cancelled.is_set():
            return
        self._send({"type": "tool_progress", "id": self.id,
                    "text": str(text)[:PROGRESS_MAX_CHARS]})

    def __repr__(self):
        return "Call(%r, %r)" % (self.id, self.name)


class Calls:
    """Requests being handled, by id, so that `cancel` finds its call."""

    def __init__(self, send):
        self._send = send
        self._lock = threading.Lock()
        self._calls = {}

    def open(self, id, name):
        call = Call(id, name, self._send)
        with self._lock:
            self._calls[id] = call
        return call

    def close(self, call):
        call._done = True
        with self._lock:
            if self._calls.get(call.id) is call:
                del self._calls[call.id]

    def cancel(self, id):
        with self._lock:
            call = self._calls.get(id)
        if call is not None:
            call.cancelled.set()

    def cancel_all(self):
        with self._lock:
            calls = list(self._calls.values())
        for call in calls:
            call.cancelled.set()


class Answer:
    """A question's answer: `ok` and `value`, or `reason` ("cancelled" or "unavailable")."""

    __slots__ = ("ok", "value", "reason")

    def __init__(self, ok, value=None, reason=None):
        self.ok = ok
        self.value = value
        self.reason = reason

    def __repr__(self):
        return "Answer(%r)" % (self.value,) if self.ok else "Answer(%s)" % self.reason


class Ui:
    """`ext.ui`: questions to the user; each call blocks its thread until zot answers."""

    def __init__(self, send):
        self._send = send
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._waiting = {}

    def confirm(self, title, timeout_ms=None):
        return self._ask("confirm", title, timeout_ms, {}, lambda v: v if isinstance(v, bool) else None)

    def select(self, title, options, timeout_ms=None):
        options = [str(o) for o in options]
        if not 1 <= len(options) <= UI_MAX_OPTIONS:
            raise ValueError("ui.select needs 1 to %d options" % UI_MAX_OPTIONS)
        return self._ask("select", title, timeout_ms, {"options": options},
                         lambda v: v if isinstance(v, str) and v in options else None)

    def input(self, title, mask=False, timeout_ms=None):
        extra = {"mask": True} if mask else {}
        return self._ask("input", title, timeout_ms, extra,
                         lambda v: v if isinstance(v, str) else None)

    def answer(self, frame):
        """A ui_response: wakes the question of its id (one for no question is ignored)."""
        with self._lock:
            waiter = self._waiting.pop(frame.get("id"), None)
        if waiter is not None:
            waiter[1] = frame
            waiter[0].set()

    def close(self):
        """zot is going away: every open question ends as cancelled."""
        with self._lock:
            waiters = list(self._waiting.values())
            self._waiting.clear()
        for waiter in waiters:
            waiter[0].set()

    def _ask(self, kind, title, timeout_ms, extra, read):
        id = "ui%d" % next(self._ids)
        frame = {"type": "ui_request", "id": id, "kind": kind, "title": str(title)}
        frame.update(extra)
        if timeout_ms is not None:
            frame["timeout_ms"] = max(1, min(UI_MAX_TIMEOUT_MS, int(timeout_ms)))
        waiter = [threading.Event(), None]
        with self._lock:
            self._waiting[id] = waiter
        self._send(frame)
        waiter[0].wait()
        response = waiter[1] or {}
        if response.get("unavailable") is True:
            return Answer(False, reason="unavailable")
        value = None if response.get("cancelled") is True else read(response.get("value"))
        return Answer(False, reason="cancelled") if value is None else Answer(True, value)


class RoutedUi:
    """`ext.ui` while listening: asks through the connection whose handler is running."""

    def __init__(self, ext):
        self._ext = ext

    def _ui(self):
        session = getattr(self._ext._context, "session", None)
        if session is None:
            raise RuntimeError("ext.ui while listening: ask from a handler (which connection?)")
        return session.ui

    def confirm(self, title, timeout_ms=None):
        return self._ui().confirm(title, timeout_ms)

    def select(self, title, options, timeout_ms=None):
        return self._ui().select(title, options, timeout_ms)

    def input(self, title, mask=False, timeout_ms=None):
        return self._ui().input(title, mask, timeout_ms)
