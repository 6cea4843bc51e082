"""The server side of one WebSocket connection (RFC 6455), as the streams `serve()` reads and writes.

Contract: text messages only, each one protocol frame (an LF is added after each, so the line
reader bounds them exactly as on stdio); binary messages are read and dropped; fragmented
messages are joined; client frames must be masked and use no extension bits (else close 1002);
a message over MAX_MESSAGE_BYTES closes with 1009 without being held whole; invalid UTF-8
closes with 1007; pings are answered; a close is answered and ends input. Every read and write
is bounded by the socket's timeout, so a peer that goes silent ends the session.
"""
import base64
import codecs
import hashlib
import struct
import threading

from ._protocol import MAX_LINE_BYTES

#: A message this large closes the connection (the host's limit: twice the frame limit); one
#: between the frame limit and this is read and dropped like an oversize stdio line.
MAX_MESSAGE_BYTES = 2 * MAX_LINE_BYTES
#: The request line and headers of the opening handshake may take at most this many bytes.
MAX_HANDSHAKE_BYTES = 16 * 1024
_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
_CHUNK = 64 * 1024
_CONTINUATION, _TEXT, _BINARY, _CLOSE, _PING, _PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA
_VALID_CLOSE_CODES = frozenset((1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011))


class HandshakeError(Exception):
    """The opening handshake failed: `status` is the HTTP answer ("400 Bad Request")."""

    def __init__(self, status, message, headers=()):
        super().__init__(message)
        self.status = status
        self.headers = tuple(headers)


def read_request(sock):
    """Reads the HTTP request head: (method, target, version, headers dict, leftover bytes)."""
    data = b""
    while b"\r\n\r\n" not in data:
        if len(data) > MAX_HANDSHAKE_BYTES:
            raise HandshakeError("431 Request Header Fields Too Large", "handshake too large")
        chunk = sock.recv(4096)
        if not chunk:
            raise HandshakeError(None, "the client closed during the handshake")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    if len(head) > MAX_HANDSHAKE_BYTES:
        raise HandshakeError("431 Request Header Fields Too Large", "handshake too large")
    try:
        lines = head.decode("latin-1").split("\r\n")
        method, target, version = lines[0].split(" ")
    except ValueError:
        raise HandshakeError("400 Bad Request", "not an HTTP request") from None
    headers = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if not sep or not name or name != name.strip():
            raise HandshakeError("400 Bad Request", "a malformed header line")
        name = name.lower()
        value = value.strip()
        headers[name] = headers[name] + ", " + value if name in headers else value
    return method, target, version, headers, rest


def _tokens(value):
    return {part.strip().lower() for part in value.split(",")}


def accept_key(headers):
    """Checks an upgrade request's headers; returns the Sec-WebSocket-Accept value."""
    if "websocket" not in _tokens(headers.get("upgrade", "")) or "upgrade" not in _tokens(
        headers.get("connection", "")
    ):
        raise HandshakeError("426 Upgrade Required", "a zot extension: connect with a WebSocket",
                             [("Upgrade", "websocket")])
    if headers.get("sec-websocket-version", "").strip() != "13":
        raise HandshakeError("426 Upgrade Required", "WebSocket version 13 only",
                             [("Sec-WebSocket-Version", "13")])
    key = headers.get("sec-websocket-key", "").strip()
    try:
        if len(base64.b64decode(key, validate=True)) != 16:
            raise ValueError
    except ValueError:
        raise HandshakeError("400 Bad Request", "a missing or malformed Sec-WebSocket-Key") from None
    return base64.b64encode(hashlib.sha1(key.encode("ascii") + _GUID).digest()).decode("ascii")


