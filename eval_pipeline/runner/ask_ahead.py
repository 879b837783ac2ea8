"""The chatbot as the runner installs it for in-process waves: asking ahead, in turn, one limit.

Opening the Dagster instance and creating the first wave's runs takes most of a second, during
which the chatbot would sit idle. ``evaluate`` asks the first questions at once instead; the
chatbot step of the wave holding each is handed its answer (``WaveChatbot``) and records it as
its own call, with the table versions read before the question was asked, so staleness stays
conservative. An answer no step takes (its wave failed) is dropped with a warning: the call was
made but nothing recorded it.

Waves of one evaluation overlap, so every wave's chatbot shares one ``CallLimit``: the bot's
concurrency holds across all of them, and the earliest wave is served first.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from eval_pipeline.core.adapters.base import ChatbotAdapter
from eval_pipeline.core.lineage.reuse import reusable
from eval_pipeline.core.models import ChatPayload, GoldenCase
from eval_pipeline.runner.call_limit import CallLimit

log = logging.getLogger(__name__)

Question = tuple[str, str, str]  # case id, question, context: what a chatbot step asks


def question_of(case: GoldenCase) -> Question:
    return (case.id, case.question, case.context)


@dataclass(frozen=True)
class AnswerAhead:
    reply: Future[ChatPayload]
    table_versions: Mapping[str, str]  # read before the question was asked


def first_questions(
    cases: Mapping[str, GoldenCase],
    fingerprint: Callable[[dict[str, Any]], str],
    stored: Mapping[str, str],
    *,
    count: int,
    refresh: bool,
) -> list[GoldenCase]:
    """The first ``count`` cases, in the given order, whose answer the chatbot step will ask for
    rather than reuse (``reusable``, as ``reuse_or_compute`` decides), so no question is asked
    twice; ``stored`` is the input fingerprint of each stored answer."""
    questions: list[GoldenCase] = []
    for case_id, case in cases.items():
        if len(questions) >= count:
            break
        if not reusable(
            fingerprint(case.model_dump(mode="json")), stored.get(case_id), refresh=refresh
        ):
            questions.append(case)
    return questions


class AnswersAhead:
    """Answers asked ahead for one evaluation, each taken at most once."""

    def __init__(self) -> None:
        self._answers: dict[Question, AnswerAhead] = {}
        self._lock = threading.Lock()

    def take(self, question: Question) -> AnswerAhead | None:
        with self._lock:
            return self._answers.pop(question, None)

    @contextmanager
    def asking(
        self,
        cases: list[GoldenCase],
        chatbot: ChatbotAdapter,
        table_versions: Callable[[], Mapping[str, str]],
    ) -> Iterator[int]:
        """Ask every case's question now, concurrently, yielding their number; on exit, wait
        for the calls still in flight and drop the answers no step took."""
        if not cases:
            yield 0
            return
        versions = dict(table_versions())
        pool = ThreadPoolExecutor(len(cases), thread_name_prefix="ask-ahead")
        with self._lock:
            for case in cases:
                reply = pool.submit(chatbot.ask, *question_of(case))
                self._answers[question_of(case)] = AnswerAhead(reply, versions)
        try:
            yield len(cases)
        finally:
            with self._lock:
                untaken = [c.id for c in cases if self._answers.pop(question_of(c), None)]
            pool.shutdown(wait=True)
            if untaken:
                log.warning(
                    "%d answer(s) asked ahead were never recorded (cases %s)",
                    len(untaken),
                    ", ".join(untaken[:5]),
                )


class WaveChatbot:
    """The chatbot one wave's steps talk to: an answer asked ahead is handed over once, carrying
    the table versions read before it was asked; any other question waits for a slot under the
    evaluation's shared ``limit``, waves with a lower ``priority`` first. The runner closes the
    adapter underneath, not the steps."""

    def __init__(
        self,
        adapter: ChatbotAdapter,
        limit: CallLimit,
        priority: float,
        answers: AnswersAhead | None = None,
    ) -> None:
        self._adapter = adapter
        self._limit = limit
        self._priority = priority
        self._answers = answers

    def ask(self, case_id: str, question: str, context: str = "") -> ChatPayload:
        early = self._answers.take((case_id, question, context)) if self._answers else None
        if early is not None:
            payload = early.reply.result()
            return payload.model_copy(update={"data_fingerprints": dict(early.table_versions)})
        with self._limit.slot(self._priority):
            return self._adapter.ask(case_id, question, context)

    def close(self) -> None:
        """The steps' end is not the adapter's: the runner closes it after the evaluation."""
