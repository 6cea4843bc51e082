"""ext.listen(): the WebSocket server against a raw socket client that sends exactly the bytes each
test needs (the handshake, masking, fragments, control frames, bad UTF-8, oversize messages)."""
import os
import shutil
import socket
import ssl
import subprocess
import tempfile
import threading
import unittest

from zot_sdk import Extension, text
from zot_sdk._websocket import MAX_MESSAGE_BYTES

from .wsclient import RFC_KEY, RawClient, accept_for

TOKEN = "s3cret-token-0123"


def echo_extension(**listen):
    ext = Extension("wsecho", "1.0.0")

    @ext.tool("echo", "echoes", {"type": "object"})
    def echo(args, call):
        if args.get("ask"):
            answer = ext.ui.confirm("sure?")
            return text("asked:%s" % answer.value)
        if args.get("where"):
            return text("cwd:%s" % ext.host.cwd)
        if args.get("register"):
            @ext.tool("late", "registered by a call", {"type": "object"})
            def late(args):
                return text("late")
        ext.notify("to this connection only")
        return text("echo:%s" % args.get("s"))

    listening = ext.listen(**listen)
    return ext, listening


class WebSocketServerTest(unittest.TestCase):
    def setUp(self):
        self.ext, self.listening = echo_extension(token=TOKEN, max_connections=2)
        self.addCleanup(self.listening.close)

    def client(self, token=TOKEN, **kw):
        client = RawClient(self.listening.port, **kw)
        self.addCleanup(client.close)
        if token is not None:
            client.headers["Authorization"] = "Bearer " + token
        return client

    def session(self, client=None):
        """A client past the handshake and `ready`."""
        client = client or self.client()
        client.open()
        hello = client.recv_json()
        self.assertEqual((hello["type"], hello["name"]), ("hello", "wsecho"))
        client.send_json({"type": "hello_ack", "protocol_version": 2})
        client.until("ready")
        return client

    def call(self, client, s, id="c1"):
        client.send_json({"type": "tool_call", "id": id, "name": "echo", "args": {"s": s}})
        return client.until("tool_result")

    def test_handshake_accept_key_and_a_tool_call(self):
        client = self.client()
        status, headers = client.request()
        self.assertEqual(status, "HTTP/1.1 101 Switching Protocols")
        self.assertEqual(headers["sec-websocket-accept"], "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        self.assertEqual(accept_for(RFC_KEY), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        self.assertEqual(client.recv_json()["type"], "hello")
        client.send_json({"type": "hello_ack", "protocol_version": 2})
        self.assertEqual(client.recv_json()["type"], "register_tool")
        self.assertEqual(client.recv_json()["type"], "ready")
        result = self.call(client, "hi")
        self.assertEqual(result["content"], [{"type": "text", "text": "echo:hi"}])

    def test_token_missing_wrong_and_in_the_wrong_scheme_get_401(self):
        for header in (None, "Bearer wrong", "Bearer " + TOKEN + "x", "Basic " + TOKEN):
            client = self.client(token=None)
            status, headers = client.request({"Authorization": header} if header else None)
            self.assertEqual(status, "HTTP/1.1 401 Unauthorized", header)
            self.assertEqual(headers.get("www-authenticate"), "Bearer")
            self.assertTrue(client.eof())

    def test_plain_http_bad_version_and_bad_key_are_refused(self):
        client = self.client(token=None)
        status, _ = client.request(lines=["GET / HTTP/1.1", "Host: x",
                                          "Authorization: Bearer " + TOKEN])
        self.assertEqual(status, "HTTP/1.1 426 Upgrade Required")
        status, headers = self.client().request({"Sec-WebSocket-Version": "8"})
        self.assertEqual(status, "HTTP/1.1 426 Upgrade Required")
        self.assertEqual(headers["sec-websocket-version"], "13")
        status, _ = self.client().request(key="short")
        self.assertEqual(status, "HTTP/1.1 400 Bad Request")

    def test_fragments_joined_with_a_ping_between_and_the_pong_echoes_it(self):
        client = self.session()
        data = b'{"type":"tool_call","id":"f1","name":"echo","args":{"s":"in \xc3\xa9 parts"}}'
        client.send_frame(0x1, data[:20], fin=False)
        client.send_frame(0x9, b"are you there")
        client.send_frame(0x0, data[20:41], fin=False)  # splits the two-byte character
        client.send_frame(0x0, data[41:], fin=True)
        fin, opcode, payload = client.recv_frame()
        self.assertEqual((fin, opcode, payload), (True, 0xA, b"are you there"))
        result = client.until("tool_result")
        self.assertEqual((result["id"], result["content"][0]["text"]), ("f1", "echo:in \u00e9 parts"))

    def test_masking_extension_bits_and_protocol_errors_close_with_1002(self):
        cases = [
            lambda c: c.send_frame(0x1, b"{}", mask=False),
            lambda c: c.send_frame(0x1, b"{}", rsv=0x40),
            lambda c: c.send_frame(0x0, b"{}"),
            lambda c: c.send_frame(0x9, b"x", fin=False),
            lambda c: c.send_frame(0x3, b"x"),
            lambda c: (c.send_frame(0x1, b"{", fin=False), c.send_frame(0x1, b"}")),
        ]
        for case in cases:
            client = self.session()
            case(client)
            self.assertEqual(client.recv_close(), 1002)
            self.assertTrue(client.eof())

    def test_invalid_utf8_closes_with_1007_even_split_across_fragments(self):
        for frames in ([(b'{"type":"x\xff"}', True)], [(b'{"s":"\xe2\x82', False), (b'', True)]):
            client = self.session()
            for i, (payload, fin) in enumerate(frames):
                client.send_frame(0x1 if i == 0 else 0x0, payload, fin=fin)
            self.assertEqual(client.recv_close(), 1007)

    def test_a_message_over_the_limit_closes_with_1009_without_being_sent_whole(self):
        client = self.session()
        # Only the header: the server refuses from the announced length.
        client.sock.sendall(bytes([0x81, 0xFF]) + (MAX_MESSAGE_BYTES + 1).to_bytes(8, "big")
                            + b"\0\0\0\0")
        self.assertEqual(client.recv_close(), 1009)

    def test_an_oversize_frame_under_the_message_limit_is_dropped_and_the_link_kept(self):
        client = self.session()
        big = b'{"type":"tool_call","id":"big","name":"echo","args":{"s":"' + b"a" * (33 << 20)
        client.send_frame(0x1, big + b'"}}')
        client.send_frame(0x2, b"\x00\x01binary")  # dropped too
        self.assertEqual(self.call(client, "after", id="c2")["id"], "c2")

    def test_close_handshake_from_the_client_and_after_shutdown(self):
        client = self.session()
        client.send_frame(0x8, (1000).to_bytes(2, "big") + b"bye")
        self.assertEqual(client.recv_close(), 1000)
        self.assertTrue(client.eof())
        client = self.session()
        client.send_json({"type": "shutdown"})
        client.until("shutdown_ack")
        self.assertEqual(client.recv_close(), 1000)
        client.send_frame(0x8, (1000).to_bytes(2, "big"))
        self.assertTrue(client.eof())

    def test_each_connection_is_its_own_session_and_the_limit_answers_503(self):
        one, two = self.session(), self.session()
        self.assertEqual(len(self.listening.sessions()), 2)
        status, _ = self.client().request()
        self.assertEqual(status, "HTTP/1.1 503 Service Unavailable")
        # A handler's notes, questions and registrations go to its own connection only.
        two.send_json({"type": "tool_call", "id": "q", "name": "echo", "args": {"ask": True}})
        request = two.until("ui_request")
        two.send_json({"type": "ui_response", "id": request["id"], "value": True})
        self.assertEqual(two.until("tool_result")["content"][0]["text"], "asked:True")
        one.send_json({"type": "tool_call", "id": "r", "name": "echo", "args": {"register": 1}})
        self.assertEqual(one.until("register_tool")["name"], "late")
        self.assertEqual(one.until("tool_result")["id"], "r")
        self.assertEqual(self.call(two, "x", id="t")["id"], "t")  # no ui_request, note or late
        # The closing handshake ends once the server has freed the slot and closed the socket;
        # a bare TCP close would race the next handshake against the server noticing it.
        one.send_frame(0x8, (1000).to_bytes(2, "big"))
        self.assertEqual(one.recv_close(), 1000)
        self.assertTrue(one.eof())
        self.assertEqual(len(self.listening.sessions()), 1)
        self.assertEqual(self.call(self.session(), "again")["content"][0]["text"], "echo:again")

    def test_ext_host_in_a_handler_is_its_own_connections(self):
        hosts = []
        for cwd in ("/one", "/two"):
            client = self.client()
            client.open()
            client.recv_json()
            client.send_json({"type": "hello_ack", "protocol_version": 2, "cwd": cwd})
            client.until("ready")
            hosts.append(client)
        for client, cwd in zip(reversed(hosts), ("/two", "/one")):
            client.send_json({"type": "tool_call", "id": "w", "name": "echo", "args": {"where": 1}})
            self.assertEqual(client.until("tool_result")["content"][0]["text"], "cwd:" + cwd)
        self.assertIsNone(self.ext.host)  # outside a handler: which connection?

    def test_registering_after_listen_outside_a_handler_is_refused(self):
        with self.assertRaisesRegex(RuntimeError, "register before it"):
            self.ext.tool("nope", "too late")(lambda args: None)
        with self.assertRaisesRegex(RuntimeError, "already called"):
            self.ext.listen()

    def test_close_ends_every_connection(self):
        client = self.session()
        self.listening.close()
        self.assertTrue(client.eof())
        # Refused, as a rule; should another process have taken the port meanwhile, it does
        # not answer as this server would (and the socket is closed either way).
        with self.assertRaises(OSError):
            with socket.create_connection(("127.0.0.1", self.listening.port), timeout=2) as late:
                late.recv(1)


@unittest.skipIf(shutil.which("openssl") is None, "openssl makes the test certificate")
class TlsTest(unittest.TestCase):
    def test_wss_with_a_certificate_file(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        cert, key = os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem")
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
             "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1",
             "-addext", "subjectAltName=IP:127.0.0.1"],
            check=True, capture_output=True)
        ext, listening = echo_extension(tls=(cert, key))
        self.addCleanup(listening.close)
        self.assertTrue(listening.url.startswith("wss://127.0.0.1:"))
        context = ssl.create_default_context(cafile=cert)
        client = RawClient(listening.port,
                           wrap=lambda s: context.wrap_socket(s, server_hostname="127.0.0.1"))
        self.addCleanup(client.close)
        client.open()
        self.assertEqual(client.recv_json()["type"], "hello")
        # A client that does not trust the certificate gets no session.
        with self.assertRaises(ssl.SSLError):
            strict = ssl.create_default_context()
            RawClient(listening.port,
                      wrap=lambda s: strict.wrap_socket(s, server_hostname="127.0.0.1"))


class SlowClientTest(unittest.TestCase):
    def test_silent_handshakes_are_bounded(self):
        _, listening = echo_extension(max_connections=1)
        self.addCleanup(listening.close)
        silent = socket.create_connection(("127.0.0.1", listening.port))
        self.addCleanup(silent.close)
        # The one handshake slot is taken: the next connection is closed at once.
        extra = socket.create_connection(("127.0.0.1", listening.port), timeout=10)
        self.addCleanup(extra.close)
        self.assertEqual(extra.recv(1), b"")


if __name__ == "__main__":
    unittest.main()
