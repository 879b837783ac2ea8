"""The first round of questions asked ahead of Dagster, and the order waves are launched in."""

from __future__ import annotations

import logging
import threading

import pytest

from eval_pipeline.core.hashing import content_hash
from eval_pipeline.core.lineage.reuse import reuse_or_compute
from eval_pipeline.core.models import ChatPayload, GoldenCase
from eval_pipeline.runner.ask_ahead import AnswersAhead, first_questions
from eval_pipeline.runner.evaluate import launch_order

CASES = {c: GoldenCase(id=c, question=f"How many for {c}?") for c in ("A", "B", "C", "D")}


def fingerprint(record: dict[str, object]) -> str:
    return content_hash(["chatbot-v1", record])


def reply(case: GoldenCase) -> ChatPayload:
    return ChatPayload(case_id=case.id, question=case.question, answer=f"answer to {case.id}")


@pytest.mark.parametrize("refresh", [False, True])
def test_first_questions_are_exactly_the_first_the_step_would_ask(refresh: bool) -> None:
    """Whatever ``reuse_or_compute`` would not reuse, in order, up to the count."""
    stored = {"A": fingerprint(CASES["A"].model_dump(mode="json")), "C": "an older fingerprint"}
    questions = first_questions("r1", CASES, fingerprint, stored, count=2, refresh=refresh)

    fingerprints = {c: fingerprint(case.model_dump(mode="json")) for c, case in CASES.items()}
    previous = {c: (fp, {}) for c, fp in stored.items()}
    asked: list[str] = []
    reuse_or_compute(fingerprints, previous, lambda keys: asked.extend(keys) or {}, refresh=refresh)
    assert [c for _, c, _ in questions] == asked[:2]
    assert [c for _, c, _ in questions] == (["A", "B"] if refresh else ["B", "C"])
    assert all(run == "r1" and fp == fingerprints[c] for run, c, fp in questions)
    assert first_questions("r1", CASES, fingerprint, stored, count=0, refresh=refresh) == {}


def test_an_answer_asked_ahead_is_taken_once_with_the_versions_read_before_asking() -> None:
    ahead = AnswersAhead()
    events: list[str] = []
    questions = {("r1", c, "fp"): CASES[c] for c in ("A", "B")}

    def ask(case: GoldenCase) -> ChatPayload:
        events.append(f"asked {case.id}")
        return reply(case)

    def versions() -> dict[str, str]:
        events.append("versions read")
        return {"orders": "v1"}

    with ahead.asking(questions, ask, versions) as count:
        assert count == 2
        taken = ahead.take(("r1", "A", "fp"))
        assert taken is not None
        assert taken.reply.result().answer == "answer to A"
        assert taken.table_versions == {"orders": "v1"}
        assert ahead.take(("r1", "A", "fp")) is None, "taken at most once"
        assert ahead.take(("r1", "A", "another fingerprint")) is None
        assert ahead.take(("r2", "B", "fp")) is None
        assert ahead.take(("r1", "B", "fp")) is not None
    assert events[0] == "versions read" and sorted(events[1:]) == ["asked A", "asked B"]


def test_answers_no_step_took_are_waited_for_dropped_and_reported(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ahead = AnswersAhead()
    release = threading.Event()
    finished: list[str] = []

    def slow_ask(case: GoldenCase) -> ChatPayload:
        release.wait(5)
        finished.append(case.id)
        return reply(case)

    questions = {("r1", c, "fp"): CASES[c] for c in ("A", "B", "C")}
    with (
        caplog.at_level(logging.WARNING, logger="eval_pipeline.runner.ask_ahead"),
        ahead.asking(questions, slow_ask, dict),
    ):
        assert ahead.take(("r1", "B", "fp")) is not None
        threading.Timer(0.05, release.set).start()
    assert sorted(finished) == ["A", "B", "C"], "no call is left running on exit"
    assert ahead.take(("r1", "A", "fp")) is None, "dropped on exit"
    (warning,) = caplog.records
    assert "2 answer(s) asked ahead were never recorded (cases A, C)" in warning.getMessage()


def test_nothing_to_ask_starts_nothing() -> None:
    ahead = AnswersAhead()
    before = threading.active_count()
    with ahead.asking({}, reply, dict) as count:
        assert count == 0
        assert threading.active_count() == before


def test_waves_answered_ahead_are_launched_after_the_first_that_still_asks() -> None:
    waves = [["A", "B"], ["C", "D", "E"], ["F"]]
    assert launch_order(waves, 0) == [(["A", "B"], 2), (["C", "D", "E"], 3), (["F"], 1)]
    assert launch_order(waves, 2) == [(["C", "D", "E"], 3), (["A", "B"], 0), (["F"], 1)]
    assert launch_order(waves, 4) == [(["C", "D", "E"], 1), (["A", "B"], 0), (["F"], 1)]
    assert launch_order(waves, 5) == [(["F"], 1), (["A", "B"], 0), (["C", "D", "E"], 0)]
    # the first wave still asks some: it goes first
    assert launch_order(waves, 1) == [(["A", "B"], 1), (["C", "D", "E"], 3), (["F"], 1)]
    # nothing left to ask: the order stays
    assert launch_order(waves, 6) == [(["A", "B"], 0), (["C", "D", "E"], 0), (["F"], 0)]
    assert launch_order([], 2) == []
