"""The tracer that sends spans over OTLP/HTTP (protobuf) with the OpenTelemetry SDK.

Off the critical path: a step only builds a span's attributes; a ``BatchSpanProcessor`` thread
encodes and sends them in batches. An export that fails (server down, slow, 4xx) is counted, never
raised, and never waited for during the evaluation. ``flush`` is the one wait, bounded by the
flush timeout: the SDK's own flush ignores its timeout, so it runs in a helper thread that is
abandoned when the time is up, and the processor is stopped then, so nothing is sent afterwards.

What happened to the spans is counted per trace (spans handed over, spans the endpoint accepted)
and reported per run key, with one line saying why any failed (``ExportCounts``). The provider
is this tracer's own: nothing is installed process-wide, nothing registers with ``atexit``.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import requests
from opentelemetry import trace as trace_api
from opentelemetry.attributes import BoundedAttributes
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanLimits, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import NonRecordingSpan, SpanContext, Status, StatusCode, TraceFlags

from eval_pipeline.core.tracing.attributes import CASE_ID, RUN_KEY, SPAN_KIND, case_identity
from eval_pipeline.core.tracing.config import TraceSettings, shown_url
from eval_pipeline.core.tracing.spans import (
    NO_SPAN,
    ExportCounts,
    Lazy,
    Span,
    SpanKind,
    Tracer,
    case_trace_ids,
)

log = logging.getLogger(__name__)

SCOPE = InstrumentationScope("eval_pipeline")
MAX_ATTRIBUTE_CHARS = 16_384  # per value: an answer may be megabytes
MAX_SPAN_ATTRIBUTES = 1024  # a judge span lists every message of its prompt
QUEUE_SIZE = 32_768  # spans waiting to be sent; beyond it they are dropped (and counted)
BATCH_SIZE = 512
SCHEDULE_DELAY_MS = 1000
SAMPLED = TraceFlags(TraceFlags.SAMPLED)
_ERRNO = re.compile(r"\[Errno -?\d+\] ([^\"')\]]+)")


def _ns(seconds: float | None) -> int | None:
    return None if seconds is None else int(seconds * 1e9)


class _RecordingSession(requests.Session):
    """The exporter's HTTP session, remembering why its last request failed (the SDK's exporter
    only logs it)."""

    def __init__(self, redact: Callable[[str], str]) -> None:
        super().__init__()
        self.problem = ""
        self._redact = redact

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
            detail = f": {self._redact(body)}" if body else ""
            self.problem = f"HTTP {response.status_code} {response.reason}{detail}"
        return response


class _Counts:
    """Spans handed to the processor and spans the endpoint accepted, per trace."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._traces: dict[int, list[Any]] = {}  # trace id → [run key, case id, ended, exported]
        self._reason = ""

    def ended(self, span: ReadableSpan) -> None:
        attributes = span.attributes or {}
        with self._lock:
            entry = self._traces.get(span.context.trace_id)
            if entry is None:
                entry = [str(attributes.get(RUN_KEY, "")), str(attributes.get(CASE_ID, "")), 0, 0]
                self._traces[span.context.trace_id] = entry
            entry[2] += 1

    def exported(self, spans: Sequence[ReadableSpan]) -> None:
        with self._lock:
            for span in spans:
                entry = self._traces.get(span.context.trace_id)
                if entry is not None and entry[3] < entry[2]:
                    entry[3] += 1

    def failed(self, reason: str) -> None:
        with self._lock:
            self._reason = reason

    def take(self, fallback: str) -> dict[str, ExportCounts]:
        """The counts since the last take, per run key; the reason of the last failed export
        (else ``fallback``) where some span was not accepted."""
        with self._lock:
            traces, self._traces = self._traces, {}
            reason, self._reason = self._reason, ""
        out: dict[str, ExportCounts] = {}
        for run_key, case_id, ended, exported in traces.values():
            lost = exported < ended
            counts = ExportCounts(
                spans=ended,
                exported=exported,
                failed_cases=frozenset([case_id]) if lost else frozenset(),
                reason=(reason or fallback) if lost else "",
            )
            out[run_key] = out.get(run_key, ExportCounts()) + counts
        return out


