"""Verification time per claim is bounded (#17): flat in the number of claims, linear in the
reference's size, and past ``max_claims`` the rest are unverifiable with a reason, never dropped.

Times are CPU times of this process, small and large measured in the same test, compared as a
ratio with a generous bound; the code these replaced measured 3.4x (claims, 50 to 1,000 lines)
and 9.5x (reference, 100 to 800 rows), this code 1.1x for both.
"""

from __future__ import annotations

import time

from eval_pipeline.core.claims.extract import extract_claims
from eval_pipeline.core.models import ReferenceValue
from eval_pipeline.core.oracle import verify_claims
from eval_pipeline.core.oracle.verify import MAX_VERIFIED_CLAIMS

_MAX_RATIO = 2.5
QUESTION = "How did each store do in 2024?"


def _stores(rows: int) -> ReferenceValue:
    return ReferenceValue.model_validate(
        {
            "reference": {"sql": "SELECT store, month, orders, revenue_usd, return_rate FROM s"},
            "shape": "table",
            "value": [
                {
                    "store": _store(i),
                    "month": f"2024-{1 + i % 12:02d}-01",
                    "orders": _orders(i),
                    "revenue_usd": 1000 + (i * 7919) % 98000,
                    "return_rate": round((i * 13) % 100 / 100, 2),
                }
                for i in range(rows)
            ],
        }
    )


def _store(i: int) -> str:
    return f"Store {chr(65 + i % 26)}{i}"


def _orders(i: int) -> int:
    return 10 + (i * 37) % 990


def _answer(lines: int, stores: int = 40) -> str:
    """One line per store, the first ``stores`` stores over and over."""
    body = [
        f"- {_store(i)}: {_orders(i)} orders, ${(1000 + (i * 7919) % 98000) / 1000:.1f}K "
        f"revenue, about {(i * 13) % 100}% returns; the gap to {_store(i + 1)} is "
        f"{abs(_orders(i) - _orders(i + 1))} orders."
        for i in (n % stores for n in range(lines))
    ]
    return "Per store in 2024:\n" + "\n".join(body)


def _cpu_per_claim(answer: str, references: list[ReferenceValue]) -> tuple[float, int]:
    contract = extract_claims("c", QUESTION, answer)
    start = time.process_time()
    verdicts = verify_claims(contract, references, answer=answer, question=QUESTION)
    spent = time.process_time() - start
    assert len(verdicts) == len(contract.claims)
    return spent / len(contract.claims), len(contract.claims)


def test_time_per_claim_is_flat_from_hundreds_to_thousands_of_claims() -> None:
    reference = [_stores(4)]  # a small reference, so the claims' own work shows
    small = min(_cpu_per_claim(_answer(50), reference)[0] for _ in range(3))
    large, claims = _cpu_per_claim(_answer(1200), reference)
    assert 4000 < claims <= MAX_VERIFIED_CLAIMS
    assert large / small <= _MAX_RATIO, (small, large)


def test_time_per_claim_grows_no_faster_than_the_reference() -> None:
    answer = _answer(20, stores=20)
    small = min(_cpu_per_claim(answer, [_stores(100)])[0] for _ in range(3)) / 100
    large = _cpu_per_claim(answer, [_stores(800)])[0] / 800
    assert large / small <= _MAX_RATIO, (small, large)


def test_claims_past_the_cap_are_unverifiable_with_the_reason() -> None:
    answer = _answer(10)
    contract = extract_claims("c", QUESTION, answer)
    verdicts = verify_claims(
        contract, [_stores(12)], answer=answer, question=QUESTION, max_claims=15
    )
    assert [v.claim_id for v in verdicts] == [c.id for c in contract.claims]
    checked, rest = verdicts[:15], verdicts[15:]
    assert rest and all(v.verdict == "unverifiable" for v in rest)
    assert {v.reason for v in rest} == {
        f"not checked: the answer states {len(contract.claims)} claims, "
        "the oracle checks the first 15"
    }
    assert any(v.verdict == "supported" for v in checked)
    uncapped = verify_claims(contract, [_stores(12)], answer=answer, question=QUESTION)
    assert [v.verdict for v in checked] == [v.verdict for v in uncapped[:15]]


def test_the_default_cap_leaves_room_for_long_reports() -> None:
    assert MAX_VERIFIED_CLAIMS >= 5000
