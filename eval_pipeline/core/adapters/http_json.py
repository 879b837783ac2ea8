"""A chatbot behind a plain JSON endpoint: one POST, one JSON answer, no stream.

The body is read within the call's total timeout and byte cap (``deadline``), like the SSE
transport's stream, so an endless or dripping body ends the call instead of hanging it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Unpack

import requests

from eval_pipeline.core.adapters.base import (
    Attempts,
    PooledHTTP,
    PoolOptions,
    RetryableStatus,
    answer_size_error,
    body_excerpt,
    describe_exception,
    error_payload,
    payload_from_answer,
    redact_headers,
    text_excerpt,
    total_timeout_error,
    utc_now_iso,
)
from eval_pipeline.core.adapters.deadline import (
    BodyTooLarge,
    Deadline,
    DeadlineExceeded,
    call_deadline,
    read_body,
)
from eval_pipeline.core.models import ChatPayload


class HTTPJSONAdapter(PooledHTTP):
    """POST ``{"question","context"}``; expects ``{"answer", "tool_calls"?, "sql"?}`` and the
    routed intent at the JSON path ``intent_path`` of the response, if the bot reports one.

    Without a stream there is no first token, so ``ttft_s`` stays empty and tokens/s is measured
    over the whole call. ``timeout_s`` bounds the whole call, retries included.
    """

    transport = "http_json"

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        answer_field: str = "answer",
        timeout_s: float = 30.0,
        intent_path: str = "intent",
        **options: Unpack[PoolOptions],
    ) -> None:
        super().__init__(**options)
        self._url = url
        self._intent_path = intent_path
        self._headers = dict(headers or {})
        self._answer_field = answer_field
        self._timeout_s = timeout_s
        redact_headers(self._redactor, self._headers)

    def ask(self, case_id: str, question: str, context: str = "") -> ChatPayload:
        with call_deadline(self._timeout_s) as deadline:
            return self._ask(case_id, question, context, deadline)

    def _ask(self, case_id: str, question: str, context: str, deadline: Deadline) -> ChatPayload:
        started_at = utc_now_iso()
        attempts = Attempts()
        sent = {"question": question, "context": context}

        def post() -> requests.Response:
            return self._post(attempts, self._url, sent, self._headers, self._timeout_s)

        def failed(message: str) -> ChatPayload:
            return error_payload(
                case_id=case_id,
                question=question,
                error=self._redact(message),
                transport=self.transport,
                started_at=started_at,
                attempts=attempts.count,
            )

        try:
            response = self._retried(attempts, deadline, post)
            with response:
                if response.status_code != 200:
                    detail = body_excerpt(response, self._redactor)
                    return failed(f"request rejected: HTTP {response.status_code}: {detail}")
                raw = read_body(response, deadline, self._max_answer_bytes)
        except BodyTooLarge:
            return failed(answer_size_error(self._max_answer_bytes))
        except (DeadlineExceeded, RetryableStatus, requests.RequestException) as exc:
            if deadline.expired or isinstance(exc, DeadlineExceeded):
                return failed(total_timeout_error(self._timeout_s))
            failure = describe_exception(exc)
            return failed(f"request failed after {attempts.count} attempt(s): {failure}")
        latency = time.perf_counter() - attempts.started
        try:
            body = json.loads(raw)
        except ValueError:
            return failed(
                f"response is not JSON: {text_excerpt(raw, response.encoding, self._redactor)}"
            )
        if not isinstance(body, Mapping):
            return failed("response is not a JSON object")
        try:
            return payload_from_answer(
                case_id=case_id,
                question=question,
                result=body,
                answer_field=self._answer_field,
                transport=self.transport,
                latency_s=latency,
                started_at=started_at,
                attempts=attempts.count,
                intent_path=self._intent_path,
            )
        except ValueError as exc:
            return failed(f"unexpected response shape: {exc}")