def refusal(status, message="", headers=()):
    """The bytes of a plain HTTP answer that refuses a handshake and closes."""
    body = (message + "\n").encode("utf-8") if message else b""
    lines = ["HTTP/1.1 " + status, "Connection: close", "Content-Type: text/plain",
             "Content-Length: %d" % len(body)]
    lines += ["%s: %s" % pair for pair in headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def switching(accept):
    return ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Accept: %s\r\n\r\n" % accept).encode("ascii")


def frame_bytes(opcode, payload):
    """One unmasked, final server frame."""
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", 0x80 | opcode, n)
    elif n < 65536:
        head = struct.pack("!BBH", 0x80 | opcode, 126, n)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 127, n)
    return head + payload


def _unmask(data, mask, offset):
    n = len(data)
    if n == 0:
        return data
    shift = offset % 4
    key = (mask[shift:] + mask[:shift]) * (n // 4 + 1)
    value = int.from_bytes(data, "little") ^ int.from_bytes(key[:n], "little")
    return value.to_bytes(n, "little")


class _Closed(Exception):
    """The connection is being failed: (code, reason) go in the close frame."""


class WebSocketStream:
    """One accepted connection after the handshake: `readline(limit)` for the line reader,
    `write(data)`/`flush()` for frames (one text message per line), `close()`."""

    def __init__(self, sock, leftover=b"", log=None):
        self._sock = sock
        self._raw = bytearray(leftover)
        self._text = bytearray()
        self._log = log or (lambda text: None)
        self._write_lock = threading.Lock()
        self._eof = False
        self._close_sent = False
        self._close_received = False
        # The data frame being read: bytes left, its mask, bytes read, and its kind.
        self._left = 0
        self._mask = b""
        self._offset = 0
        self._fin = True
        self._message = None  # None, "text" or "binary" while a message is open
        self._message_bytes = 0
        self._message_start = 0
        self._decoder = None
        self._dropped_binary = False
        #: The close code this side sent (None while open).
        self.close_code = None

    # Reading, for LineReader.

    def readline(self, limit=-1):
        limit = limit if limit is not None and limit >= 0 else MAX_MESSAGE_BYTES
        scanned = 0  # bytes of _text known to hold no LF (so each byte is searched once)
        while True:
            end = self._text.find(b"\n", scanned, limit)
            if end >= 0:
                return self._take(end + 1)
            scanned = min(len(self._text), limit)
            if len(self._text) >= limit:
                return self._take(limit)
            if self._eof:
                return self._take(len(self._text))
            try:
                self._pull()
            except _Closed as failure:
                code, reason = failure.args
                del self._text[self._message_start:]
                scanned = min(scanned, len(self._text))
                self._fail(code, reason)
            except OSError:  # a reset, a timeout: the peer is gone
                self._eof = True

    def _take(self, n):
        line = bytes(self._text[:n])
        del self._text[:n]
        self._message_start = max(0, self._message_start - n)
        return line

    def _recv(self, n):
        """Up to n bytes (at least one); raises OSError at the end of the connection."""
        if self._raw:
            data = bytes(self._raw[:n])
            del self._raw[:n]
            return data
        data = self._sock.recv(min(n, _CHUNK))
        if not data:
            raise ConnectionResetError("closed without a close frame")
        return data

    def _exact(self, n):
        data = b""
        while len(data) < n:
            data += self._recv(n - len(data))
        return data

    def _pull(self):
        """Reads one piece of input: a chunk of payload, or a frame header (and a control frame)."""
        if self._left:
            data = _unmask(self._recv(min(self._left, _CHUNK)), self._mask, self._offset)
            self._left -= len(data)
            self._offset += len(data)
            self._payload(data)
        else:
            self._header()
        if not self._left and self._fin and self._message is not None:
            self._end_message()

    def _header(self):
        first, second = self._exact(2)
        fin, opcode = first & 0x80, first & 0x0F
        if first & 0x70:
            raise _Closed(1002, "extension bits are not negotiated")
        if not second & 0x80:
            raise _Closed(1002, "client frames must be masked")
        length = second & 0x7F
        if length == 126:
            length = struct.unpack("!H", self._exact(2))[0]
        elif length == 127:
            length = struct.unpack("!Q", self._exact(8))[0]
            if length >> 63:
                raise _Closed(1002, "a frame length with its top bit set")
        mask = self._exact(4)
        if opcode >= 0x8:
            if not fin or length > 125:
                raise _Closed(1002, "a control frame must be final and at most 125 bytes")
            self._control(opcode, _unmask(self._exact(length), mask, 0))
            return
        if opcode == _CONTINUATION:
            if self._message is None:
                raise _Closed(1002, "a continuation frame with no message to continue")
        elif opcode in (_TEXT, _BINARY):
            if self._message is not None:
                raise _Closed(1002, "a new message before the last one ended")
            self._message = "text" if opcode == _TEXT else "binary"
            self._message_bytes = 0
            self._message_start = len(self._text)
            self._decoder = codecs.getincrementaldecoder("utf-8")() if opcode == _TEXT else None
        else:
            raise _Closed(1002, "unknown opcode %d" % opcode)
        self._message_bytes += length
        if self._message_bytes > MAX_MESSAGE_BYTES:
            raise _Closed(1009, "a message over %d bytes" % MAX_MESSAGE_BYTES)
        self._left, self._mask, self._offset, self._fin = length, mask, 0, bool(fin)

    def _payload(self, data):
        if self._message != "text":
            return
        try:
            self._decoder.decode(data)
        except UnicodeDecodeError:
            raise _Closed(1007, "a text message that is not UTF-8") from None
        self._text += data

    def _end_message(self):
        if self._message == "text":
            try:
                self._decoder.decode(b"", True)
            except UnicodeDecodeError:
                raise _Closed(1007, "a text message that is not UTF-8") from None
            self._text += b"\n"
        elif not self._dropped_binary:
            self._dropped_binary = True
            self._log("dropped a binary message (frames are text messages)")
        self._message = None
        self._decoder = None
        self._message_start = len(self._text)

    def _control(self, opcode, payload):
        if opcode == _PING:
            self._send_raw(frame_bytes(_PONG, payload))
        elif opcode == _CLOSE:
            self._close_received = True
            code = 1000
            if len(payload) == 1:
                raise _Closed(1002, "a close frame of one byte")
            if payload:
                code = struct.unpack("!H", payload[:2])[0]
                if code not in _VALID_CLOSE_CODES and not 3000 <= code <= 4999:
                    raise _Closed(1002, "close code %d" % code)
                try:
                    payload[2:].decode("utf-8")
                except UnicodeDecodeError:
                    raise _Closed(1007, "a close reason that is not UTF-8") from None
            self._fail(code, "")
        elif opcode != _PONG:
            raise _Closed(1002, "unknown opcode %d" % opcode)

    def _fail(self, code, reason):
        """Sends a close frame (once) and ends input."""
        if code != 1000 and not self._close_received:
            self._log("closing the connection (%d): %s" % (code, reason))
        self._send_close(code, reason)
        self._eof = True

    def _send_close(self, code, reason):
        with self._write_lock:
            if self._close_sent:
                return
            self._close_sent = True
            self.close_code = code
        payload = struct.pack("!H", code) + reason.encode("utf-8")[:120]
        try:
            self._send_raw(frame_bytes(_CLOSE, payload), closing=True)
        except OSError:
            pass

    def _send_raw(self, data, closing=False):
        with self._write_lock:
            if self._close_sent and not closing:
                raise BrokenPipeError("the WebSocket connection is closing")
            self._sock.sendall(data)

    # Writing, for the Extension.

    def write(self, data):
        """One protocol line (its LF dropped) as one text message."""
        if data.endswith(b"\n"):
            data = data[:-1]
        self._send_raw(frame_bytes(_TEXT, data))

    def flush(self):
        pass

    def close(self, code=1000, reason="done", grace=2.0):
        """The closing handshake: a close frame, then the peer's (within `grace` seconds)."""
        self._send_close(code, reason)
        if not self._close_received:
            try:
                self._sock.settimeout(grace)
                while not self._close_received:
                    try:
                        self._pull()
                    except _Closed:
                        break
            except OSError:
                pass
