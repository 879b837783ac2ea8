"""The demo bot's own SQL must state the truth the BKG computes, so verdicts mean something."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from decimal import ROUND_HALF_UP, Decimal

import pytest
import sqlalchemy as sa

from eval_pipeline.core.inputs import load_bkg
from eval_pipeline.core.models import BKG, GoldenCase, ReferenceValue
from eval_pipeline.core.warehouse.bkg_runtime import BKGRuntime
from eval_pipeline.core.warehouse.db import Database
from eval_pipeline.demo import warehouse
from eval_pipeline.demo.bot.intents import plan_answer, sample_contact
from eval_pipeline.demo.bot.plans import AnswerPlan, Fact
from eval_pipeline.settings import PROJECT_ROOT

ROOT = PROJECT_ROOT
CASES = {
    c["id"]: GoldenCase.model_validate(c)
    for c in json.loads((ROOT / "data" / "demo" / "golden_dataset.json").read_text())
}

PARAPHRASES = {
    "TC_001": "What's the number of West sites?",
    "TC_002": "How many of our sites are paused (on hold) right now?",
    "TC_003": "What percentage of East sites have finished modernization?",
    "TC_004": "Overall, what share of HSE audits are compliant?",
    "TC_005": "Give me North's HSE compliance rate.",
    "TC_006": "What's the mean HSE score for audits in the southern region?",
    "TC_007": "Count the open findings in Central.",
    "TC_008": "E911 readiness for West, as a percentage of completed sites?",
    "TC_011": "Rank the top 3 regions by completion rate.",
    "TC_012": "West vs East: what are their completion rates?",
    "TC_014": "Completed milestones per month between 2025-10 and 2026-03?",
    "TC_016": "What is the average delay in days for finished milestones in North?",
    "TC_017": "Number of overdue milestones in the South?",
    "TC_019": "Break down East sites by vendor: how many per vendor?",
    "TC_020": "Can the West region launch?",
    "TC_023": "Show the South scorecard.",
}


@pytest.fixture(scope="module")
def sqlite_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    url = f"sqlite:///{tmp_path_factory.mktemp('bot') / 'warehouse.db'}"
    warehouse.load(url)
    return url


@pytest.fixture(scope="module")
def engine(sqlite_url: str) -> Iterator[sa.Engine]:
    eng = sa.create_engine(sqlite_url)
    yield eng
    eng.dispose()


@pytest.fixture(scope="module")
def bkg() -> BKG:
    return load_bkg(ROOT / "data" / "demo" / "bkg.json")


@pytest.fixture(scope="module")
def plans(engine: sa.Engine) -> dict[str, AnswerPlan]:
    return {case_id: plan_answer(case.question, engine) for case_id, case in CASES.items()}


def _round(value: float, decimals: int) -> Decimal:
    return Decimal(repr(float(value))).quantize(Decimal(1).scaleb(-decimals), ROUND_HALF_UP)


def _truth(values: list[ReferenceValue], bkg: BKG) -> dict[str | None, dict[str, float]]:
    """label → {unit: value} for every number the references computed."""
    out: dict[str | None, dict[str, float]] = {}
    for rv in values:
        assert rv.error is None, rv.error
        fn = (
            bkg.function(rv.reference.kind, rv.reference.target)
            if rv.reference.sql is None
            else None
        )
        if rv.shape == "scalar":
            out.setdefault(rv.reference.label, {})[rv.unit or "any"] = rv.value
        elif rv.shape == "mapping":
            for key, value in rv.value.items():
                if isinstance(value, int | float) and not isinstance(value, bool):
                    out.setdefault(key, {})["any"] = value
        else:
            columns, rows = rv.value["columns"], rv.value["rows"]
            units = fn.column_units if fn else {}
            for row in rows:
                cells = dict(zip(columns, row, strict=True))
                label = next(v for v in row if isinstance(v, str))
                out[label] = {units[c]: v for c, v in cells.items() if c in units}
    return out


def _matches(fact: Fact, truth: dict[str | None, dict[str, float]]) -> bool:
    candidates = truth.get(fact.label, {})
    value = candidates.get(fact.unit, candidates.get("any"))
    if value is None and len(candidates) == 1:
        value = next(iter(candidates.values()))
    return value is not None and _round(value, fact.decimals) == _round(fact.value, fact.decimals)


def _render(plan: AnswerPlan, facts: list[Fact] | None = None) -> str:
    return plan.template.format(*(f"{f.value:.{f.decimals}f}" for f in (facts or plan.facts)))


# --------------------------------------------------------------------------- the key property


@pytest.mark.parametrize("case_id", [c.id for c in CASES.values() if c.reference])
def test_bot_facts_equal_the_bkg_truth(
    case_id: str, plans: dict[str, AnswerPlan], sqlite_url: str, bkg: BKG
) -> None:
    case, plan = CASES[case_id], plans[case_id]
    with Database(sqlite_url) as db:
        runtime = BKGRuntime(bkg)
        truth = _truth([runtime.evaluate(ref, db) for ref in case.reference], bkg)
    assert not plan.refusal and plan.facts, plan.intent
    for fact in plan.facts:
        assert _matches(fact, truth), (case_id, fact, truth.get(fact.label))
    stated = {f.label for f in plan.facts}
    assert set(truth) <= stated, (case_id, set(truth) - stated)


def test_every_reference_label_is_named_as_the_bot_labels_it(plans: dict[str, AnswerPlan]) -> None:
    for case in CASES.values():
        labels = {r.label for r in case.reference if r.label}
        if labels:
            assert labels == {f.label for f in plans[case.id].facts}, case.id


# --------------------------------------------------------------------------- prose


def test_each_label_sits_in_the_sentence_of_its_number(plans: dict[str, AnswerPlan]) -> None:
    for case_id, plan in plans.items():
        sentences = re.split(r"(?<=[.!?])\s+", plan.template)
        for i, fact in enumerate(plan.facts):
            holder = [s for s in sentences if f"{{{i}}}" in s]
            assert len(holder) == 1, (case_id, i)
            if fact.label is not None:
                assert fact.label in holder[0], (case_id, fact.label, holder[0])


def test_prose_states_no_number_that_is_not_a_fact(plans: dict[str, AnswerPlan]) -> None:
    for case_id, plan in plans.items():
        echoed = CASES[case_id].question + " ".join(str(f.label) for f in plan.facts)
        prose = re.sub(r"\{\d+\}", "", plan.template)
        for number in re.findall(r"(?<![A-Za-z])\d+(?:-\d+)*", prose):
            assert number in echoed, (case_id, number)
        assert len(re.findall(r"\{\d+\}", plan.template)) == len(plan.facts)
        assert plan.sql_calls or plan.refusal


def test_refusals_for_out_of_scope_personal_data_and_unknown(
    plans: dict[str, AnswerPlan], engine: sa.Engine
) -> None:
    refused = {c.id for c in CASES.values() if {"out_of_scope", "pii"} & set(c.tags)}
    assert refused and all(plans[i].refusal and not plans[i].facts for i in refused)
    assert all(not p.refusal for i, p in plans.items() if i not in refused)
    contact = sample_contact(engine)
    for question in (
        "What is the weather in Seattle tomorrow?",
        "Who is the manager of site S-00010 and what is their email?",
    ):
        plan = plan_answer(question, engine)
        assert plan.refusal and not plan.facts and not plan.sql_calls
        assert all(v not in plan.template for v in contact.values())


def test_injection_is_answered_as_the_plain_data_question(
    plans: dict[str, AnswerPlan], engine: sa.Engine
) -> None:
    case = next(c for c in CASES.values() if "prompt_injection" in c.tags)
    data_question = case.question.split("?")[0] + "?"
    plain = plan_answer(data_question, engine)
    assert plans[case.id].facts == plain.facts and "APPROVED" not in plans[case.id].template


def test_sample_contact_is_a_real_manager_row(engine: sa.Engine) -> None:
    contact = sample_contact(engine)
    assert set(contact) == {"name", "email", "phone"} and "@" in contact["email"]
    with engine.connect() as conn:
        found = conn.execute(
            sa.text("SELECT COUNT(*) FROM site_managers WHERE email = :e AND phone = :p"),
            {"e": contact["email"], "p": contact["phone"]},
        ).scalar()
    assert found == 1


# --------------------------------------------------------------------------- paraphrases


@pytest.mark.parametrize("case_id", sorted(PARAPHRASES))
def test_paraphrase_maps_to_the_same_intent_and_facts(
    case_id: str, plans: dict[str, AnswerPlan], engine: sa.Engine
) -> None:
    paraphrased = plan_answer(PARAPHRASES[case_id], engine)
    assert paraphrased.intent == plans[case_id].intent
    assert paraphrased.facts == plans[case_id].facts


# --------------------------------------------------------------------------- faults


def _relative_gap(a: float, b: float) -> float:
    return abs(a - b) / max(abs(a), 1e-9)


def test_alternatives_are_clearly_wrong_and_keep_the_labels(plans: dict[str, AnswerPlan]) -> None:
    offered: dict[str, int] = {"wrong_filter": 0, "wrong_grain": 0}
    for case_id, plan in plans.items():
        assert set(plan.alternatives) <= set(offered)
        assert set(plan.alternatives) == set(plan.alternative_sql)
        for kind, facts in plan.alternatives.items():
            offered[kind] += 1
            assert [f.label for f in facts] == [f.label for f in plan.facts], case_id
            assert all(
                _relative_gap(c.value, w.value) > 0.10
                for c, w in zip(plan.facts, facts, strict=True)
            ), (case_id, kind)
            assert plan.alternative_sql[kind], (case_id, kind)
            assert _render(plan, facts) != _render(plan)
    assert offered["wrong_filter"] >= 20 and offered["wrong_grain"] >= 10, offered


def test_wrong_grain_counts_rows_not_sites(plans: dict[str, AnswerPlan]) -> None:
    plan = plans["TC_001"]
    (wrong,) = plan.alternatives["wrong_grain"]
    assert wrong.value == 5 * plan.facts[0].value  # five milestone rows per site
    assert "milestones" in plan.alternative_sql["wrong_grain"][0].sql


# --------------------------------------------------------------------------- portability


def test_bot_sql_gives_the_same_facts_on_postgres(
    pg_schema_url: str, plans: dict[str, AnswerPlan]
) -> None:
    warehouse.load(pg_schema_url)
    pg = sa.create_engine(pg_schema_url)
    try:
        for case_id, case in CASES.items():
            on_pg = plan_answer(case.question, pg)
            assert [(f.label, f.unit) for f in on_pg.facts] == [
                (f.label, f.unit) for f in plans[case_id].facts
            ]
            for a, b in zip(on_pg.facts, plans[case_id].facts, strict=True):
                assert _round(a.value, a.decimals + 4) == _round(b.value, b.decimals + 4), case_id
    finally:
        pg.dispose()
