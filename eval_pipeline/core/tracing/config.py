"""Where traces go and how long an evaluation may wait for them: plain settings, importable
without OpenTelemetry."""

from __future__ import annotations

from urllib.parse import unquote, urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr

TRACES_PATH = "/v1/traces"


def parse_headers(text: str) -> dict[str, str]:
    """``name=value`` pairs separated by commas (values percent-decoded), the form of
    ``OTEL_EXPORTER_OTLP_HEADERS``. The error never quotes the text: it holds credentials."""
    headers: dict[str, str] = {}
    for i, pair in enumerate(p for p in text.split(",") if p.strip()):
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"pair {i + 1} is not name=value (pairs are separated by commas)")
        headers[unquote(name.strip())] = unquote(value.strip())
    return headers


def traces_url(endpoint: str) -> str:
    """The OTLP/HTTP traces URL of an endpoint given as a base URL (``http://host:4318``,
    ``https://cloud.langfuse.com/api/public/otel``) or already ending in ``/v1/traces``."""
    base = endpoint.rstrip("/")
    return base if base.endswith(TRACES_PATH) else base + TRACES_PATH


def shown_url(url: str) -> str:
    """The URL without user info, query or fragment: what messages may name."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


class TraceSettings(BaseModel):
    """OpenTelemetry export of an evaluation's traces (``EVAL_OTEL_*``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    endpoint: str = Field(description="OTLP/HTTP base URL or traces URL.")
    headers: SecretStr = Field(
        default=SecretStr(""), description="name=value,… sent with each export."
    )
    service_name: str = "eval_pipeline"
    flush_timeout_s: float = Field(default=5.0, gt=0)
    export_timeout_s: float = Field(default=10.0, gt=0)

    @property
    def url(self) -> str:
        return traces_url(self.endpoint)

    def header_map(self) -> dict[str, str]:
        return parse_headers(self.headers.get_secret_value())
