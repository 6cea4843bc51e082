import io
import unittest

from zot_sdk._framing import FrameError, LineReader, decode, encode


def lines(data, limit=1024):
    reader = LineReader(io.BufferedReader(io.BytesIO(data)), limit)
    out = []
    while True:
        line = reader.read_line()
        if line is None:
            return out, reader.oversize
        out.append(line)


class LineReaderTest(unittest.TestCase):
    def test_splits_on_lf_only(self):
        data = '{"type":"t","a":"x\u2028y\u2029z\x85w"}\n{"type":"b"}\n'.encode("utf-8")
        got, _ = lines(data)
        self.assertEqual(len(got), 2)
        self.assertEqual(decode(got[0])["a"], "x\u2028y\u2029z\x85w")

    def test_crlf_and_last_line_without_lf(self):
        got, _ = lines(b'{"type":"a"}\r\n{"type":"b"}')
        self.assertEqual(got, [b'{"type":"a"}', b'{"type":"b"}'])

    def test_carriage_return_alone_is_not_a_separator(self):
        got, _ = lines(b'{"type":"a","t":"x\ry"}\n')
        self.assertEqual(len(got), 1)

    def test_oversize_line_is_skipped_and_counted(self):
        big = b'{"type":"x","pad":"' + b"a" * 5000 + b'"}\n'
        got, oversize = lines(big + b'{"type":"ok"}\n', limit=1024)
        self.assertEqual(got, [b'{"type":"ok"}'])
        self.assertEqual(oversize, 1)

    def test_line_exactly_at_the_limit_is_kept(self):
        body = b'{"type":"x","p":"' + b"a" * (100 - 19) + b'"}'
        self.assertEqual(len(body), 100)
        got, oversize = lines(body + b"\n", limit=100)
        self.assertEqual((got, oversize), ([body], 0))

    def test_oversize_last_line_without_lf_ends_input(self):
        got, oversize = lines(b"a" * 3000, limit=1024)
        self.assertEqual((got, oversize), ([], 1))


class DecodeEncodeTest(unittest.TestCase):
    def test_blank_is_none(self):
        self.assertIsNone(decode(b"   "))

    def test_rejects_non_frames(self):
        for bad in (b"nope", b"[1]", b'{"type":1}', b'{"x":1}', b"\xff\xfe", b"[" * 100000):
            with self.assertRaises(FrameError, msg=bad[:20]):
                decode(bad)

    def test_encode_is_one_ascii_line(self):
        data = encode({"type": "notify", "message": "a\nb\u2028c é"})
        self.assertTrue(data.endswith(b"\n"))
        self.assertEqual(data.count(b"\n"), 1)
        data.decode("ascii")
        self.assertEqual(decode(data[:-1])["message"], "a\nb\u2028c é")

    def test_encode_refuses_nan_and_objects(self):
        with self.assertRaises(ValueError):
            encode({"type": "x", "n": float("nan")})
        with self.assertRaises(TypeError):
            encode({"type": "x", "o": object()})


if __name__ == "__main__":
    unittest.main()