class _CountingExporter(SpanExporter):
    """The OTLP exporter, counting what it sent; once stopped it sends nothing."""

    def __init__(
        self, inner: OTLPSpanExporter, session: _RecordingSession, counts: _Counts, url: str
    ) -> None:
        self._inner = inner
        self._session = session
        self._counts = counts
        self._url = url
        self._lock = threading.Lock()
        self.stopped = False

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        if self.stopped:
            return SpanExportResult.FAILURE
        self._session.problem = ""
        result = self._inner.export(spans)
        if result is SpanExportResult.SUCCESS:
            self._counts.exported(spans)
        else:
            self._counts.failed(f"{self._session.problem or 'export failed'} ({self._url})")
        return result

    def shutdown(self) -> None:
        """Stop: abort the retries of an export in flight and close the connections."""
        with self._lock:
            if self.stopped:
                return
            self.stopped = True
        self._inner.shutdown()


class _CountingProcessor(SpanProcessor):
    """Counts every ended span, then hands it to the batch processor unless stopped."""

    def __init__(self, inner: BatchSpanProcessor, counts: _Counts) -> None:
        self._inner = inner
        self._counts = counts
        self.stopped = False

    def on_end(self, span: ReadableSpan) -> None:
        self._counts.ended(span)
        if not self.stopped:
            self._inner.on_end(span)


