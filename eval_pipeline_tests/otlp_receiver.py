"""A loopback OTLP/HTTP trace receiver for export tests: it decodes what it is sent with the
OpenTelemetry protobuf definitions, or misbehaves on purpose (answers slowly, or with a 4xx).

``mode``: ``ok`` (200, spans kept), ``slow`` (holds each request ``delay_s``, then 200 without
keeping it), ``status`` (answers ``status`` with a short body). ``down_url()`` is a URL nothing
listens at. Phoenix is the real trace server of the end-to-end test; this one sees the bytes.
"""

from __future__ import annotations

import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest


def down_url() -> str:
    """A loopback URL with nothing listening: connections are refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def _value(any_value: Any) -> Any:
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [_value(v) for v in any_value.array_value.values]
    return getattr(any_value, kind) if kind else None


class OTLPReceiver:
    def __init__(self, mode: str = "ok", *, delay_s: float = 30.0, status: int = 401) -> None:
        self.mode = mode
        self.delay_s = delay_s
        self.status = status
        self.spans: list[dict[str, Any]] = []
        self.requests = 0
        self.headers: list[dict[str, str]] = []
        self.bodies: list[bytes] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                owner._post(self)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> OTLPReceiver:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()

    def _post(self, handler: BaseHTTPRequestHandler) -> None:
        body = handler.rfile.read(int(handler.headers.get("Content-Length", 0)))
        with self._lock:
            self.requests += 1
            self.headers.append({k.lower(): v for k, v in handler.headers.items()})
            self.bodies.append(body)
        if self.mode == "slow":
            self._stopping.wait(self.delay_s)
        if self.mode == "status":
            handler.send_response(self.status)
            handler.send_header("Content-Type", "text/plain")
            handler.end_headers()
            handler.wfile.write(b"invalid credentials")
            return
        if self.mode == "ok":
            self._keep(body)
        try:
            handler.send_response(200)
            handler.send_header("Content-Type", "application/x-protobuf")
            handler.send_header("Content-Length", "0")
            handler.end_headers()
        except OSError:
            pass  # the client gave up waiting

    def _keep(self, body: bytes) -> None:
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        for resource_spans in request.resource_spans:
            resource = {a.key: _value(a.value) for a in resource_spans.resource.attributes}
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    kept = {
                        "name": span.name,
                        "trace_id": span.trace_id.hex(),
                        "span_id": span.span_id.hex(),
                        "parent_id": span.parent_span_id.hex(),
                        "start_ns": span.start_time_unix_nano,
                        "end_ns": span.end_time_unix_nano,
                        "status": span.status.code,
                        "status_message": span.status.message,
                        "attributes": {a.key: _value(a.value) for a in span.attributes},
                        "resource": resource,
                    }
                    with self._lock:
                        self.spans.append(kept)

    def wait_for(self, count: int, timeout_s: float = 10.0) -> list[dict[str, Any]]:
        """The spans received, once at least ``count`` have arrived (or the time is up)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            with self._lock:
                if len(self.spans) >= count:
                    break
            time.sleep(0.02)
        with self._lock:
            return list(self.spans)
