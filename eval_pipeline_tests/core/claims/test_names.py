"""Numbers inside names are no claims; the values beside those names are."""

from __future__ import annotations

import pytest

from eval_pipeline.core.claims.extract import extract_claims

NAMED: list[tuple[str, list[str]]] = [
    # answer, claim texts in order
    ("- Saver 5: 812 members\n- Plus 20: 304 members", ["812", "304"]),
    ("1. Hall 8: $41.2K\n2. Dock 3: $38.0K", ["$41.2K", "$38.0K"]),
    ("West has 42 completed (92.5%), East 37 (88.1%).", ["42", "92.5%", "37", "88.1%"]),
    ("Kelvin 9 billed $194.1K, the most.", ["$194.1K"]),
    ("Orbit 40 had just 22 renewals.", ["22"]),
    ("Waits averaged 4.2 minutes per Sprint 45 class.", ["4.2 minutes"]),
    ("Dana is on the Saver 5 plan and paid $640.", ["$640"]),
    ("Members on Saver 5 visit most. Saver 5 costs less.", []),
    ("The Falcon 900-200 flew 1,204 hours.", ["1,204 hours"]),
    # values after a name without a number, and ranges, stay claims
    ("Web 720, Mobile App 496, Travel Agency 240.", ["720", "496", "240"]),
    ("Lakeside Pediatrics' 305 visits trail.", ["305"]),
    ("North 10-12 days, South 4-6 days.", ["10-12 days", "4-6 days"]),
    ("West 42 37 then 55", ["42", "37", "55"]),
]


@pytest.mark.parametrize(("answer", "expected"), NAMED)
def test_a_number_inside_a_name_is_no_claim(answer: str, expected: list[str]) -> None:
    claims = extract_claims("TC_001", "q", answer).claims
    assert [c.text for c in claims if c.kind == "numeric"] == expected
