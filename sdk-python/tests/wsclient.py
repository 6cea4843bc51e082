"""A raw WebSocket client over a plain socket, for the tests: it sends exactly the bytes a test
asks for (unmasked frames, extension bits, fragments, bad UTF-8) and reads frames as they come."""
import base64
import json
import os
import socket
import struct

RFC_KEY = "dGhlIHNhbXBsZSBub25jZQ=="


def _masked(payload, mask):
    return bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


class RawClient:
    def __init__(self, port, headers=None, wrap=None, timeout=10.0):
        sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.sock = wrap(sock) if wrap else sock
        self.buffer = b""
        self.headers = headers or {}

    def request(self, extra=None, key=RFC_KEY, lines=None):
        """Sends the opening handshake; returns (status line, headers dict)."""
        if lines is None:
            lines = ["GET /ext HTTP/1.1", "Host: 127.0.0.1", "Upgrade: websocket",
                     "Connection: Upgrade", "Sec-WebSocket-Key: " + key,
                     "Sec-WebSocket-Version: 13"]
            lines += ["%s: %s" % pair for pair in dict(self.headers, **(extra or {})).items()]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.sock.recv(4096)
            if not chunk:
                break
            self.buffer += chunk
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        return lines[0], headers

    def open(self, extra=None):
        status, headers = self.request(extra)
        assert status.startswith("HTTP/1.1 101"), status
        return headers

    def send_frame(self, opcode, payload, fin=True, mask=True, rsv=0):
        first = (0x80 if fin else 0) | rsv | opcode
        n = len(payload)
        bit = 0x80 if mask else 0
        if n < 126:
            head = struct.pack("!BB", first, bit | n)
        elif n < 65536:
            head = struct.pack("!BBH", first, bit | 126, n)
        else:
            head = struct.pack("!BBQ", first, bit | 127, n)
        if mask:
            key = os.urandom(4)
            head += key
            payload = _masked(payload, key) if n < 4096 else _fast_mask(payload, key)
        self.sock.sendall(head + payload)

    def send_json(self, frame):
        self.send_frame(0x1, json.dumps(frame).encode("utf-8"))

    def _exact(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("connection closed")
            self.buffer += chunk
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def recv_frame(self):
        """(fin, opcode, payload) of the next frame; server frames must be unmasked."""
        first, second = self._exact(2)
        assert not second & 0x80, "a server frame was masked"
        n = second & 0x7F
        if n == 126:
            n = struct.unpack("!H", self._exact(2))[0]
        elif n == 127:
            n = struct.unpack("!Q", self._exact(8))[0]
        return bool(first & 0x80), first & 0x0F, self._exact(n)

    def recv_json(self):
        """The next text message as a frame (pongs skipped)."""
        while True:
            fin, opcode, payload = self.recv_frame()
            if opcode == 0xA:
                continue
            assert opcode == 0x1 and fin, (opcode, payload)
            return json.loads(payload.decode("utf-8"))

    def until(self, kind):
        while True:
            frame = self.recv_json()
            if frame.get("type") == kind:
                return frame

    def recv_close(self):
        """The close code the server sent (frames before it skipped)."""
        while True:
            _, opcode, payload = self.recv_frame()
            if opcode == 0x8:
                return struct.unpack("!H", payload[:2])[0] if payload else None

    def eof(self):
        """True when the server closed the TCP connection (after anything left is read)."""
        try:
            while True:
                if not self.sock.recv(65536):
                    return True
        except OSError:
            return True

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def _fast_mask(payload, key):
    n = len(payload)
    pad = (key * (n // 4 + 1))[:n]
    return (int.from_bytes(payload, "little") ^ int.from_bytes(pad, "little")).to_bytes(n, "little")


def accept_for(key):
    import hashlib

    digest = hashlib.sha1(key.encode() + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest()
    return base64.b64encode(digest).decode()
