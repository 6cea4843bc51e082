"""JSONL framing for the zot extension protocol: LF-only line splitting, a line cap, encoding.

Contract: lines are split on b"\\n" and nothing else (U+2028 and U+2029 are legal inside JSON
strings); a CR before the LF is tolerated; a last line without LF is kept; a line longer than
the cap is skipped, never buffered whole.
"""
import json

from ._protocol import MAX_LINE_BYTES

_SKIP_CHUNK = 1024 * 1024


class FrameError(ValueError):
    """A line that is not a JSON object with a string `type`."""


class LineReader:
    """Reads LF-terminated lines from a binary stream (one with `readline(limit)`)."""

    def __init__(self, stream, max_bytes=MAX_LINE_BYTES):
        self._stream = stream
        self._max = max_bytes
        #: Lines skipped for being longer than the cap.
        self.oversize = 0

    def read_line(self):
        """The next line without its LF (and CR), or None at end of input. Skips oversize lines."""
        while True:
            line = self._stream.readline(self._max + 1)
            if not line:
                return None
            if line.endswith(b"\n"):
                line = line[:-1]
            elif len(line) > self._max:
                self.oversize += 1
                if self._skip_rest():
                    continue
                return None
            if line.endswith(b"\r"):
                line = line[:-1]
            return line

    def _skip_rest(self):
        """Discards up to the next LF; False when the input ended first."""
        while True:
            chunk = self._stream.readline(_SKIP_CHUNK)
            if not chunk:
                return False
            if chunk.endswith(b"\n"):
                return True


def decode(line):
    """One line (bytes, without LF) to a frame dict; None for a blank line. Raises FrameError."""
    if not line.strip():
        return None
    try:
        frame = json.loads(line.decode("utf-8"))
    except (ValueError, RecursionError) as error:  # UnicodeDecodeError is a ValueError
        raise FrameError("not a JSON line: %s" % error) from None
    if not isinstance(frame, dict) or not isinstance(frame.get("type"), str):
        raise FrameError("not a frame (a JSON object with a string type)")
    return frame


_encoder = json.JSONEncoder(ensure_ascii=True, allow_nan=False, separators=(",", ":"))


def encode(frame):
    """A frame dict to one line of bytes with its LF. Raises ValueError/TypeError if not JSON."""
    return (_encoder.encode(frame) + "\n").encode("ascii")
