"""The first round of questions asked ahead of Dagster, the chatbot each wave's steps talk to,
and the order waves are launched in."""

from __future__ import annotations

import logging
import threading

import pytest

from eval_pipeline.core.hashing import content_hash
from eval_pipeline.core.lineage.reuse import reuse_or_compute
from eval_pipeline.core.models import ChatPayload, GoldenCase
from eval_pipeline.runner.ask_ahead import AnswersAhead, WaveChatbot, first_questions, question_of
from eval_pipeline.runner.call_limit import CallLimit
from eval_pipeline.runner.evaluate import launch_order

CASES = {c: GoldenCase(id=c, question=f"How many for {c}?") for c in ("A", "B", "C", "D")}


def fingerprint(record: dict[str, object]) -> str:
    return content_hash(["chatbot-v1", record])


def reply(case: GoldenCase) -> ChatPayload:
    return ChatPayload(case_id=case.id, question=case.question, answer=f"answer to {case.id}")


class Bot:
    """A chatbot adapter that answers at once, or when released, recording what it was asked."""

    def __init__(self, release: threading.Event | None = None) -> None:
        self.asked: list[str] = []
        self.release = release

    def ask(self, case_id: str, question: str, context: str = "") -> ChatPayload:
        if self.release is not None:
            self.release.wait(5)
        self.asked.append(case_id)
        return reply(CASES[case_id])

    def close(self) -> None:
        raise AssertionError("the runner closes the adapter, never a wave")


@pytest.mark.parametrize("refresh", [False, True])
def test_first_questions_are_exactly_the_first_the_step_would_ask(refresh: bool) -> None:
    """Whatever ``reuse_or_compute`` would not reuse, in order, up to the count."""
    stored = {"A": fingerprint(CASES["A"].model_dump(mode="json")), "C": "an older fingerprint"}
    questions = first_questions(CASES, fingerprint, stored, count=2, refresh=refresh)

    fingerprints = {c: fingerprint(case.model_dump(mode="json")) for c, case in CASES.items()}
    previous = {c: (fp, {}) for c, fp in stored.items()}
    asked: list[str] = []
    reuse_or_compute(fingerprints, previous, lambda keys: asked.extend(keys) or {}, refresh=refresh)
    assert [c.id for c in questions] == asked[:2]
    assert [c.id for c in questions] == (["A", "B"] if refresh else ["B", "C"])
    assert first_questions(CASES, fingerprint, stored, count=0, refresh=refresh) == []


def test_an_answer_asked_ahead_is_handed_over_once_with_the_versions_read_before_asking() -> None:
    ahead = AnswersAhead()
    bot = Bot()
    events: list[str] = []

    def versions() -> dict[str, str]:
        events.append(f"versions read after {len(bot.asked)} call(s)")
        return {"orders": "v1"}

    limit = CallLimit(4)
    with ahead.asking([CASES["A"], CASES["B"]], WaveChatbot(bot, limit, -1), versions) as count:
        assert count == 2
        wave = WaveChatbot(bot, limit, priority=0, answers=ahead)
        taken = wave.ask(*question_of(CASES["A"]))
        assert taken.answer == "answer to A"
        assert taken.data_fingerprints == {"orders": "v1"}
        again = wave.ask(*question_of(CASES["A"]))
        assert again.data_fingerprints == {}, "taken at most once: the second time it is asked"
        edited = GoldenCase(id="B", question="How many for B, edited?")
        assert ahead.take(question_of(edited)) is None, "an edited question is asked afresh"
        assert ahead.take(question_of(CASES["B"])) is not None
    assert events == ["versions read after 0 call(s)"]
    assert sorted(bot.asked) == ["A", "A", "B"]


def test_answers_no_step_took_are_waited_for_dropped_and_reported(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ahead = AnswersAhead()
    release = threading.Event()
    bot = Bot(release)
    questions = [CASES[c] for c in ("A", "B", "C")]
    with (
        caplog.at_level(logging.WARNING, logger="eval_pipeline.runner.ask_ahead"),
        ahead.asking(questions, WaveChatbot(bot, CallLimit(4), -1), dict),
    ):
        assert ahead.take(question_of(CASES["B"])) is not None
        threading.Timer(0.05, release.set).start()
    assert sorted(bot.asked) == ["A", "B", "C"], "no call is left running on exit"
    assert ahead.take(question_of(CASES["A"])) is None, "dropped on exit"
    (warning,) = caplog.records
    assert "2 answer(s) asked ahead were never recorded (cases A, C)" in warning.getMessage()


def test_nothing_to_ask_starts_nothing() -> None:
    ahead = AnswersAhead()
    before = threading.active_count()
    with ahead.asking([], Bot(), dict) as count:
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


def test_a_later_wave_waits_for_an_earlier_one_under_the_shared_limit() -> None:
    """One slot: the wave launched first (lower priority) is served before a later one that
    started waiting earlier, and no more calls than the limit run at once."""
    limit = CallLimit(1)
    release = threading.Event()
    bot = Bot(release)
    first_call = threading.Thread(
        target=WaveChatbot(bot, limit, 0).ask, args=question_of(CASES["A"])
    )
    first_call.start()
    limit.wait_for_grant(0, stop=lambda: False)
    later = threading.Thread(target=WaveChatbot(bot, limit, 2).ask, args=question_of(CASES["C"]))
    later.start()
    earlier = threading.Thread(target=WaveChatbot(bot, limit, 1).ask, args=question_of(CASES["B"]))
    threading.Timer(0.05, earlier.start).start()
    threading.Timer(0.2, release.set).start()
    for thread in (first_call, later):
        thread.join(5)
    earlier.join(5)
    assert bot.asked == ["A", "B", "C"]
