"""Which reference value a claim states, when several could be (#15): a reader picks it by the
entity named in the compound before it, by what the other figures of its sentence already state,
by the place the other items of its list give that figure, and by the entity that tells apart
references sharing a category. Each row has a near miss where the oracle must not accuse.
"""

from __future__ import annotations

import pytest

from eval_pipeline.core.claims.extract import extract_claims
from eval_pipeline.core.models import ReferenceValue
from eval_pipeline.core.oracle import verify_claims
from eval_pipeline_tests.core.oracle.answers import C, S, U, assert_verdicts, ref

BY_BAND = ref({"Heavy": 412, "Light": 1280}, "count", name="parcels")
JOBS = ref(
    {
        "columns": ["depot", "closed_jobs", "reopened_jobs"],
        "rows": [["Avon", 140, 22], ["Tees", 272, 27], ["Wear", 50, 4]],
    },
    sql="SELECT depot, COUNT(*) AS closed_jobs, SUM(reopened) AS reopened_jobs FROM j GROUP BY 1",
)
SURVEYS = [
    ref(v, "number", name="avg_survey_score", params={"year": 2025, "kind": "delivery", "depot": d})
    for d, v in (("Avon", 3.401), ("Tees", 4.039))
]
CHANNELS = ref(
    {
        "columns": ["channel", "reviews", "avg_rating"],
        "rows": [["Web", 646, 4.09], ["Phone", 297, 4.12], ["Kiosk", 185, 4.23]],
    },
    sql="SELECT channel, COUNT(*) AS reviews, AVG(stars) AS avg_rating FROM r GROUP BY 1",
)
SCORECARD = ref(
    {
        "columns": ["depot", "damage_pct", "on_time_pct"],
        "rows": [["Avon", 4.35, 69.7], ["Tees", 5.4, 56.99], ["Wear", 4.78, 66.67]],
    },
    name="depot_scorecard",
)

CASES: list[tuple[str, str, list[ReferenceValue], list[str]]] = [
    # a label written as the first part of a compound still names its row
    ("compound names its row", "Heavy-load parcels came to 450 this year.", [BY_BAND], [C]),
    ("compound of a longer name", "The North-East depot moved 450 parcels.", [BY_BAND], [U]),
    # "22 of 104": the 22 states the reopened jobs, so the 104 is the closed ones
    ("right whole beside its part", "Avon reopened 22 of 140 jobs.", [JOBS], [S, S]),
    ("part named after the whole", "Avon logged 22 reopened jobs on 140 closed.", [JOBS], [S, S]),
    # a figure written as a part of its whole ranks a rate, which no count column is
    ("ranked by a part of a whole", "Avon reopened the most jobs: 22 of 140.", [JOBS], [U, S, S]),
    ("ranked by a count", "Tees reopened the most jobs: 27.", [JOBS], [S, S]),
    # a category every reference shares picks none of them; the depot does
    (
        "the depot picks the reference",
        "In 2025 Avon averaged 3.6 on delivery surveys, while Tees scored 4.04.",
        SURVEYS,
        [C, S],
    ),
    (
        "no depot named",
        "In 2025 delivery surveys averaged 3.7 across the depots.",
        SURVEYS,
        [U],
    ),
    # "Web 646 (avg 4.09)": the bracketed figure is the same row's
    (
        "bracketed figure of its row",
        "Web 646 (avg 4.09), Phone 297 (avg 4.12).",
        [CHANNELS],
        [S, S, S, S],
    ),
    ("bracketed figure compared", "Web had 646 reviews (vs 597).", [CHANNELS], [S, U]),
    # the items of one list state one quantity at one place
    (
        "a list's place",
        "- Avon: 7 in 10\n- Wear: 2 out of 3\n- Tees: 5 in 10",
        [SCORECARD],
        [S, S, C],
    ),
    ("a list no item settles", "- Avon: 6 in 10\n- Tees: 5 in 10", [SCORECARD], [U, U]),
]


@pytest.mark.parametrize(
    ("answer", "refs", "expected"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_binding_choice(answer: str, refs: list[ReferenceValue], expected: list[str]) -> None:
    assert_verdicts("", answer, refs, expected)


def test_whole_beside_its_part_is_held_against_the_whole() -> None:
    """ "22 of 104": the accusation names the closed jobs (140), not the 22 the part states."""
    answer = "Avon reopened 22 of 104 jobs."
    contract = extract_claims("TC_001", "How are the depots doing?", answer)
    verdicts = verify_claims(contract, [JOBS], answer=answer)
    assert [v.verdict for v in verdicts] == [S, C]
    assert [e.value for e in verdicts[1].evidence] == [140]