def _guarded(default: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Tracing never fails an evaluation: an error in building or handing over a span is
    logged once per kind and the span is lost (and counted when it was already handed over)."""

    def wrap(method: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(method)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            try:
                return method(*args, **kwargs)
            except Exception as exc:
                log.warning("tracing: %s failed: %s: %s", method.__name__, type(exc).__name__, exc)
                return default

        return guarded

    return wrap


class _OTelSpan(Span):
    recording = True

    def __init__(
        self, tracer: OTelTracer, span: trace_api.Span, run_key: str, case_id: str
    ) -> None:
        self._tracer = tracer
        self._span = span
        self._run_key = run_key
        self._case_id = case_id

    @_guarded(None)
    def set(self, attributes: Lazy) -> None:
        self._span.set_attributes(self._tracer.clean(attributes))

    @_guarded(None)
    def fail(self, message: str) -> None:
        self._span.set_status(Status(StatusCode.ERROR, self._tracer.redact(message)[:500]))

    @_guarded(NO_SPAN)
    def child(self, name: str, kind: SpanKind, attributes: Lazy = None) -> Span:
        parent = trace_api.set_span_in_context(self._span)
        return self._tracer.start(name, kind, attributes, parent, self._run_key, self._case_id)

    @_guarded(None)
    def end(self, end_s: float | None = None) -> None:
        self._span.end(end_time=_ns(end_s))


class OTelTracer(Tracer):
    """Spans of every case to one OTLP/HTTP endpoint (see the module docstring)."""

    enabled = True

    def __init__(self, settings: TraceSettings, redact: Callable[[str], str] = str) -> None:
        self.settings = settings
        headers = settings.header_map()
        self._secrets = sorted((v for v in headers.values() if len(v) >= 6), key=len, reverse=True)
        self._redact = redact
        self.url = shown_url(settings.url)
        self._counts = _Counts()
        self._session = _RecordingSession(self.redact)
        exporter = OTLPSpanExporter(
            endpoint=settings.url,
            headers=headers,
            timeout=settings.export_timeout_s,
            session=self._session,
        )
        self._exporter = _CountingExporter(exporter, self._session, self._counts, self.url)
        self._batches = BatchSpanProcessor(
            self._exporter,
            max_queue_size=QUEUE_SIZE,
            schedule_delay_millis=SCHEDULE_DELAY_MS,
            max_export_batch_size=BATCH_SIZE,
        )
        self._processor = _CountingProcessor(self._batches, self._counts)
        name = settings.service_name
        self._resource = Resource.create({"service.name": name, "openinference.project.name": name})
        provider = TracerProvider(
            resource=self._resource,
            span_limits=SpanLimits(
                max_span_attributes=MAX_SPAN_ATTRIBUTES,
                max_span_attribute_length=MAX_ATTRIBUTE_CHARS,
            ),
            shutdown_on_exit=False,
        )
        provider.add_span_processor(self._processor)
        self._tracer = provider.get_tracer(SCOPE.name)
        self._lock = threading.Lock()
        self._stop_reason = ""

    # ------------------------------------------------------------------ building spans

    def redact(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "[redacted:otel_headers]")
        return self._redact(text)

    def clean(self, attributes: Lazy) -> dict[str, Any]:
        """Attributes the SDK accepts: built if lazy, no ``None``, every text redacted (before
        the SDK cuts it to ``MAX_ATTRIBUTE_CHARS``)."""
        made = attributes() if callable(attributes) else attributes
        out: dict[str, Any] = {}
        for key, value in (made or {}).items():
            if value is None:
                continue
            if isinstance(value, str):
                out[key] = self.redact(value)
            elif isinstance(value, list | tuple):
                out[key] = [self.redact(v) if isinstance(v, str) else v for v in value]
            else:
                out[key] = value
        return out

    def start(
        self,
        name: str,
        kind: SpanKind,
        attributes: Lazy,
        parent: Any,
        run_key: str,
        case_id: str,
        start_s: float | None = None,
    ) -> Span:
        made = self._tracer.start_span(
            name,
            context=parent,
            attributes={**case_identity(run_key, case_id), SPAN_KIND: kind},
            start_time=_ns(start_s),
        )
        span = _OTelSpan(self, made, run_key, case_id)
        span.set(attributes)
        return span

    def _root_context(self, run_key: str, case_id: str, *, remote: bool) -> SpanContext:
        trace_id, root_id = case_trace_ids(self.settings.service_name, run_key, case_id)
        return SpanContext(trace_id, root_id, is_remote=remote, trace_flags=SAMPLED)

    @_guarded(NO_SPAN)
    def case_span(
        self,
        run_key: str,
        case_id: str,
        name: str,
        kind: SpanKind,
        attributes: Lazy = None,
        *,
        start_s: float | None = None,
    ) -> Span:
        root = NonRecordingSpan(self._root_context(run_key, case_id, remote=True))
        parent = trace_api.set_span_in_context(root)
        return self.start(name, kind, attributes, parent, run_key, case_id, start_s)

    @_guarded(None)
    def case_root(
        self, run_key: str, case_id: str, attributes: Lazy, *, start_s: float, end_s: float
    ) -> None:
        """A finished span with the id every step's span names as parent; the SDK makes spans
        with ids of its own only, so this one is built as the finished span it hands over."""
        values = {**case_identity(run_key, case_id), SPAN_KIND: "CHAIN", **self.clean(attributes)}
        self._processor.on_end(
            ReadableSpan(
                name=f"case {case_id}",
                context=self._root_context(run_key, case_id, remote=False),
                parent=None,
                resource=self._resource,
                attributes=BoundedAttributes(
                    MAX_SPAN_ATTRIBUTES, values, max_value_len=MAX_ATTRIBUTE_CHARS
                ),
                kind=trace_api.SpanKind.INTERNAL,
                status=Status(StatusCode.UNSET),
                start_time=_ns(start_s),
                end_time=_ns(end_s),
                instrumentation_scope=SCOPE,
            )
        )

    # ------------------------------------------------------------------ sending

    def _stop(self, reason: str, deadline: float) -> None:
        """Send nothing more (spans given from now on count as failed) and end the batch thread,
        waiting for it until ``deadline`` at most (an export in flight ends by its own timeout)."""
        with self._lock:
            if self._processor.stopped:
                return
            self._processor.stopped = True
            self._stop_reason = reason
        self._exporter.shutdown()
        ending = threading.Thread(target=self._batches.shutdown, name="otel-stop", daemon=True)
        ending.start()
        ending.join(max(0.0, deadline - time.monotonic()))

    def _flush(self, deadline: float) -> dict[str, ExportCounts]:
        if not self._processor.stopped:
            done = threading.Event()

            def send_all() -> None:
                self._batches.force_flush()
                done.set()

            threading.Thread(target=send_all, name="otel-flush", daemon=True).start()
            if not done.wait(max(0.0, deadline - time.monotonic())):
                reason = f"not sent within the {self.settings.flush_timeout_s:g} s flush timeout"
                if self._session.problem:  # an export still retrying
                    reason += f"; last attempt: {self._session.problem} ({self.url})"
                self._stop(reason, deadline)
        fallback = self._stop_reason or "dropped before sending (the export queue was full)"
        return self._counts.take(fallback)

    @_guarded({})
    def flush(self) -> dict[str, ExportCounts]:
        return self._flush(time.monotonic() + self.settings.flush_timeout_s)

    @_guarded({})
    def close(self) -> dict[str, ExportCounts]:
        deadline = time.monotonic() + self.settings.flush_timeout_s
        counts = self._flush(deadline)
        self._stop("the tracer was closed", deadline)
        return counts
