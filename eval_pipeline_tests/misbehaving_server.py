"""A loopback HTTP server that misbehaves on purpose: endless, dripping and huge bodies.

Raw sockets, not ``http.server``, so it can do what no well-behaved framework allows: drip its
status line and headers a byte at a time, or send a body that never ends. The first path segment
names the behaviour, so one server serves every fault: an SSE adapter pointed at
``<url>/drip_login`` logs in at ``/drip_login/auth/login`` and asks at ``/drip_login/chat``. Under
``<url>/by_question`` the question names the behaviour (``"drip_stream: How many sites?"``), so one
evaluation can meet several faults, a case each.

Behaviours (the login of every behaviour but ``drip_login`` answers at once):

* ``ok`` — a short SSE answer, or JSON ``{"answer": …}`` at ``/json``;
* ``endless_stream`` — a small SSE ``chunk`` every 50 ms, never ``done``;
* ``drip_stream`` — an SSE stream one byte per ``drip_s`` (default 0.5 s) for ever;
* ``huge_answer`` — SSE chunks (or a JSON answer) of ``huge_bytes`` in all, then ``done``;
* ``endless_400`` — HTTP 400 with a chunked body that never ends;
* ``drip_400`` — HTTP 400 whose body arrives one byte per ``drip_s``;
* ``drip_login`` — the login answers 200, then drips its body for ever;
* ``drip_headers`` — the status line and headers one byte per ``drip_s``, never finished;
* ``endless_json`` / ``drip_json`` — ``/json`` bodies that never end / drip for ever;
* ``drip_closing`` — 200 with ``Connection: close`` and no length (the body ends when the
  connection does, as in HTTP/1.0), an SSE or JSON body dripping for ever.
"""

from __future__ import annotations

import json
import socket
import socketserver
import threading
from collections.abc import Callable
from types import TracebackType
from typing import Any

SSE_HEAD = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
)


def _chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


def _event(kind: str, data: dict[str, Any]) -> bytes:
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode()


