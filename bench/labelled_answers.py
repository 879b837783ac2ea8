"""Labelled answers written apart from the oracle: their format, their checks, their live values.

A labelled set is a folder per domain, each holding

* ``warehouse.py`` — ``build(path: str) -> None`` writes the domain's SQLite warehouse
  deterministically (a fixed seed), so the labels hold on every machine;
* ``bkg.json`` — the domain's BKG (docs/formats.md);
* ``cases.json`` — a list of labelled answers::

      {"id": "clinic-001", "categories": ["level", "hedge"],
       "question": "...", "references": [<golden-set reference>, ...],
       "answer": "...",
       "labels": [{"text": "45.5 %", "context": "optional longer unique text",
                   "verdict": "supported", "note": "why"}]}

Every number written in digits in an answer lies inside exactly one label. A label's ``text`` is
found inside its ``context`` (or in the whole answer when no context is given), and either must
occur exactly once. ``verdict`` is what a correct oracle says of the claim that text states:
``supported``, ``contradicted``, ``unverifiable``, or ``not_a_claim`` for a number that states
nothing checkable (a year used as a qualifier, an id, a list marker, a scale anchor...).

    .venv/bin/python bench/labelled_answers.py check bench/blind/*/
    .venv/bin/python bench/labelled_answers.py values bench/blind/clinics [CASE_ID ...]
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval_pipeline.core.inputs import validate_inputs
from eval_pipeline.core.models import BKG, Reference, ReferenceValue
from eval_pipeline.core.warehouse.bkg_runtime import BKGRuntime
from eval_pipeline.core.warehouse.db import Database

VERDICTS = ("supported", "contradicted", "unverifiable", "not_a_claim")
CATEGORIES = frozenset(
    {
        "level",
        "derived-share",
        "derived-sum",
        "derived-difference",
        "derived-ratio",
        "derived-growth",
        "derived-one-in-n",
        "derived-x-out-of-y",
        "row-shaped",
        "not-a-claim",
        "question-echo",
        "signed-comparison",
        "duration",
        "attached-unit",
        "date-row-label",
        "hedge",
        "sql-units",
        "ranking",
        "prose",
        "bullets",
        "table",
    }
)


@dataclass(frozen=True)
class Label:
    text: str
    verdict: str
    span: tuple[int, int]
    note: str = ""


@dataclass(frozen=True)
class LabelledCase:
    id: str
    categories: tuple[str, ...]
    question: str
    references: tuple[Reference, ...]
    answer: str
    labels: tuple[Label, ...]

    @property
    def claims(self) -> tuple[Label, ...]:
        return tuple(label for label in self.labels if label.verdict != "not_a_claim")


@dataclass(frozen=True)
class Domain:
    name: str
    folder: Path
    bkg: BKG
    cases: tuple[LabelledCase, ...]
    build: Callable[[str], None]


def _span(answer: str, text: str, context: str | None) -> tuple[int, int]:
    where = context or text
    if answer.count(where) != 1:
        raise ValueError(f"{where!r} occurs {answer.count(where)} times in the answer, not once")
    start = answer.index(where)
    if context is not None:
        if context.count(text) != 1:
            raise ValueError(f"{text!r} occurs {context.count(text)} times in its context")
        start += context.index(text)
    return start, start + len(text)


def _case(raw: dict[str, Any], where: str) -> LabelledCase:
    answer = raw["answer"]
    labels = []
    for i, item in enumerate(raw["labels"]):
        try:
            span = _span(answer, item["text"], item.get("context"))
        except ValueError as exc:
            raise ValueError(f"{where}: {raw['id']}.labels[{i}]: {exc}") from None
        labels.append(Label(item["text"], item["verdict"], span, item.get("note", "")))
    return LabelledCase(
        id=raw["id"],
        categories=tuple(raw.get("categories", ())),
        question=raw["question"],
        references=tuple(Reference.model_validate(r) for r in raw["references"]),
        answer=answer,
        labels=tuple(sorted(labels, key=lambda label: label.span)),
    )


def _builder(folder: Path) -> Callable[[str], None]:
    spec = importlib.util.spec_from_file_location(
        f"warehouse_{folder.name}", folder / "warehouse.py"
    )
    if spec is None or spec.loader is None:
        raise FileNotFoundError(folder / "warehouse.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    build: Callable[[str], None] = module.build
    return build


def load_domain(folder: Path) -> Domain:
    folder = Path(folder)
    cases_path = folder / "cases.json"
    raw = json.loads(cases_path.read_text())
    return Domain(
        name=folder.name,
        folder=folder,
        bkg=BKG.model_validate(json.loads((folder / "bkg.json").read_text())),
        cases=tuple(_case(item, str(cases_path)) for item in raw),
        build=_builder(folder),
    )


def load_set(root: Path) -> list[Domain]:
    """``root`` itself when it is a domain folder (it holds cases.json), else every domain folder
    under it, by name; a folder holding none is an error, never an empty set scored as perfect."""
    root = Path(root)
    if (root / "cases.json").is_file():
        return [load_domain(root)]
    domains = [load_domain(p.parent) for p in sorted(root.glob("*/cases.json"))]
    if not domains:
        raise SystemExit(f"{root}: no labelled domain (no cases.json in it or its subfolders)")
    return domains


@contextmanager
def warehouse(domain: Domain) -> Iterator[tuple[BKGRuntime, Database, str]]:
    """The domain's warehouse built afresh in a temporary folder, with a runtime for its BKG."""
    with tempfile.TemporaryDirectory(prefix=f"labelled-{domain.name}-") as tmp:
        path = f"{tmp}/warehouse.db"
        domain.build(path)
        url = f"sqlite:///{path}"
        with Database(url) as db:
            yield BKGRuntime(domain.bkg), db, url


