"""The periods a reference's params tie its values to (issue #15: a reference's non-string
params — an integer year, a part of it, a date — tie levels to the periods an answer names)."""

from __future__ import annotations

from typing import Any

import pytest

from eval_pipeline.core.oracle.periods import Period, param_periods


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"year": 2024}, [Period("year", 2024)]),
        ({"year": 2024, "quarter": 1}, [Period("quarter", 2024, 1)]),
        ({"year": 2025, "Month": 11, "region": "North"}, [Period("month", 2025, 11)]),
        ({"half": 2, "year": 2025}, [Period("half", 2025, 2)]),
        ({"quarter": 3}, [Period("quarter", None, 3)]),
        # not a part of the year: out of range, a flag, or two parts at once
        ({"year": 2024, "quarter": 5}, [Period("year", 2024)]),
        ({"year": 2024, "quarter": True}, [Period("year", 2024)]),
        ({"year": 2024, "quarter": 1, "month": 2}, [Period("year", 2024)]),
        ({"quarter": "2024Q1"}, [Period("quarter", 2024, 1)]),
    ],
)
def test_param_periods(params: dict[str, Any], expected: list[Period]) -> None:
    assert param_periods(params) == expected
