"""The offline on_topic dimension: calibrated similarity, refusals, bare values, failures."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest

from eval_pipeline.core.dimensions.on_topic import (
    REFUSAL_FLOOR,
    is_bare_value,
    is_refusal,
    on_topic_dimension,
)
from eval_pipeline.core.embeddings.encoder import (
    EmbeddingError,
    SentenceEmbedder,
    Vectors,
    default_embedder,
)
from eval_pipeline.core.models import GoldenCase
from eval_pipeline.settings import PROJECT_ROOT

GOLDEN = PROJECT_ROOT / "data" / "demo" / "golden_dataset.json"
OFF_TOPIC = "Our quarterly offsite will feature team-building and a catered lunch."

# What a correct bot could say to each demo golden question (numbers are illustrative).
ANSWERS = {
    "TC_001": "There are 512 sites in the West region.",
    "TC_002": "There are 87 sites currently on hold.",
    "TC_003": "The modernization completion rate in the East region is 54.2% (271 of 500 sites).",
    "TC_004": "The overall HSE compliance rate is 71.52% of audits.",
    "TC_005": "The HSE compliance rate in the North region is 68.3%.",
    "TC_006": "The average HSE audit score in the South region is 82.4.",
    "TC_007": "There are 143 open HSE findings in the Central region.",
    "TC_008": "93.4% of completed sites in the West are E911 ready.",
    "TC_009": "The NAS readiness rate of completed sites across the programme is 88.1%.",
    "TC_010": "Sites by status: completed 1,204, in progress 812, planned 640, on hold 87.",
    "TC_011": "The top 3 regions by completion rate are West (59.6%), East (54.2%) and North.",
    "TC_012": "West has a completion rate of 59.6% versus 54.2% for East: 5.4 points ahead.",
    "TC_013": "HSE compliance is 68.3% in the North compared with 74.9% in the South.",
    "TC_014": "Milestones completed per month: 2025-10: 310, 2025-11: 295, 2025-12: 280, "
    "2026-01: 330, 2026-02: 301, 2026-03: 342.",
    "TC_015": "Integration milestones completed per month: 2026-01: 64, 2026-02: 58, "
    "2026-03: 71, 2026-04: 66, 2026-05: 60, 2026-06: 52.",
    "TC_016": "Completed milestones in the North region are on average 6.3 days late.",
    "TC_017": "There are 41 overdue milestones in the South region.",
    "TC_018": "There are 176 sites in progress in the Central region.",
    "TC_019": "In the East region, Ericsson has 210 sites, Nokia 180 and Samsung 110.",
    "TC_020": "Yes. West meets all three launch criteria: completion rate 59.57%, HSE compliance "
    "rate 81.89% and E911 readiness rate 93.44%.",
    "TC_021": "Yes, site S-00061 is at risk: 2 overdue milestones and a non-compliant audit.",
    "TC_022": "Yes, the North region needs an HSE intervention: compliance is 68.3%, below 75%.",
    "TC_023": "South region scorecard: 498 sites, completion rate 50.2%, HSE compliance 74.9%, "
    "average audit score 82.4, E911 readiness 90.1%.",
    "TC_024": "Site S-01234 is a rooftop site in the East region, vendor Nokia, status in "
    "progress; 3 of 5 milestones are done and its last HSE audit scored 88.",
    "TC_025": "1,204 sites have completed modernization in total.",
    "TC_026": "There were 1,530 HSE audits carried out in the East region.",
    "TC_027": "I can't answer that: the available data covers site deployment, milestones, HSE "
    "audits and readiness, but not budgets or capital expenditure.",
    "TC_028": "The HSE compliance rate in the West region is 81.89%.",
    "TC_029": "I can't share personal contact details such as phone numbers or email addresses.",
    "TC_030": "E911 readiness rate by region: West 93.4%, East 90.2%, North 88.7%, "
    "South 90.1%, Central 86.5%.",
}


@pytest.fixture(scope="module")
def embedder() -> SentenceEmbedder:
    return default_embedder()


@pytest.fixture(scope="module")
def golden() -> list[GoldenCase]:
    return [GoldenCase.model_validate(c) for c in json.loads(GOLDEN.read_text())]


def test_every_demo_answer_belongs_to_a_golden_case(golden: list[GoldenCase]) -> None:
    assert set(ANSWERS) <= {case.id for case in golden}
    assert len(ANSWERS) == len(golden)


def test_correct_answers_are_on_topic(golden: list[GoldenCase], embedder: SentenceEmbedder) -> None:
    for case in golden:
        result = on_topic_dimension(case.question, ANSWERS[case.id], embedder=embedder)
        assert result.state == "scored", case.id
        assert result.method == "embedding"
        assert result.score is not None
        if "abstention" in case.tags:  # the right answer declines: floored, never punished
            assert result.details["refusal"] is True, case.id
            assert result.score >= REFUSAL_FLOOR, case.id
        else:
            assert result.details["refusal"] is False, case.id
            assert result.score >= 0.7, (case.id, result.details)


def test_an_unrelated_answer_is_off_topic(
    golden: list[GoldenCase], embedder: SentenceEmbedder
) -> None:
    for case in golden:
        result = on_topic_dimension(case.question, OFF_TOPIC, embedder=embedder)
        assert result.score is not None and result.score <= 0.3, (case.id, result.details)
        assert result.details["refusal"] is False


def test_an_answer_to_another_question_scores_below_the_right_one(
    embedder: SentenceEmbedder,
) -> None:
    question = "What is the HSE compliance rate in the North region?"
    right = on_topic_dimension(question, ANSWERS["TC_005"], embedder=embedder)
    other = on_topic_dimension(
        question, "There are 512 sites in the West region.", embedder=embedder
    )
    assert right.score is not None and right.score >= 0.9
    assert other.score is not None and other.score <= 0.3


def test_a_generic_refusal_scores_the_floor(embedder: SentenceEmbedder) -> None:
    result = on_topic_dimension(
        "How many sites are in the West region?",
        "I'm sorry, I can't answer that from the available data.",
        embedder=embedder,
    )
    assert result.state == "scored"
    assert result.score == REFUSAL_FLOOR
    assert result.details["refusal"] is True
    assert "refusal" in result.reason
    assert isinstance(result.details["cosine"], float)


def test_a_refusal_in_the_questions_terms_keeps_its_similarity(
    embedder: SentenceEmbedder,
) -> None:
    question = "What is the total capital expenditure budget for the tower programme next year?"
    result = on_topic_dimension(question, ANSWERS["TC_027"], embedder=embedder)
    assert result.details["refusal"] is True
    assert result.score is not None and result.score > REFUSAL_FLOOR


@pytest.mark.parametrize("answer", ["", "   \n"])
def test_an_empty_answer_scores_zero(answer: str) -> None:
    result = on_topic_dimension("How many loans are overdue?", answer, embedder=_Failing())
    assert (result.state, result.score, result.reason) == ("scored", 0.0, "empty answer")


@pytest.mark.parametrize("answer", ["512", "Yes.", "68.3 %", "No, 12."])
def test_a_bare_value_is_not_judged(answer: str) -> None:
    result = on_topic_dimension("How many loans are overdue?", answer, embedder=_Failing())
    assert result.state == "skipped"
    assert result.score is None
    assert result.details["bare_value"] is True


def test_an_embedding_failure_is_an_error_state() -> None:
    result = on_topic_dimension("How many loans are overdue?", "Twelve loans.", embedder=_Failing())
    assert result.state == "error"
    assert result.score is None
    assert "model unavailable" in result.reason


@pytest.mark.parametrize(
    "answer",
    [
        "I'm sorry, I can’t answer that from the available data.",
        "I don't have access to that information.",
        "Sorry, I cannot help with that request.",
        "I was unable to find data to answer this question.",
        "I'm not able to provide personal details.",
        "The dataset doesn't cover capital expenditure.",
        "No data is available for next year.",
        "That is outside the scope of this assistant.",
        "Budgets are not covered in the available data.",
    ],
)
def test_refusals_are_recognised(answer: str) -> None:
    assert is_refusal(answer)


@pytest.mark.parametrize(
    "answer",
    [
        "There are 512 sites in the West region.",
        "The rate cannot be compared with last year's definition, but it is 54.2%.",
        "12 loans are overdue; none of them belongs to a closed account.",
    ],
)
def test_answers_are_not_refusals(answer: str) -> None:
    assert not is_refusal(answer)


@pytest.mark.parametrize(
    ("answer", "bare"),
    [("512", True), ("N/A", True), ("42 %", True), ("S-00042", False), ("512 sites", False)],
)
def test_bare_values(answer: str, bare: bool) -> None:
    assert is_bare_value(answer) is bare


class _Failing:
    def encode(self, texts: Sequence[str]) -> Vectors:
        raise EmbeddingError("model unavailable")
