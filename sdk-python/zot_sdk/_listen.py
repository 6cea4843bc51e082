"""Serving an extension over WebSocket (`ext.listen()`): zot connects to it instead of spawning it.

Contract: each accepted connection is one protocol session (hello, registrations, ready,
requests) on its own threads with the extension's handlers; a client without the token gets 401
(compared in constant time), one over `max_connections` gets 503, a plain HTTP request 426; the
handshake must finish within HANDSHAKE_SECONDS; a connection silent for IDLE_SECONDS ends (zot
pings every 15 s); `close()` stops accepting and closes every connection.
"""
import hmac
import socket
import ssl
import threading

from ._websocket import (
    HandshakeError,
    WebSocketStream,
    accept_key,
    read_request,
    refusal,
    switching,
)

HANDSHAKE_SECONDS = 10.0
IDLE_SECONDS = 60.0
DEFAULT_MAX_CONNECTIONS = 16


def _bearer_matches(header, token):
    scheme, _, given = (header or "").partition(" ")
    if scheme.lower() != "bearer":
        given = ""
    return hmac.compare_digest(given.strip().encode("utf-8"), token.encode("utf-8"))


def _tls_context(tls):
    """An ssl context from `tls`: an SSLContext, a (cert, key) pair of PEM file paths, a dict
    with "cert" and "key", or one PEM file holding both."""
    if tls is None or isinstance(tls, ssl.SSLContext):
        return tls
    if isinstance(tls, dict):
        cert, key = tls.get("cert"), tls.get("key")
    elif isinstance(tls, (tuple, list)) and len(tls) == 2:
        cert, key = tls
    elif isinstance(tls, str):
        cert, key = tls, None
    else:
        raise TypeError("tls: a (cert_file, key_file) pair, {'cert':..., 'key':...} or an SSLContext")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(cert, key)
    return context


class Listening:
    """A running server: `url` to give zot, `port`, `wait()` and `close()`."""

    def __init__(self, ext, host, port, token, tls, max_connections):
        if token is not None and (not isinstance(token, str) or not token):
            raise ValueError("token must be a non-empty string (or None for no token)")
        self._ext = ext
        self._token = token
        self._tls = _tls_context(tls)
        self._max = max(1, int(max_connections))
        self._lock = threading.Lock()
        self._sessions = set()
        self._sockets = set()
        self._handshaking = 0
        self._closed = threading.Event()
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._server = socket.socket(family, socket.SOCK_STREAM)
        try:
            self._server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self._server.bind((host, port))
            self._server.listen(64)
        except OSError:
            self._server.close()
            raise
        self.port = self._server.getsockname()[1]
        shown = "[%s]" % host if ":" in host else host
        #: `ws://host:port/` (or wss://): give it to zot with --ext-url or a manifest's transport.
        self.url = "%s://%s:%d/" % ("wss" if self._tls else "ws", shown, self.port)
        self._thread = threading.Thread(target=self._accept, name=ext.name + "-listen", daemon=True)
        self._thread.start()

    def sessions(self):
        """The sessions whose handshake is done (one per connection)."""
        with self._lock:
            return list(self._sessions)

    def wait(self, timeout=None):
        """Blocks until `close()` (or `timeout` seconds); True once closed. Ctrl+C closes."""
        try:
            return self._closed.wait(timeout)
        except KeyboardInterrupt:
            self.close()
            return True

    serve_forever = wait

    def close(self):
        """Stops accepting and closes every connection (their sessions end as at end of input)."""
        if self._closed.is_set():
            return
        self._closed.set()
        try:
            self._server.close()
        except OSError:
            pass
        with self._lock:
            sockets = list(self._sockets)
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _accept(self):
        while not self._closed.is_set():
            try:
                sock, _ = self._server.accept()
            except OSError:
                if self._closed.is_set():
                    return
                continue
            with self._lock:
                # Handshakes in progress are bounded too, so a flood of silent clients cannot
                # start threads without end.
                busy = self._handshaking >= self._max
                if not busy:
                    self._handshaking += 1
                    self._sockets.add(sock)
            if busy:
                sock.close()
                continue
            threading.Thread(target=self._connection, args=(sock,), daemon=True).start()

    def _connection(self, sock):
        session = None
        stream = None
        try:
            sock.settimeout(HANDSHAKE_SECONDS)
            if self._tls is not None:
                raw = sock
                sock = self._tls.wrap_socket(sock, server_side=True)
                with self._lock:
                    self._sockets.discard(raw)
                    self._sockets.add(sock)
            stream, session = self._handshake(sock)
        except (OSError, ssl.SSLError, ValueError):
            pass
        finally:
            with self._lock:
                self._handshaking -= 1
        if session is not None:
            try:
                sock.settimeout(IDLE_SECONDS)
                session.serve(stream, stream)
                stream.close()
            except OSError:
                pass
            finally:
                with self._lock:
                    self._sessions.discard(session)
        with self._lock:
            self._sockets.discard(sock)
        try:
            sock.close()
        except OSError:
            pass

    def _handshake(self, sock):
        """Answers the opening handshake; returns (stream, session), or (None, None) refused."""
        try:
            method, _target, version, headers, leftover = read_request(sock)
            if method != "GET" or version != "HTTP/1.1":
                raise HandshakeError("400 Bad Request", "a WebSocket handshake is GET over HTTP/1.1")
            if self._token is not None and not _bearer_matches(
                headers.get("authorization"), self._token
            ):
                raise HandshakeError("401 Unauthorized", "", [("WWW-Authenticate", "Bearer")])
            accept = accept_key(headers)
            with self._lock:
                if len(self._sessions) >= self._max:
                    raise HandshakeError("503 Service Unavailable", "too many connections")
                session = self._ext._session()
                self._sessions.add(session)
        except HandshakeError as problem:
            if problem.status is not None:
                sock.sendall(refusal(problem.status, str(problem), problem.headers))
            return None, None
        try:
            sock.sendall(switching(accept))
        except OSError:
            with self._lock:
                self._sessions.discard(session)
            raise
        return WebSocketStream(sock, leftover, self._ext.log), session
