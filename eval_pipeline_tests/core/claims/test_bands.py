"""A number that names a band of the things a count counts ("12 that are 60+ days overdue",
"patients aged 70+", "37 refunds over $500") is no claim; a bound that counts nothing else
("500+ customers", "over $1M") stays one."""

from __future__ import annotations

import pytest

from eval_pipeline.core.claims.extract import extract_claims


def _texts(answer: str) -> list[str]:
    return [c.text for c in extract_claims("T", "How are we doing?", answer).claims]


@pytest.mark.parametrize(
    ("answer", "claims"),
    [
        # a count, then the band its things are in
        ("Of 310 invoices, 12 that are 60+ days overdue.", ["310", "12"]),
        ("Of 310 invoices, 45 are 60+ days overdue.", ["310", "45"]),
        ("The clinic saw 85 patients aged 70+ last week.", ["85"]),
        ("Patients aged 70 or older made up most visits.", []),
        ("We processed 37 refunds over $500 in May.", ["37"]),
        ("14 tickets were 10 days or more overdue.", ["14"]),
        # near misses: the bound is the figure itself
        ("We now serve 500+ customers.", ["500"]),
        ("Revenue was over $1M in May.", ["over $1M"]),
        ("We served over 500 customers.", ["over 500"]),
        # "over" a count is "across": a figure ("32 hours over 6 shifts")
        ("Leo logged 32 hours over 6 shifts.", ["32 hours", "6"]),
        # a number inside a name counts nothing ("Unit 7 handles more than 3x …")
        ("Unit 7 handles more than 3x the volume of Unit 2.", ["more than 3x"]),
    ],
)
def test_a_band_of_the_things_counted_is_no_claim(answer: str, claims: list[str]) -> None:
    assert _texts(answer) == claims
