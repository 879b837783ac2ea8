"""Accuracy of the deterministic oracle on labelled answers, against live warehouses.

Two sets. ``oracle_cases.json`` (the existing set) holds answers written beside the extractor to
exercise one number format or one fault each, on the demo warehouse, with the verdict expected for
every claim in claim order. ``blind/`` holds answers in three other domains written by authors who
never read the oracle (``blind/README.md``), labelled by span (``labelled_answers.py``): each label
is matched with the claims whose text overlaps it. In both, references are recomputed live (each
domain's warehouse built in a temporary SQLite file, BKG functions run by ``BKGRuntime``), and a
claim the extractor misses or invents counts as an error, never as a skip.

    .venv/bin/python bench/oracle_accuracy.py                   # both sets; last two lines
    .venv/bin/python bench/oracle_accuracy.py --labelled DIR    # another labelled set
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.labelled_answers import LabelledCase, load_set, warehouse
from eval_pipeline.core.claims.extract import extract_claims
from eval_pipeline.core.models import BKG, Claim, Reference, ReferenceValue, Verdict
from eval_pipeline.core.oracle import verify_claims
from eval_pipeline.core.warehouse.bkg_runtime import BKGRuntime
from eval_pipeline.core.warehouse.db import Database
from eval_pipeline.demo.warehouse import load

ROOT = Path(__file__).resolve().parent.parent
CASES = Path(__file__).with_name("oracle_cases.json")
BLIND = Path(__file__).with_name("blind")
DEMO_BKG = ROOT / "data" / "demo" / "bkg.json"
VERDICTS = ("supported", "contradicted", "unverifiable")
MISSED = "missed"  # a labelled claim the extractor did not find (or found as another text)
INVENTED = "invented"  # an extracted claim with no label


@dataclass(frozen=True)
class Pair:
    """One labelled or extracted claim: what was expected, what the oracle said, and why."""

    want: str
    have: str
    text: str
    reason: str


@dataclass
class CaseOutcome:
    id: str
    answer: str
    aligned: list[Pair]

    @property
    def pairs(self) -> list[tuple[str, str]]:
        return [(p.want, p.have) for p in self.aligned]

    @property
    def mistakes(self) -> list[str]:
        return [
            f"{p.text!r}: expected {p.want}, got {p.have} ({p.reason})"
            for p in self.aligned
            if p.want != p.have
        ]


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


def _pairs(expected: list[tuple[str, str]], got: list[tuple[str, str, str]]) -> list[Pair]:
    """Labelled claims (text, verdict) matched in order with the extracted claims (text,
    verdict, reason): each label takes the next extracted claim whose text holds its text, or is
    missed; an extracted claim passed over is invented, unless it has no digit (ranking words a
    label list may leave out, as in the blind set)."""
    pairs: list[Pair] = []
    j = 0

    def invented(claims: list[tuple[str, str, str]]) -> list[Pair]:
        return [Pair(INVENTED, v, t, r) for t, v, r in claims if re.search(r"\d", t)]

    for text, want in expected:
        k = next((i for i in range(j, len(got)) if text in got[i][0]), None)
        if k is None:
            pairs.append(Pair(want, MISSED, text, "not extracted"))
            continue
        pairs += invented(got[j:k])
        pairs.append(Pair(want, got[k][1], text, got[k][2]))
        j = k + 1
    return pairs + invented(got[j:])


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
            accuracy.outcomes.append(CaseOutcome(case["id"], case["answer"], _pairs(expected, got)))
    return accuracy


# --------------------------------------------------------------------------- labelled by span

_SEVERITY = {"contradicted": 3, "supported": 2, "unverifiable": 1, "stale": 1}


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


@dataclass
class LabelledOutcome:
    """One labelled answer: (label, got) per claim label, extra claims as invented."""

    domain: str
    case: LabelledCase
    pairs: list[tuple[str, str]]
    mistakes: list[str]
    right_answer_failed: bool


def score_labelled(
    domain: str, case: LabelledCase, claims: list[Claim], verdicts: list[Verdict]
) -> LabelledOutcome:
    """Each claim label gets the most severe verdict of the claims overlapping it (missed if
    none); a claim overlapping no claim label is invented, a ``not_a_claim`` one included. A
    claim written without digits that overlaps no label ("West leads") is left out unless it is
    accused: the format labels every digit, while ranking words may go unlabelled."""
    got = [
        (c.span, v.verdict if v.verdict != "stale" else "unverifiable", v.reason, c.text)
        for c, v in zip(claims, verdicts, strict=True)
    ]
    pairs, mistakes = [], []
    used: set[int] = set()
    for label in case.claims:
        hits = [i for i, g in enumerate(got) if _overlaps(g[0], label.span)]
        used.update(hits)
        have = max((got[i][1] for i in hits), key=_SEVERITY.__getitem__, default=MISSED)
        pairs.append((label.verdict, have))
        if have != label.verdict:
            reason = next((got[i][2] for i in hits if got[i][1] == have), "not extracted")
            mistakes.append(f"{label.text!r}: expected {label.verdict}, got {have} ({reason})")
    for i, (_, verdict, reason, text) in enumerate(got):
        if i not in used and not re.search(r"\d", text) and verdict != "contradicted":
            continue  # the format labels every digit; a ranking in words may go unlabelled,
            # but one it accuses is counted: an accusation nobody labelled is no less false
        if i not in used:
            pairs.append((INVENTED, verdict))
            if verdict != "unverifiable":
                mistakes.append(f"{text!r}: not a labelled claim, got {verdict} ({reason})")
    right = not any(label.verdict == "contradicted" for label in case.claims)
    failed = right and any(v == "contradicted" for _, v, _, _ in got)
    return LabelledOutcome(domain, case, pairs, mistakes, failed)


@dataclass
class LabelledAccuracy(Accuracy):
    labelled: list[LabelledOutcome] = field(default_factory=list)

    @property
    def confusion(self) -> Counter[tuple[str, str]]:
        return Counter(pair for outcome in self.labelled for pair in outcome.pairs)

    @property
    def right_answers_failed(self) -> int:
        return sum(o.right_answer_failed for o in self.labelled)

    def summary(self) -> str:
        return f"{super().summary()}; right answers failed={self.right_answers_failed}"


def evaluate_labelled(root: Path = BLIND) -> LabelledAccuracy:
    """Extraction and verification of every labelled answer under ``root``, live references."""
    accuracy = LabelledAccuracy()
    for domain in load_set(root):
        with warehouse(domain) as (runtime, db, _):
            for case in domain.cases:
                references = [runtime.evaluate(r, db) for r in case.references]
                contract = extract_claims(case.id, case.question, case.answer)
                verdicts = verify_claims(
                    contract, references, answer=case.answer, question=case.question
                )
                accuracy.labelled.append(
                    score_labelled(domain.name, case, contract.claims, verdicts)
                )
    return accuracy


def labelled_report(accuracy: LabelledAccuracy, name: str) -> list[str]:
    rows = [f"{name}: {len(accuracy.labelled)} answers, {accuracy.claims} labelled claims"]
    labels = [*VERDICTS, MISSED]
    rows.append("expected \\ got".ljust(16) + "".join(label.rjust(14) for label in labels))
    for want in [*VERDICTS, INVENTED]:
        counts = [accuracy.confusion[(want, have)] for have in labels]
        rows.append(want.ljust(16) + "".join(str(n).rjust(14) for n in counts))
    by_category: dict[str, Counter[bool]] = {}
    for outcome in accuracy.labelled:
        for category in outcome.case.categories:
            tally = by_category.setdefault(category, Counter())
            tally.update(want == have for want, have in outcome.pairs if want != INVENTED)
    rows.append(
        "by category (right/claims): "
        + ", ".join(f"{c} {t[True]}/{t.total()}" for c, t in sorted(by_category.items()))
    )
    for domain in sorted({o.domain for o in accuracy.labelled}):
        part = LabelledAccuracy(labelled=[o for o in accuracy.labelled if o.domain == domain])
        rows.append(f"{domain} ({len(part.labelled)} answers): {part.summary()}")
    for outcome in accuracy.labelled:
        for mistake in outcome.mistakes:
            rows.append(f"[{outcome.case.id}] {mistake}")
    return rows


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


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labelled", type=Path, help="score only this labelled set")
    args = parser.parse_args(argv)
    if args.labelled:
        other = evaluate_labelled(args.labelled)
        rows = labelled_report(other, str(args.labelled))
        print("\n".join([*rows, f"{args.labelled}: {other.summary()}"]))
        return
    existing = evaluate()
    blind = evaluate_labelled()
    rows = [*report(existing)[:-1], *labelled_report(blind, "blind")]
    print("\n".join([*rows, existing.summary(), f"blind: {blind.summary()}"]))


if __name__ == "__main__":
    main(sys.argv[1:])
