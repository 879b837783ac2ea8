"""Sending spans over OTLP/HTTP (protobuf) with the OpenTelemetry SDK: ``ExportPipeline``.

It takes the ``SpanRecord``s a ``RecordingTracer`` hands over, in the evaluating process or in
the export process (``export_process``). A ``BatchSpanProcessor`` thread encodes and sends them in
batches. An export that fails (server down, slow, 4xx) is counted, never raised, and never waited
for. ``flush`` is the one wait, bounded by its deadline: the SDK's own flush ignores its timeout,
so it runs in a helper thread that is abandoned when the time is up, and the pipeline stops then,
so nothing is sent afterwards. Nothing is installed process-wide, nothing registers with
``atexit``.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from typing import Any

import requests
from opentelemetry import trace as trace_api
from opentelemetry.attributes import BoundedAttributes
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import SpanContext, Status, StatusCode, TraceFlags

from eval_pipeline.core.tracing.config import TraceSettings, shown_url
from eval_pipeline.core.tracing.recorder import MAX_ATTRIBUTE_CHARS, Flushed, SpanRecord, time_left

SCOPE = InstrumentationScope("eval_pipeline")
MAX_SPAN_ATTRIBUTES = 1024  # a judge span lists every message of its prompt
QUEUE_SIZE = 32_768  # spans waiting to be sent; beyond it they are dropped (and counted)
BATCH_SIZE = 512
SCHEDULE_DELAY_MS = 1000
SAMPLED = TraceFlags(TraceFlags.SAMPLED)
QUEUE_FULL = "dropped before sending (the export queue was full)"
_ERRNO = re.compile(r"\[Errno -?\d+\] ([^\"')\]]+)")


class _RecordingSession(requests.Session):
    """The exporter's HTTP session, remembering why its last request failed (the SDK's exporter
    only logs it)."""

    def __init__(self, secrets: Sequence[str]) -> None:
        super().__init__()
        self.problem = ""
        self._secrets = secrets

    def request(self, method: str, url: str, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        timeout = kwargs.get("timeout")
        try:
            response = super().request(method, url, *args, **kwargs)
        except requests.Timeout:
            self.problem = f"no answer within {timeout or 0:.1f} s"
            raise
        except requests.RequestException as exc:
            found = _ERRNO.search(str(exc))
            self.problem = f"{type(exc).__name__}: {found.group(1) if found else 'no connection'}"
            raise
        self.problem = ""
        if response.status_code >= 400:
            body = " ".join(response.text.split())[:160]
            for secret in self._secrets:  # an endpoint may echo the credentials it refused
                body = body.replace(secret, "[redacted:otel_headers]")
            detail = f": {body}" if body else ""
            self.problem = f"HTTP {response.status_code} {response.reason}{detail}"
        return response


class _Sent:
    """Spans the endpoint accepted per trace since the last take, and why the last export failed."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._exported: dict[int, int] = {}
        self._reason = ""

    def exported(self, spans: Sequence[ReadableSpan]) -> None:
        with self._lock:
            for span in spans:
                trace_id = span.context.trace_id
                self._exported[trace_id] = self._exported.get(trace_id, 0) + 1

    def failed(self, reason: str) -> None:
        with self._lock:
            self._reason = reason

    def take(self, fallback: str) -> Flushed:
        with self._lock:
            exported, self._exported = self._exported, {}
            reason, self._reason = self._reason, ""
        return Flushed(exported, reason or fallback)


class _CountingExporter(SpanExporter):
    """The OTLP exporter, counting what it sent; once stopped it sends nothing."""

    def __init__(
        self, inner: OTLPSpanExporter, session: _RecordingSession, sent: _Sent, url: str
    ) -> None:
        self._inner = inner
        self._session = session
        self._sent = sent
        self._url = url
        self._lock = threading.Lock()
        self.stopped = False

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        if self.stopped:
            return SpanExportResult.FAILURE
        self._session.problem = ""
        result = self._inner.export(spans)
        if result is SpanExportResult.SUCCESS:
            self._sent.exported(spans)
        else:
            self._sent.failed(f"{self._session.problem or 'export failed'} ({self._url})")
        return result

    def shutdown(self) -> None:
        """Stop: abort the retries of an export in flight and close the connections."""
        with self._lock:
            if self.stopped:
                return
            self.stopped = True
        self._inner.shutdown()


