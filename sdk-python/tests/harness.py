"""Runs an Extension in-process over OS pipes: `Harness(ext)` plays the host."""
import json
import os
import queue
import threading

TIMEOUT = 10


class Harness:
    def __init__(self, ext):
        self.ext = ext
        to_ext_r, self._to_ext_w = os.pipe()
        from_ext_r, from_ext_w = os.pipe()
        self._in = os.fdopen(to_ext_r, "rb")
        self._out = os.fdopen(from_ext_w, "wb")
        self._writer = os.fdopen(self._to_ext_w, "wb")
        self._reader = os.fdopen(from_ext_r, "rb")
        self.frames = queue.Queue()
        self.status = None
        self._serving = threading.Thread(target=self._serve, daemon=True)
        self._serving.start()
        threading.Thread(target=self._read, daemon=True).start()

    def _serve(self):
        try:
            self.status = self.ext.serve(self._in, self._out)
        finally:
            self._out.close()

    def _read(self):
        for line in iter(self._reader.readline, b""):
            self.frames.put(json.loads(line))
        self.frames.put(None)

    def send(self, frame):
        self.send_raw(json.dumps(frame).encode("utf-8") + b"\n")

    def send_raw(self, data):
        self._writer.write(data)
        self._writer.flush()

    def end_input(self):
        self._writer.close()

    def next(self, timeout=TIMEOUT):
        frame = self.frames.get(timeout=timeout)
        if frame is None:
            raise AssertionError("the extension stopped writing")
        return frame

    def expect(self, frame_type, timeout=TIMEOUT, **fields):
        while True:
            frame = self.next(timeout)
            if frame["type"] == frame_type and all(frame.get(k) == v for k, v in fields.items()):
                return frame

    def no_frame(self, wait=0.2):
        try:
            frame = self.frames.get(timeout=wait)
        except queue.Empty:
            return True
        raise AssertionError("unexpected frame %r" % (frame,))

    def ready(self, **ack):
        """Reads hello, acks, returns the frames between hello_ack and ready (inclusive of none)."""
        hello = self.next()
        assert hello["type"] == "hello", hello
        self.hello = hello
        frame = {"type": "hello_ack", "protocol_version": 1, "cwd": "/project"}
        frame.update(ack)
        self.send(frame)
        before = []
        while True:
            nxt = self.next()
            if nxt["type"] == "ready":
                return before
            before.append(nxt)

    def wait(self, timeout=TIMEOUT):
        self._serving.join(timeout)
        assert not self._serving.is_alive(), "serve() did not return"
        for stream in (self._in, self._writer, self._reader):
            try:
                stream.close()
            except OSError:
                pass
        return self.status

    def shutdown(self):
        self.send({"type": "shutdown"})
        ack = self.expect("shutdown_ack")
        return ack, self.wait()
