"""The protocol's lifecycle: the handshake, reading frames, shutdown and exit.

Contract: `hello` is the first frame written; registrations follow `hello_ack` and the
`on_hello` hooks, then `ready`; frames sent before `ready` are held and written after it;
`shutdown` lets requests in flight answer, runs the `on_shutdown` hooks (bounded by the host's
grace), answers `shutdown_ack` and ends `serve()`.
"""
import os
import sys
import threading
import time

from ._dispatch import call, describe
from ._framing import FrameError, LineReader, decode, encode
from ._protocol import CAPABILITIES, PROTOCOL_VERSION
from ._values import HostInfo
from ._workers import Leaders


def _grace_seconds():
    """The host's shutdown grace (the host passes its environment on), in seconds."""
    try:
        ms = float(os.environ.get("ZOT_EXT_SHUTDOWN_GRACE_MS", "2000"))
    except ValueError:
        ms = 2000.0
    return (ms if ms >= 0 else 2000.0) / 1000.0


class Lifecycle:
    """Mixed into Extension: `run()` and `serve()`.

    Uses the Extension's lock, phase, outbox, registrations, lanes, hooks and `_route`.
    """

    def run(self):
        """Speaks the protocol on stdin/stdout until `shutdown` or end of input, then exits.

        Before anything else it keeps the real stdout for frames and points file descriptor 1
        and `sys.stdout` at stderr, so a stray `print` (or a child process) cannot corrupt the
        protocol.
        """
        if getattr(self, "_listening", None) is not None:
            raise RuntimeError("listen() was already called; run() serves stdio instead")
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
        self._context.session = self  # the on_hello hooks run on this thread (see listen)
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
                call(hook, self.host)
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
        offered = {
            "commands": bool(self._commands),
            "tools": bool(self._tools),
            "events": bool(self._events or self._interceptors),
            "panels": bool(self._panel_key_hooks or self._panel_close_hooks),
        }
        return [name for name in CAPABILITIES if offered.get(name)]

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
                        call(hook)
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

    def _report(self, where, problem):
        import traceback  # only when something went wrong

        detail = "".join(traceback.format_exception(type(problem), problem, problem.__traceback__))
        self.log("%s raised %s\n%s" % (where, describe(problem), detail.rstrip()))

    def _worker_failed(self, problem):
        self._report("a worker task", problem)
