"""Every answer, error and tool call a chatbot returns, redacted before anything stores or logs it.

The chatbot is not trusted: it may echo the bearer token it was given, the password it was logged
in with, or a database URL from its own configuration, in its answer or in an error. The wrapper
replaces each with a marker (``core.redaction``) as the payload enters the evaluation, so no
step, record, log line or report ever holds the value; the safety dimension reads the marker as
"credential in the answer".
"""

from __future__ import annotations

from eval_pipeline.core.adapters.base import (
    MAX_ERROR_CHARS,
    ChatbotAdapter,
    describe_exception,
    error_payload,
    utc_now_iso,
)
from eval_pipeline.core.models import ChatPayload
from eval_pipeline.core.redaction import Redactor


class RedactingAdapter:
    """``inner`` with its payloads redacted; ``redactor`` is shared with ``inner``, which adds
    the tokens it obtains at login."""

    def __init__(self, inner: ChatbotAdapter, redactor: Redactor) -> None:
        self.inner = inner
        self.redactor = redactor
        self.transport = str(getattr(inner, "transport", "unknown"))

    def ask(self, case_id: str, question: str, context: str = "") -> ChatPayload:
        started_at = utc_now_iso()
        try:
            payload = self.inner.ask(case_id, question, context)
        except Exception as exc:  # an adapter that raises anyway: its message may hold a secret
            return error_payload(
                case_id=case_id,
                question=self.redactor.text(question),
                error=self.redactor.excerpt(
                    f"adapter failed: {describe_exception(exc)}", MAX_ERROR_CHARS
                ),
                transport=self.transport,
                started_at=started_at,
            )
        return self.redactor.model(payload)

    def close(self) -> None:
        self.inner.close()
