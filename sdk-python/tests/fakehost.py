"""A fake zot host for tests: runs an extension as a real subprocess over pipes, records every
frame in both directions and checks each against the protocol schema."""
import json
import os
import queue
import subprocess
import sys
import threading
import time

from . import schema_check

SDK_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(SDK_DIR)
EXAMPLES = os.path.join(REPO, "examples", "extensions")
TIMEOUT = float(os.environ.get("ZOT_SDK_TEST_TIMEOUT", "20"))


class FakeHost:
    """`FakeHost([python3, main.py], cwd=...)`; `handshake()`, `send()`, `expect()`, `shutdown()`."""

    def __init__(self, argv, cwd=None, env=None, validate=True, extra_types=()):
        self.validate = validate and schema_check.protocol() is not None
        # Frame types our protocol adds that an older committed schema may not know yet.
        self.extra_types = set(extra_types)
        full_env = dict(os.environ)
        full_env["PYTHONPATH"] = SDK_DIR + os.pathsep + full_env.get("PYTHONPATH", "")
        full_env["PYTHONDONTWRITEBYTECODE"] = "1"
        full_env.update(env or {})
        self.process = subprocess.Popen(
            argv,
            cwd=cwd,
            env=full_env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.received = []
        self.sent = []
        self.problems = []
        self.raw_lines = []
        self._frames = queue.Queue()
        self._stderr = []
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    @classmethod
    def python(cls, script, cwd=None, **kwargs):
        return cls([sys.executable, script], cwd=cwd or os.path.dirname(script), **kwargs)

    def _read_stdout(self):
        for raw in iter(self.process.stdout.readline, b""):
            self.raw_lines.append(raw)
            try:
                frame = json.loads(raw.decode("utf-8"))
            except ValueError as error:
                self.problems.append("not JSON on stdout: %r (%s)" % (raw[:200], error))
                continue
            if self.validate and frame.get("type") not in self.extra_types:
                for problem in schema_check.frame_problems(frame, "extension"):
                    self.problems.append("%s: %s" % (json.dumps(frame)[:200], problem))
            self.received.append(frame)
            self._frames.put(frame)
        self._frames.put(None)

    def _read_stderr(self):
        for raw in iter(self.process.stderr.readline, b""):
            self._stderr.append(raw.decode("utf-8", "replace"))

    @property
    def stderr(self):
        return "".join(self._stderr)

    def send(self, frame):
        if self.validate:
            for problem in schema_check.frame_problems(frame, "host"):
                raise AssertionError("the test sends an invalid frame %s: %s" % (frame, problem))
        self.sent.append(frame)
        self.send_raw((json.dumps(frame) + "\n").encode("utf-8"))

    def send_raw(self, data):
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def next(self, timeout=TIMEOUT):
        """The next frame from the extension; raises AssertionError on timeout or exit."""
        try:
            frame = self._frames.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError("no frame within %ss; stderr:\n%s" % (timeout, self.stderr))
        if frame is None:
            self._frames.put(None)
            raise AssertionError("the extension closed stdout; stderr:\n%s" % self.stderr)
        return frame

    def expect(self, frame_type, timeout=TIMEOUT, **fields):
        """Frames until one of `frame_type` with these fields; returns it. Others are kept in
        `skipped`."""
        deadline = time.monotonic() + timeout
        while True:
            frame = self.next(max(0.01, deadline - time.monotonic()))
            if frame.get("type") == frame_type and all(frame.get(k) == v for k, v in fields.items()):
                return frame

    def until_ready(self):
        """hello, hello_ack, frames up to ready; returns (hello, frames before ready)."""
        hello = self.next()
        assert hello.get("type") == "hello", hello
        return hello, self.ack_and_collect()

    def ack_and_collect(self, **ack):
        frame = {
            "type": "hello_ack",
            "protocol_version": 1,
            "zot_version": "0.0.0-test",
            "provider": "anthropic",
            "model": "test-model",
            "cwd": ack.pop("cwd", os.getcwd()),
        }
        frame.update(ack)
        self.send(frame)
        before = []
        while True:
            nxt = self.next()
            if nxt.get("type") == "ready":
                return before
            before.append(nxt)

    def shutdown(self, timeout=5):
        """Sends shutdown; expects shutdown_ack and an exit with status 0 within `timeout`."""
        started = time.monotonic()
        self.send({"type": "shutdown"})
        self.expect("shutdown_ack", timeout=timeout)
        code = self.process.wait(timeout=timeout)
        return code, time.monotonic() - started

    def close(self):
        for stream in (self.process.stdin,):
            try:
                stream.close()
            except OSError:
                pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for stream in (self.process.stdout, self.process.stderr):
            stream.close()