class ExportPipeline:
    """Span records to one OTLP/HTTP endpoint, in batches (an ``Exporter``; see the module
    docstring)."""

    def __init__(self, settings: TraceSettings) -> None:
        self.settings = settings
        self.url = shown_url(settings.url)
        headers = settings.header_map()
        self._session = _RecordingSession([v for v in headers.values() if len(v) >= 6])
        self._sent = _Sent()
        inner = OTLPSpanExporter(
            endpoint=settings.url,
            headers=headers,
            timeout=settings.export_timeout_s,
            session=self._session,
        )
        self._exporter = _CountingExporter(inner, self._session, self._sent, self.url)
        self._batches = BatchSpanProcessor(
            self._exporter,
            max_queue_size=QUEUE_SIZE,
            schedule_delay_millis=SCHEDULE_DELAY_MS,
            max_export_batch_size=BATCH_SIZE,
        )
        name = settings.service_name
        self._resource = Resource.create({"service.name": name, "openinference.project.name": name})
        self._lock = threading.Lock()
        self._stopped = False
        self._stop_reason = ""

    def _readable(self, record: SpanRecord) -> ReadableSpan:
        context = SpanContext(record.trace_id, record.span_id, is_remote=False, trace_flags=SAMPLED)
        parent = (
            SpanContext(record.trace_id, record.parent_id, is_remote=True, trace_flags=SAMPLED)
            if record.parent_id
            else None
        )
        status = (
            Status(StatusCode.ERROR, record.error)
            if record.error is not None
            else Status(StatusCode.UNSET)
        )
        return ReadableSpan(
            name=record.name,
            context=context,
            parent=parent,
            resource=self._resource,
            attributes=BoundedAttributes(
                MAX_SPAN_ATTRIBUTES, record.attributes, max_value_len=MAX_ATTRIBUTE_CHARS
            ),
            kind=trace_api.SpanKind.INTERNAL,
            status=status,
            start_time=record.start_ns,
            end_time=record.end_ns,
            instrumentation_scope=SCOPE,
        )

    def put(self, record: SpanRecord) -> None:
        if not self._stopped:
            self._batches.on_end(self._readable(record))

    def put_all(self, records: Sequence[SpanRecord]) -> None:
        for record in records:
            self.put(record)

    def _stop(self, reason: str, deadline: float) -> None:
        """Send nothing more (spans given from now on are lost) and end the batch thread,
        waiting for it until ``deadline`` at most (an export in flight ends by its own timeout)."""
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
            self._stop_reason = reason
        self._exporter.shutdown()
        ending = threading.Thread(target=self._batches.shutdown, name="otel-stop", daemon=True)
        ending.start()
        ending.join(time_left(deadline))

    def flush(self, deadline: float) -> Flushed:
        if not self._stopped:
            done = threading.Event()

            def send_all() -> None:
                self._batches.force_flush()
                done.set()

            threading.Thread(target=send_all, name="otel-flush", daemon=True).start()
            if not done.wait(time_left(deadline)):
                reason = f"not sent within the {self.settings.flush_timeout_s:g} s flush timeout"
                if self._session.problem:  # an export still retrying
                    reason += f"; last attempt: {self._session.problem} ({self.url})"
                self._stop(reason, deadline)
        return self._sent.take(self._stop_reason or QUEUE_FULL)

    def close(self, deadline: float) -> Flushed:
        flushed = self.flush(deadline)
        self._stop("the tracer was closed", deadline)
        return flushed
