"""A chatbot behind a plain JSON endpoint: one POST, one JSON answer, no stream.

The body is read within the call's total timeout and byte cap (``deadline``), like the SSE
transport's stream, so an endless or dripping body ends the call instead of hanging it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping

import requests

from eval_pipeline.core.adapters.base import (
    MAX_ERROR_CHARS,
    RetryableStatus,
    answer_size_error,
    body_excerpt,
    describe_exception,
    error_payload,
    payload_from_answer,
    redact_headers,
    retry_policy,
    text_excerpt,
    total_timeout_error,
    utc_now_iso,
)
from eval_pipeline.core.adapters.deadline import (
    BodyTooLarge,
    Deadline,
    DeadlineExceeded,
    call_deadline,
    deadline_session,
    read_body,
)
from eval_pipeline.core.limits import MAX_ANSWER_BYTES
from eval_pipeline.core.models import ChatPayload
from eval_pipeline.core.redaction import Redactor


class HTTPJSONAdapter:
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
        retries: int = 2,
        backoff_s: float = 0.5,
        pool_size: int = 64,
        max_answer_bytes: int = MAX_ANSWER_BYTES,
        redactor: Redactor | None = None,
        intent_path: str = "intent",
    ) -> None:
        self._url = url
        self._intent_path = intent_path
        self._headers = dict(headers or {})
        self._answer_field = answer_field
        self._timeout_s = timeout_s
        self._retries = retries
        self._backoff_s = backoff_s
        self._max_answer_bytes = max_answer_bytes
        self._session = deadline_session(pool_size)
        self._redactor = redactor or Redactor()
        redact_headers(self._redactor, self._headers)

    def ask(self, case_id: str, question: str, context: str = "") -> ChatPayload:
        with call_deadline(self._timeout_s) as deadline:
            return self._ask(case_id, question, context, deadline)

    def _ask(self, case_id: str, question: str, context: str, deadline: Deadline) -> ChatPayload:
        started_at = utc_now_iso()
        attempts = 0
        started = time.perf_counter()

        def post() -> requests.Response:
            nonlocal attempts, started
            attempts += 1
            started = time.perf_counter()
            response = self._session.post(
                self._url,
                json={"question": question, "context": context},
                headers=self._headers,
                timeout=self._timeout_s,
                stream=True,
            )
            if response.status_code >= 500:
                response.close()
                raise RetryableStatus(response.status_code)
            return response

        def failed(message: str) -> ChatPayload:
            return error_payload(
                case_id=case_id,
                question=question,
                error=self._redactor.excerpt(message, MAX_ERROR_CHARS),
                transport=self.transport,
                started_at=started_at,
                attempts=attempts,
            )

        try:
            response = retry_policy(self._retries, self._backoff_s, deadline)(post)
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
            return failed(f"request failed after {attempts} attempt(s): {describe_exception(exc)}")
        latency = time.perf_counter() - started
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
                attempts=attempts,
                intent_path=self._intent_path,
            )
        except ValueError as exc:
            return failed(f"unexpected response shape: {exc}")

    def close(self) -> None:
        self._session.close()