class MisbehavingServer:
    """Serves until closed; ``requests`` counts what arrived per behaviour and path."""

    def __init__(self, *, drip_s: float = 0.5, huge_bytes: int = 8 * 1024 * 1024) -> None:
        self.drip_s = drip_s
        self.huge_bytes = huge_bytes
        self.requests: list[tuple[str, str]] = []
        self.stopping = threading.Event()
        owner = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                owner._serve(self.request)

        class Server(socketserver.ThreadingTCPServer):
            daemon_threads = True
            allow_reuse_address = True

        self._server = Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> MisbehavingServer:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()

    # ------------------------------------------------------------------ one connection

    def _serve(self, sock: socket.socket) -> None:
        reader = sock.makefile("rb")
        try:
            while not self.stopping.is_set():
                request = self._read_request(reader)
                if request is None:
                    return
                behaviour, path = request
                self.requests.append((behaviour, path))
                if not self._respond(sock, behaviour, path):
                    return
        except OSError:  # the client went away: the point of most behaviours
            return
        finally:
            reader.close()

    @staticmethod
    def _read_request(reader: Any) -> tuple[str, str] | None:
        line = reader.readline()
        if not line:
            return None
        target = line.split()[1].decode()
        length = 0
        while (header := reader.readline()) not in (b"\r\n", b"\n", b""):
            name, _, value = header.decode().partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        body = reader.read(length)
        behaviour, _, rest = target.lstrip("/").partition("/")
        if behaviour == "by_question" and rest != "auth/login":
            behaviour = str(json.loads(body).get("question", "")).partition(":")[0]
        return behaviour, "/" + rest

    def _respond(self, sock: socket.socket, behaviour: str, path: str) -> bool:
        """Answer one request; False when the connection must close afterwards."""
        if path == "/auth/login":
            if behaviour == "drip_login":
                sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
                sock.sendall(b"Transfer-Encoding: chunked\r\n\r\n")
                self._drip(sock, lambda: _chunk(b" "))
                return False
            body = json.dumps({"access_token": f"jwt-{behaviour}", "token_type": "bearer"})
            sock.sendall(self._fixed(200, "application/json", body.encode()))
            return True
        handler: Callable[[socket.socket, str], bool] = getattr(self, f"_{behaviour}", self._ok)
        return handler(sock, path)

    @staticmethod
    def _fixed(status: int, content_type: str, body: bytes) -> bytes:
        head = f"HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\n"
        return (head + f"Content-Length: {len(body)}\r\n\r\n").encode() + body

    def _drip(self, sock: socket.socket, piece: Callable[[], bytes]) -> None:
        while not self.stopping.wait(self.drip_s):
            sock.sendall(piece())

    def _ok(self, sock: socket.socket, path: str) -> bool:
        if path == "/json":
            sock.sendall(self._fixed(200, "application/json", b'{"answer": "All good."}'))
            return True
        sock.sendall(SSE_HEAD)
        for event in (_event("chunk", {"text": "All good."}), _event("done", {})):
            sock.sendall(_chunk(event))
        sock.sendall(b"0\r\n\r\n")
        return True

    def _endless_stream(self, sock: socket.socket, path: str) -> bool:
        sock.sendall(SSE_HEAD)
        while not self.stopping.wait(0.05):
            sock.sendall(_chunk(_event("chunk", {"text": "and more "})))
        return False

    def _drip_stream(self, sock: socket.socket, path: str) -> bool:
        sock.sendall(SSE_HEAD)
        self._drip(sock, lambda: _chunk(b":"))  # an SSE comment, one byte a time
        return False

    def _huge_answer(self, sock: socket.socket, path: str) -> bool:
        piece = "x" * 65536
        if path == "/json":
            body = json.dumps({"answer": "x" * self.huge_bytes}).encode()
            sock.sendall(self._fixed(200, "application/json", body))
            return True
        sock.sendall(SSE_HEAD)
        for _ in range(self.huge_bytes // len(piece) + 1):
            sock.sendall(_chunk(_event("chunk", {"text": piece})))
        sock.sendall(_chunk(_event("done", {})) + b"0\r\n\r\n")
        return True

    def _endless_400(self, sock: socket.socket, path: str) -> bool:
        sock.sendall(b"HTTP/1.1 400 Bad Request\r\nTransfer-Encoding: chunked\r\n\r\n")
        while not self.stopping.is_set():
            sock.sendall(_chunk(b"bad request " * 1000))
        return False

    def _drip_400(self, sock: socket.socket, path: str) -> bool:
        sock.sendall(b"HTTP/1.1 400 Bad Request\r\nTransfer-Encoding: chunked\r\n\r\n")
        self._drip(sock, lambda: _chunk(b"x"))
        return False

    def _drip_headers(self, sock: socket.socket, path: str) -> bool:
        head = iter(b"HTTP/1.1 200 OK\r\n" + b"X-Slow: " + b"z" * 100_000)
        self._drip(sock, lambda: bytes([next(head)]))
        return False

    def _endless_json(self, sock: socket.socket, path: str) -> bool:
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
        sock.sendall(b"Transfer-Encoding: chunked\r\n\r\n" + _chunk(b'{"answer": "'))
        while not self.stopping.wait(0.05):
            sock.sendall(_chunk(b"more " * 20))
        return False

    def _drip_closing(self, sock: socket.socket, path: str) -> bool:
        kind = b"application/json" if path == "/json" else b"text/event-stream"
        sock.sendall(b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: " + kind + b"\r\n\r\n")
        self._drip(sock, lambda: b" " if path == "/json" else b":")
        return False

    def _drip_json(self, sock: socket.socket, path: str) -> bool:
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
        sock.sendall(b"Transfer-Encoding: chunked\r\n\r\n")
        self._drip(sock, lambda: _chunk(b" "))
        return False