def golden(domain: Domain) -> list[dict[str, Any]]:
    """The domain's cases as a golden dataset (question and references), for the validator."""
    return [
        {
            "id": case.id,
            "question": case.question,
            "reference": [r.model_dump(exclude_defaults=True) for r in case.references],
        }
        for case in domain.cases
    ]


_DIGITS = re.compile(r"\d")


def problems(domain: Domain, references: dict[str, list[ReferenceValue]]) -> list[str]:
    """What is wrong with the labels (beyond the spans, checked on load)."""
    out = []
    ids = Counter(case.id for case in domain.cases)
    out += [f"{domain.name}: duplicate case id {i}" for i, n in ids.items() if n > 1]
    for case in domain.cases:
        where = f"{domain.name}: {case.id}"
        out += [f"{where}: unknown category {c!r}" for c in case.categories if c not in CATEGORIES]
        out += [
            f"{where}: unknown verdict {x.verdict!r}"
            for x in case.labels
            if x.verdict not in VERDICTS
        ]
        for a, b in zip(case.labels, case.labels[1:], strict=False):
            if b.span[0] < a.span[1]:
                out.append(f"{where}: labels {a.text!r} and {b.text!r} overlap")
        for m in _DIGITS.finditer(case.answer):
            if not any(x.span[0] <= m.start() < x.span[1] for x in case.labels):
                context = case.answer[max(0, m.start() - 20) : m.start() + 20]
                out.append(f"{where}: digit at {m.start()} not inside a label: ...{context}...")
                break
        if not case.references:
            out.append(f"{where}: no reference")
        for rv in references[case.id]:
            if rv.error is not None:
                out.append(f"{where}: reference {rv.reference.target} failed: {rv.error}")
    return out


def live_references(
    domain: Domain, runtime: BKGRuntime, db: Database
) -> dict[str, list[ReferenceValue]]:
    return {case.id: [runtime.evaluate(r, db) for r in case.references] for case in domain.cases}


def check(folder: Path) -> list[str]:
    """Every problem of one domain: the validator's on its BKG and references, then the labels'."""
    domain = load_domain(folder)
    with warehouse(domain) as (runtime, db, url), tempfile.TemporaryDirectory() as tmp:
        golden_path = Path(tmp) / "golden.json"
        golden_path.write_text(json.dumps(golden(domain)))
        found = [str(p) for p in validate_inputs(domain.folder / "bkg.json", golden_path, url)]
        found += problems(domain, live_references(domain, runtime, db))
    counts = Counter(label.verdict for case in domain.cases for label in case.labels)
    categories = Counter(c for case in domain.cases for c in case.categories)
    print(f"{domain.name}: {len(domain.cases)} answers, labels {dict(counts)}")
    print(f"{domain.name}: categories {dict(sorted(categories.items()))}")
    return found


def show_values(folder: Path, ids: list[str]) -> None:
    domain = load_domain(folder)
    with warehouse(domain) as (runtime, db, _):
        for case in domain.cases:
            if ids and case.id not in ids:
                continue
            for rv in (runtime.evaluate(r, db) for r in case.references):
                value = rv.error if rv.error else json.dumps(rv.value)
                print(f"{case.id} {rv.reference.target} {json.dumps(rv.reference.params)}: {value}")


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] not in ("check", "values"):
        print(__doc__)
        return 2
    if argv[0] == "values":
        show_values(Path(argv[1]), argv[2:])
        return 0
    found = [p for folder in argv[1:] for p in check(Path(folder))]
    print("\n".join(found) or "no problems")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
