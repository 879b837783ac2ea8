"""Accuracy of the deterministic oracle on labelled answers, against the live demo warehouse.

Each case of ``oracle_cases.json`` is a question, an answer written to exercise one number format
or one fault, the references that hold the truth and the verdict expected for every claim, in
claim order. References that only name a call are recomputed live (demo warehouse in a temporary
SQLite file, BKG functions run by ``BKGRuntime``), so the labels are checked against real values.
A claim the extractor misses or invents counts as an error, never as a skip.

    .venv/bin/python bench/oracle_accuracy.py
"""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eval_pipeline.core.bkg_runtime import BKGRuntime
from eval_pipeline.core.claims import extract_claims
from eval_pipeline.core.db import Database
from eval_pipeline.core.models import BKG, Reference, ReferenceValue
from eval_pipeline.core.oracle import verify_claims
from eval_pipeline.demo.warehouse import load

ROOT = Path(__file__).resolve().parent.parent
CASES = Path(__file__).with_name("oracle_cases.json")
DEMO_BKG = ROOT / "data" / "demo" / "bkg.json"
VERDICTS = ("supported", "contradicted", "unverifiable")
MISSED = "missed"  # a labelled claim the extractor did not find (or found as another text)
INVENTED = "invented"  # an extracted claim with no label


@dataclass
class CaseOutcome:
    id: str
    answer: str
    expected: list[tuple[str, str]]
    got: list[tuple[str, str, str]]
    pairs: list[tuple[str, str]]

    @property
    def mistakes(self) -> list[str]:
        out = []
        for i, (want, have) in enumerate(self.pairs):
            if want != have:
                text = self.expected[i][0] if i < len(self.expected) else self.got[i][0]
                reason = self.got[i][2] if i < len(self.got) else "not extracted"
                out.append(f"C{i + 1} {text!r}: expected {want}, got {have} ({reason})")
        return out


@dataclass
class Accuracy:
    outcomes: list[CaseOutcome] = field(default_factory=list)

    @property
    def confusion(self) -> Counter[tuple[str, str]]:
        return Counter(pair for outcome in self.outcomes for pair in outcome.pairs)

    @property
    def claims(self) -> int:
        return sum(count for (want, _), count in self.confusion.items() if want != INVENTED)

    def precision(self, verdict: str) -> float:
        said = sum(n for (_, have), n in self.confusion.items() if have == verdict)
        return self.confusion[(verdict, verdict)] / said if said else 1.0

    def recall(self, verdict: str) -> float:
        labelled = sum(n for (want, _), n in self.confusion.items() if want == verdict)
        return self.confusion[(verdict, verdict)] / labelled if labelled else 1.0

    def summary(self) -> str:
        return (
            f"contradicted precision={self.precision('contradicted'):.2f} "
            f"recall={self.recall('contradicted'):.2f}; "
            f"supported precision={self.precision('supported'):.2f} "
            f"recall={self.recall('supported'):.2f}"
        )


@contextmanager
def demo_warehouse() -> Iterator[tuple[BKGRuntime, Database]]:
    """The demo warehouse in a temporary SQLite file and a runtime for the demo BKG."""
    with tempfile.TemporaryDirectory(prefix="oracle-bench-") as tmp:
        url = f"sqlite:///{tmp}/warehouse.db"
        load(url)
        bkg = BKG.model_validate(json.loads(DEMO_BKG.read_text()))
        with Database(url) as db:
            yield BKGRuntime(bkg), db


def reference_value(item: dict[str, Any], runtime: BKGRuntime, db: Database) -> ReferenceValue:
    """A stated value as is; a bare reference call recomputed live."""
    if "shape" in item:
        return ReferenceValue.model_validate(item)
    return runtime.evaluate(Reference.model_validate(item["reference"]), db)


def _pairs(
    expected: list[tuple[str, str]], got: list[tuple[str, str, str]]
) -> list[tuple[str, str]]:
    """(expected, obtained) per claim position; a claim whose text does not hold the labelled
    text is missed, and positions past either list are missed or invented."""
    pairs = []
    for i in range(max(len(expected), len(got))):
        if i >= len(got):
            pairs.append((expected[i][1], MISSED))
        elif i >= len(expected):
            pairs.append((INVENTED, got[i][1]))
        elif expected[i][0] not in got[i][0]:
            pairs.append((expected[i][1], MISSED))
        else:
            pairs.append((expected[i][1], got[i][1]))
    return pairs


def evaluate(cases_path: Path = CASES) -> Accuracy:
    """Run extraction and verification on every labelled case against live references."""
    cases = json.loads(cases_path.read_text())
    accuracy = Accuracy()
    with demo_warehouse() as (runtime, db):
        for case in cases:
            references = [reference_value(r, runtime, db) for r in case["references"]]
            broken = [rv.error for rv in references if rv.error]
            if broken:
                raise RuntimeError(f"case {case['id']}: reference failed: {broken}")
            contract = extract_claims(case["id"], case["question"], case["answer"])
            verdicts = verify_claims(
                contract, references, answer=case["answer"], question=case["question"]
            )
            expected = [(text, verdict) for text, verdict in case["expected"]]
            got: list[tuple[str, str, str]] = [
                (c.text, v.verdict, v.reason)
                for c, v in zip(contract.claims, verdicts, strict=True)
            ]
            accuracy.outcomes.append(
                CaseOutcome(case["id"], case["answer"], expected, got, _pairs(expected, got))
            )
    return accuracy


def report(accuracy: Accuracy) -> list[str]:
    labels = [*VERDICTS, MISSED]
    rows = [f"{len(accuracy.outcomes)} cases, {accuracy.claims} labelled claims"]
    rows.append("expected \\ got".ljust(16) + "".join(label.rjust(14) for label in labels))
    for want in [*VERDICTS, INVENTED]:
        counts = [accuracy.confusion[(want, have)] for have in labels]
        rows.append(want.ljust(16) + "".join(str(n).rjust(14) for n in counts))
    for outcome in accuracy.outcomes:
        for mistake in outcome.mistakes:
            rows.append(f"[{outcome.id}] {mistake}")
    rows.append(accuracy.summary())
    return rows


if __name__ == "__main__":
    print("\n".join(report(evaluate())))
