"""``eval-pipeline demo --world helpdesk`` from the command line, compared with the assistant's
hidden fault record: every injected fault is found on its own axis, and no other case is accused.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from eval_pipeline.demo.helpdesk import PRODUCTS
from eval_pipeline.settings import PROJECT_ROOT

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    home = tmp_path_factory.mktemp("helpdesk-demo")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EVAL_", "DAGSTER_HOME"))}
    env["EVAL_HOME"] = str(home)
    result = subprocess.run(
        [sys.executable, "-m", "eval_pipeline.cli.main", "demo", "--world", "helpdesk"],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    last = Path(result.stdout.strip().splitlines()[-1])
    logged = next(
        Path(line.split(": ", 1)[1])
        for line in result.stdout.splitlines()
        if line.startswith("logged conversations summary: ")
    )
    world = home / "helpdesk" / "world"
    faults = [json.loads(line) for line in (world / "faults.jsonl").read_text().splitlines()]
    return {
        "summary_path": last,
        "golden": json.loads(last.read_text()),
        "logged": json.loads(logged.read_text()),
        "faults": faults,
        "golden_set": json.loads((PROJECT_ROOT / "data/helpdesk/golden_dataset.json").read_text()),
        "results_url": f"sqlite:///{home / 'helpdesk' / 'results.db'}",
        "log_url": f"sqlite:///{world / 'conversations.db'}",
    }


def dims(case: dict[str, Any]) -> dict[str, float | None]:
    return {name: d["score"] for name, d in case["dimensions"].items()}


CATALOGUE = {name: price for _, name, _, price in PRODUCTS}


def wrong_price_found(case: dict[str, Any]) -> bool:
    """A quoted price contradicted by the catalogue price of the product it names, and the
    rubric's price dimension failing the case by the oracle with that evidence."""
    evidence = [
        (claim["value"], e["label"], e["value"])
        for claim in case["claims"]
        if claim["verdict"] == "contradicted"
        for e in claim["evidence"]
        if e["source"] == "precio_catalogo"
    ]
    price = case["dimensions"]["rubric.precision_precio"]
    return (
        bool(evidence)
        and all(CATALOGUE[label] == value != quoted for quoted, label, value in evidence)
        and price["method"] == "oracle"
        and price["reason"].startswith("contradicted by the live data")
        and all(f"differs from {label} = " in price["reason"] for _, label, _ in evidence)
        and any(g.startswith("rubric.precision_precio: ") for g in case["gate_failures"])
        and not case["passed"]
    )


def found(fault: str, case: dict[str, Any]) -> bool:
    """The fault shows on its own axis of the case (the hidden record is never read by it)."""
    d = dims(case)
    if fault == "wrong_price":
        return wrong_price_found(case) and d["rubric.precision_precio"] == 0.0
    if fault == "missing_approval":
        return d["rubric.autorizacion_descuento"] == 0.0 and not case["passed"]
    if fault == "incomplete_registration":
        return d["rubric.completitud_crm"] == 0.0 and not case["passed"]
    if fault == "wrong_route":
        return d["routing"] == 0.0 and not case["passed"]
    if fault == "off_topic_tone":  # a warning, or the gate of an answer that answers nothing
        flagged = [*case["warnings"], *case["gate_failures"]]
        return (d["on_topic"] or 0.0) < 0.5 and any(w.startswith("on_topic") for w in flagged)
    raise AssertionError(fault)


def test_the_summary_path_is_printed_last_with_rubric_and_routing_dimensions(
    demo: dict[str, Any],
) -> None:
    assert demo["summary_path"].name == "summary.json" and demo["summary_path"].is_file()
    golden = demo["golden"]
    names = set().union(*(c["dimensions"] for c in golden["cases"]))
    assert {
        "rubric.precision_precio",
        "rubric.cita_fuentes",
        "rubric.autorizacion_descuento",
        "rubric.completitud_crm",
        "rubric.tono",
        "rubric.longitud",
        "routing",
        "answered",
    } <= names
    assert golden["routing"]["cases"] == len(demo["golden_set"])
    assert sum(golden["routing"]["confusion"]["catalogo_precios"].values()) == 4


def test_every_golden_fault_is_found_and_no_other_case_is_accused(demo: dict[str, Any]) -> None:
    by_question = {c["question"]: c["id"] for c in demo["golden_set"]}
    cases = {c["case_id"]: c for c in demo["golden"]["cases"]}
    faulted: dict[str, str] = {}
    for record in demo["faults"]:
        if record["question"] in by_question:
            faulted[by_question[record["question"]]] = record["fault"]
    assert set(faulted.values()) == {
        "wrong_price",
        "missing_approval",
        "incomplete_registration",
        "wrong_route",
        "off_topic_tone",
    }, "the default seed injects one fault of each kind into the golden cases"
    for case_id, fault in faulted.items():
        assert found(fault, cases[case_id]), (case_id, fault, cases[case_id])
    for case_id, case in cases.items():
        if case_id not in faulted:
            assert case["passed"], (case_id, case["gate_failures"])
            assert case["verdict_counts"]["contradicted"] == 0, case_id


def test_logged_conversations_are_evaluated_without_asking_and_their_faults_found(
    demo: dict[str, Any],
) -> None:
    logged = demo["logged"]
    assert logged["calls"]["chatbot"] == 0
    cases = {c["case_id"].removeprefix("conv."): c for c in logged["cases"]}
    engine = sa.create_engine(demo["log_url"])
    with engine.connect() as conn:
        conversations = {
            r[0]
            for r in conn.execute(sa.text("SELECT DISTINCT conversation_id FROM conversations"))
        }
    engine.dispose()
    assert set(cases) == conversations  # every logged conversation, golden run and traffic
    faulted = {r["conversation_id"]: r["fault"] for r in demo["faults"]}
    # found without an expected intent, tags or an LLM: a wrong price (the oracle binds the
    # answer to the catalogue) and a registration missing a field (the logged tool call)
    for conversation_id, fault in faulted.items():
        if fault in ("wrong_price", "incomplete_registration"):
            assert found(fault, cases[conversation_id]), (conversation_id, fault)
    for conversation_id, case in cases.items():
        if conversation_id not in faulted:
            assert case["verdict_counts"]["contradicted"] == 0, conversation_id

    engine = sa.create_engine(demo["results_url"])
    with engine.connect() as conn:
        rows = conn.execute(
            sa.text("SELECT conversation_id, dimension FROM evaluations WHERE run_key = :r"),
            {"r": logged["run_key"]},
        ).all()
    engine.dispose()
    assert {r[0] for r in rows} == conversations
    assert len(rows) == sum(len(c["dimensions"]) for c in logged["cases"])
