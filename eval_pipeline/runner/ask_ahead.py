"""An evaluation's first questions, asked while Dagster sets up the runs that record them.

Opening the Dagster instance and creating the first wave's runs takes most of a second, during
which the chatbot would sit idle. ``evaluate`` asks the first questions at once instead; the
chatbot step of the wave holding each finds its answer here by (run, case, input fingerprint) and
records it as its own call, with the table versions read before the question was asked, so
staleness stays conservative. An answer no step takes (its wave failed) is dropped with a
warning: the call was made but nothing recorded it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from eval_pipeline.core.lineage.reuse import reusable
from eval_pipeline.core.models import ChatPayload, GoldenCase

log = logging.getLogger(__name__)

Key = tuple[str, str, str]  # run key, case id, fingerprint of the chatbot step's inputs


@dataclass(frozen=True)
class AnswerAhead:
    reply: Future[ChatPayload]
    table_versions: Mapping[str, str]  # read before the question was asked


def first_questions(
    run_key: str,
    cases: Mapping[str, GoldenCase],
    fingerprint: Callable[[dict[str, Any]], str],
    stored: Mapping[str, str],
    *,
    count: int,
    refresh: bool,
) -> dict[Key, GoldenCase]:
    """The first ``count`` cases, in the given order, whose answer the chatbot step will ask for
    rather than reuse (``reusable``, as ``reuse_or_compute`` decides), so no question is asked
    twice; ``stored`` is the input fingerprint of each stored answer."""
    questions: dict[Key, GoldenCase] = {}
    for case_id, case in cases.items():
        if len(questions) >= count:
            break
        fp = fingerprint(case.model_dump(mode="json"))
        if not reusable(fp, stored.get(case_id), refresh=refresh):
            questions[(run_key, case_id, fp)] = case
    return questions


class AnswersAhead:
    """Answers asked ahead, each taken at most once."""

    def __init__(self) -> None:
        self._answers: dict[Key, AnswerAhead] = {}
        self._lock = threading.Lock()

    def take(self, key: Key) -> AnswerAhead | None:
        with self._lock:
            return self._answers.pop(key, None)

    @contextmanager
    def asking(
        self,
        questions: Mapping[Key, GoldenCase],
        ask: Callable[[GoldenCase], ChatPayload],
        table_versions: Callable[[], Mapping[str, str]],
    ) -> Iterator[int]:
        """Ask every question now, concurrently, yielding their number; on exit, wait for the
        calls still in flight and drop the answers no step took."""
        if not questions:
            yield 0
            return
        versions = dict(table_versions())
        pool = ThreadPoolExecutor(len(questions), thread_name_prefix="ask-ahead")
        with self._lock:
            for key, case in questions.items():
                self._answers[key] = AnswerAhead(pool.submit(ask, case), versions)
        try:
            yield len(questions)
        finally:
            with self._lock:
                untaken = [key[1] for key in questions if self._answers.pop(key, None)]
            pool.shutdown(wait=True)
            if untaken:
                log.warning(
                    "%d answer(s) asked ahead were never recorded (cases %s)",
                    len(untaken),
                    ", ".join(untaken[:5]),
                )


ANSWERS_AHEAD = AnswersAhead()  # process-wide: ``evaluate`` fills it, the chatbot step takes
