"""Dispatch: each frame zot sends goes to its handler, and each request gets its reply.

Contract: a handler that raises becomes an error reply (and a stderr line with the traceback),
never a crash; every request is answered exactly once, with its id; a reply that is not JSON
is replaced by an error reply saying so; events run one at a time in order on their own lane,
and so do panel keys and closes.
"""
import functools

from ._results import (
    Decision,
    command_fields,
    decision_fields,
    error as _error_result,
    tool_error,
    tool_fields,
)
from ._values import InterceptedResult, PanelKey, Prompt, ToolCall
from ._workers import Leaders

#: Requests: run on the pool of handler threads, each answered with its id.
_REQUESTS = {
    "command_invoked": "_run_command",
    "tool_call": "_run_tool",
    "event_intercept": "_run_intercept",
}
#: Notifications: run in order on a serial lane (the lane's attribute, the method).
_LANES = {
    "event": ("_event_lane", "_run_event"),
    "panel_key": ("_panel_lane", "_run_panel"),
    "panel_close": ("_panel_lane", "_run_panel"),
}
#: Ends reading; `_finish` answers it.
_STOP = "shutdown"
#: Meaningful only as the first frame (the handshake reads it); a later one is ignored.
_HANDSHAKE = "hello_ack"
#: Handled at once on the reading thread (protocol version 2): a call cancelled, an answer.
_INLINE = {"cancel": "_cancelled", "ui_response": "_answered"}
#: Every frame type this SDK handles (a test holds it equal to the protocol's list).
HANDLED = frozenset(_REQUESTS) | frozenset(_LANES) | frozenset(_INLINE) | {_STOP, _HANDSHAKE}


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


def call(fn, *args):
    """Calls a handler with as many of `args` as it accepts (so `def hook():` works too)."""
    wanted = _arity(fn)
    if wanted is not None and wanted < len(args):
        args = args[:wanted]
    return fn(*args)


def describe(error):
    """`TypeName: message`, or the type's name alone."""
    message = str(error)
    return "%s: %s" % (type(error).__name__, message) if message else type(error).__name__


class Dispatch:
    """Mixed into Extension: routing and the handlers' replies.

    Uses the Extension's registrations (`_commands`, `_tools`, `_events`, `_interceptors`,
    the panel hooks), its lanes, `_reply`, `_report` and `log`.
    """

    def _route(self, frame):
        """Called by the reading thread in input order: a task for a worker, or None."""
        self._context.session = self  # this thread serves this session (see Extension.listen)
        kind = frame["type"]
        method = _REQUESTS.get(kind)
        if method is not None:
            return functools.partial(getattr(self, method), frame)
        if kind == _STOP:
            self._calls.cancel_all()
            self.ui.close()
            return Leaders.STOP
        inline = _INLINE.get(kind)
        if inline is not None:
            getattr(self, inline)(frame)
            return None
        lane = _LANES.get(kind)
        if lane is not None:
            getattr(self, lane[0]).submit(getattr(self, lane[1]), frame)
        elif kind not in HANDLED and kind not in self._unknown:
            self._unknown.add(kind)
            self.log("ignoring frames of unknown type %r" % kind)
        return None

    def _cancelled(self, frame):
        self._calls.cancel(frame.get("id"))

    def _answered(self, frame):
        self.ui.answer(frame)

    def _invoke(self, request, name, handler, args, what, fields_of, failed):
        """Runs `handler` as the call `request` (cancellable, with progress) and returns its
        reply's fields; what it raises is reported as `what` and answered with `failed(problem)`."""
        running = self._calls.open(request, name)
        try:
            return fields_of(call(handler, args, running))
        except Exception as problem:
            self._report(what, problem)
            return failed(problem)
        finally:
            self._calls.close(running)

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
            fields = self._invoke(
                request, name, entry[1], args, "command /%s" % name, command_fields,
                lambda problem: _error_result("/%s failed: %s" % (name, describe(problem))),
            )
        fallback = {"error": "/%s returned something that is not JSON" % name}
        self._reply("command_response", request, fields, fallback)

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
            try:
                fields = self._invoke(
                    request, name, entry[1], args, "tool %s" % name, tool_fields,
                    lambda problem: tool_error("tool %s failed: %s" % (name, describe(problem))),
                )
            finally:
                self._context.activations = None
        with self._lock:
            if self._pending_activations:
                activations.extend(self._pending_activations)
                self._pending_activations = []
        if activations:
            fields = dict(fields)
            names = list(fields.get("activate_tools") or [])
            for activated in activations:
                if activated not in names:
                    names.append(activated)
            fields["activate_tools"] = names
        fallback = tool_error("tool %s returned something that is not JSON" % name)
        self._reply("tool_result", request, fields, fallback)

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
            elif event == "tool_result":
                content = frame.get("content")
                subject = InterceptedResult(
                    frame.get("tool_call_id"), frame.get("tool"), frame.get("args") or {},
                    content if isinstance(content, list) else [], frame.get("is_error") is True)
            elif event == "user_prompt":
                text = frame.get("text")
                subject = Prompt(text if isinstance(text, str) else "", frame.get("source"))
            else:
                subject = frame
        if fn is not None:
            try:
                fields = decision_fields(call(fn, subject))
            except Exception as problem:
                self._report("%s interceptor" % event, problem)
                fields = {"error": "%s: %s interceptor failed: %s" % (
                    self.name, event, describe(problem))}
        fallback = {"error": "%s: the %s interceptor's answer is not JSON" % (self.name, event)}
        self._reply("event_intercept_response", request, fields, fallback)

    def _run_event(self, frame):
        self._context.session = self
        for fn in list(self._events.get(frame.get("event"), ())):
            try:
                call(fn, frame)
            except Exception as problem:
                self._report("%s event handler" % frame.get("event"), problem)

    def _run_panel(self, frame):
        self._context.session = self
        if frame["type"] == "panel_key":
            key = PanelKey(frame.get("panel_id"), frame.get("key"), frame.get("text"))
            hooks, subject, what = self._panel_key_hooks, key, "on_panel_key hook"
        else:
            hooks, subject = self._panel_close_hooks, frame.get("panel_id")
            what = "on_panel_close hook"
        for fn in list(hooks):
            try:
                call(fn, subject)
            except Exception as problem:
                self._report(what, problem)

    def _reply(self, kind, request, fields, fallback):
        """Sends `kind` with `fields` for `request`; if that is not JSON, logs why and sends the
        `fallback` fields instead."""
        reply = {"type": kind, "id": request}
        reply.update(fields)
        reply["type"] = kind
        reply["id"] = request
        try:
            self._send(reply)
        except (TypeError, ValueError, RecursionError) as problem:
            self.log("reply %s %s is not JSON (%s); sending an error instead" % (
                kind, request, describe(problem)))
            reply = {"type": kind, "id": request}
            reply.update(fallback)
            self._send(reply)
