"""docs/formats.md's tolerance table is what the oracle does: each row's interval is the one the
extracted claim stands for, and values just inside and just outside it are judged so."""

from __future__ import annotations

import re

import pytest

from eval_pipeline.core.claims.extract import extract_claims
from eval_pipeline.core.models import ReferenceValue
from eval_pipeline.core.oracle import ToleranceRule, verify_claims
from eval_pipeline.core.oracle.tolerance import tolerance
from eval_pipeline.settings import PROJECT_ROOT

DOC = PROJECT_ROOT / "docs" / "formats.md"
_ROW = re.compile(r"^\| `(?P<text>[^`]+)` \| (?P<low>[\d,.]+) – (?P<high>[\d,.]+) \|", re.M)


def table() -> list[tuple[str, float, float]]:
    rows = [
        (m["text"], float(m["low"].replace(",", "")), float(m["high"].replace(",", "")))
        for m in _ROW.finditer(DOC.read_text())
    ]
    assert len(rows) >= 15
    return rows


def _reference(value: float, unit: str) -> ReferenceValue:
    return ReferenceValue.model_validate(
        {"reference": {"kpi": "metric"}, "shape": "scalar", "value": value, "unit": unit}
    )


@pytest.mark.parametrize(("text", "low", "high"), table())
def test_each_documented_interval_is_the_rule(text: str, low: float, high: float) -> None:
    claims = extract_claims("T", "How are we doing?", text).claims
    assert len(claims) == 1
    claim = claims[0]
    assert claim.value is not None and claim.unit is not None
    half = tolerance(claim)
    assert claim.value - half == pytest.approx(low) and claim.value + half == pytest.approx(high)
    width = high - low
    for truth, verdict in (
        (low + width * 0.01, "supported"),
        (high - width * 0.01, "supported"),
        (low - width * 0.05, "contradicted"),
        (high + width * 0.05, "contradicted"),
    ):
        got = verify_claims(
            extract_claims("T", "How are we doing?", text),
            [_reference(truth, claim.unit)],
            answer=text,
        )
        assert got[0].verdict == verdict, (truth, got[0].reason)


def test_the_rule_settings_move_the_hedged_interval() -> None:
    claim = extract_claims("T", "", "We have about 1,200.").claims[0]
    assert tolerance(claim, ToleranceRule(hedge_units=1, hedge_cap=0.10)) == pytest.approx(120)
    assert tolerance(claim, ToleranceRule(hedge_units=1, hedge_cap=0.5)) == pytest.approx(150)
    assert tolerance(claim, ToleranceRule(hedge_units=0, hedge_cap=0.5)) == pytest.approx(50)
    exact = extract_claims("T", "", "We have 1,200.").claims[0]
    assert tolerance(exact, ToleranceRule(hedge_units=5, hedge_cap=1.0)) == pytest.approx(0.5)


def test_verification_uses_the_rule_it_is_given() -> None:
    text = "We have about 1,200."
    truth = _reference(1_340, "count")
    default = verify_claims(extract_claims("T", "", text), [truth], answer=text)
    wider = verify_claims(
        extract_claims("T", "", text),
        [truth],
        answer=text,
        rule=ToleranceRule(hedge_units=1, hedge_cap=0.2),
    )
    assert (default[0].verdict, wider[0].verdict) == ("contradicted", "supported")
