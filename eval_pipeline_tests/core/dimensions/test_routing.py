"""The routing and answered dimensions, their gates, the confusion matrix, routing regressions."""

from __future__ import annotations

from pathlib import Path

from eval_pipeline.core.aggregate import GatePolicy, judge_case, routing_summary, summarize_run
from eval_pipeline.core.analysis.compare import compare_runs
from eval_pipeline.core.dimensions.routing import answered_dimension, routing_dimension
from eval_pipeline.core.models import ChatPayload, GoldenCase, ToolCall
from eval_pipeline.core.summary import CaseRoute, RouteChange
from eval_pipeline.environment import Environment
from eval_pipeline.settings import BARE_WEIGHTS, FULL_WEIGHTS, load_settings
from eval_pipeline_tests.production_storage import tiny_sqlite_settings


def payload(intent: str | None, answer: str = "respuesta", **kw: object) -> ChatPayload:
    return ChatPayload(case_id="c", question="q", answer=answer, intent=intent, **kw)  # type: ignore[arg-type]


CASE = GoldenCase(id="c", question="q", expected_intent="catalogo_precios")


def test_routing_scores_the_exact_match_and_the_expected_tools() -> None:
    right = routing_dimension(CASE, payload("catalogo_precios"))
    assert (right.state, right.score, right.reason) == ("scored", 1.0, "routed to catalogo_precios")
    wrong = routing_dimension(CASE, payload("politicas_comerciales"))
    assert (wrong.score, wrong.reason) == (
        0.0,
        "routed to politicas_comerciales, expected catalogo_precios",
    )
    assert wrong.details["intent"] == "politicas_comerciales"
    tools = CASE.model_copy(update={"expected_tools": ["buscar_catalogo"]})
    missing = routing_dimension(tools, payload("catalogo_precios"))
    assert (missing.score, missing.reason) == (0.0, "did not call buscar_catalogo")
    called = payload("catalogo_precios", tool_calls=[ToolCall(id="1", name="buscar_catalogo")])
    assert routing_dimension(tools, called).score == 1.0


def test_routing_is_skipped_without_an_expectation_and_an_error_without_an_intent() -> None:
    plain = GoldenCase(id="c", question="q")
    assert routing_dimension(plain, payload("x")).state == "skipped"
    silent = routing_dimension(CASE, payload(None))
    assert silent.state == "error" and "EVAL_CHATBOT_INTENT_PATH" in silent.reason
    failed = payload(None, status="error", errors=["boom"])
    assert routing_dimension(CASE, failed).state == "error"


def test_answered_is_the_structural_test() -> None:
    assert answered_dimension(payload("x")).score == 1.0
    assert answered_dimension(payload("x", answer=" ")).score == 0.0
    failed = answered_dimension(payload(None, answer="", status="error", errors=["HTTP 500"]))
    assert (failed.score, failed.reason) == (0.0, "the call failed: HTTP 500")


POLICY = GatePolicy(
    weights=FULL_WEIGHTS, weights_bare=BARE_WEIGHTS, gates={"answered": 1.0, "routing": 1.0}
)


def outcome(case: GoldenCase, answer: ChatPayload, **kw: object):  # type: ignore[no-untyped-def]
    dims = {"routing": routing_dimension(case, answer), "answered": answered_dimension(answer)}
    args = {"has_expected_answer": False, "has_reference": False, "chatbot_errors": []}
    return judge_case(case.id, dims, policy=POLICY, **{**args, **kw})  # type: ignore[arg-type]


def test_a_wrong_route_and_an_empty_answer_are_gates_distinct_from_quality() -> None:
    misrouted = outcome(CASE, payload("mixta"))
    assert not misrouted.passed
    assert misrouted.gate_failures[0] == "routing: routed to mixta, expected catalogo_precios"
    empty = outcome(CASE, payload("catalogo_precios", answer=""))
    assert empty.gate_failures[0] == "answered: the answer is empty"
    failed = payload(None, answer="", status="error", errors=["timeout"])
    crashed = outcome(CASE, failed, chatbot_errors=["timeout"])
    assert crashed.state == "error" and crashed.gate_failures == ["chatbot: timeout"]


def cases(routes: dict[str, tuple[str, str | None]]) -> list:  # type: ignore[type-arg]
    return [
        outcome(
            GoldenCase(id=cid, question="q", expected_intent=expected), payload(got)
        ).model_copy(update={"case_id": cid})
        for cid, (expected, got) in routes.items()
    ]


def test_the_confusion_matrix_counts_expected_against_routed() -> None:
    out = cases(
        {
            "a": ("catalogo_precios", "catalogo_precios"),
            "b": ("catalogo_precios", "mixta"),
            "c": ("mixta", "mixta"),
            "d": ("accion_registro", None),
        }
    )
    summary = routing_summary(out)
    assert summary.model_dump() == {
        "cases": 4,
        "correct": 2,
        "accuracy": 0.5,
        "intents": ["(none)", "accion_registro", "catalogo_precios", "mixta"],
        "confusion": {
            "accion_registro": {"(none)": 1},
            "catalogo_precios": {"catalogo_precios": 1, "mixta": 1},
            "mixta": {"mixta": 1},
        },
    }
    run = summarize_run("r", out, report_path="x")
    assert run.routing == summary
    assert run.cases[1].routing == CaseRoute(expected="catalogo_precios", intent="mixta")


def test_compare_lists_routing_regressions_and_improvements() -> None:
    base = summarize_run(
        "base",
        cases({"a": ("x", "x"), "b": ("y", "z"), "c": ("x", "x")}),
        report_path="",
    )
    head = summarize_run(
        "head",
        cases({"a": ("x", "y"), "b": ("y", "y"), "c": ("x", "x")}),
        report_path="",
    )
    routing = compare_runs(base, head).routing
    assert routing.cases == 3
    assert (routing.base_accuracy, routing.head_accuracy) == (0.6667, 0.6667)
    assert routing.regressions == [
        RouteChange(case_id="a", expected="x", base_intent="x", head_intent="y")
    ]
    assert [c.case_id for c in routing.improvements] == ["b"]
    from eval_pipeline.cli.compare import format_comparison

    text = format_comparison(compare_runs(base, head))
    assert "routing regressions: 1" in text
    assert "a: now misrouted: expected x, x → y" in text


def test_the_report_shows_the_confusion_matrix() -> None:
    import re

    from eval_pipeline.core.report.html import render_report

    out = cases({"a": ("x<y", "x<y"), "b": ("x<y", "z"), "c": ("z", "z")})
    html = render_report(summarize_run("r", out, report_path="/tmp/r.html"), {})
    table = re.search(r'<table id="confusion-matrix".*?</table>', html, re.S)
    assert table is not None and "2 of 3 cases routed to their expected intent" in html
    rows = re.findall(r"<tr><th>(.*?)</th>(.*?)</tr>", table.group(0), re.S)
    cells = {h: re.findall(r'<td class="(\w*)">(\d*)</td>', b) for h, b in rows[1:]}
    assert cells == {"x&lt;y": [("pass", "1"), ("fail", "1")], "z": [("", ""), ("pass", "1")]}


def test_a_wrong_route_is_a_gate_unless_the_routing_gate_is_off(tmp_path: Path) -> None:
    """``EVAL_ROUTING_GATE=false`` keeps routing scored but takes its gate away."""
    misrouted = {"routing": routing_dimension(CASE, payload("mixta"))}
    misrouted["answered"] = answered_dimension(payload("mixta"))
    args = {"has_expected_answer": False, "has_reference": False, "chatbot_errors": []}
    verdicts = {}
    for gate in ("true", "false"):
        env = Environment(load_settings(**tiny_sqlite_settings(tmp_path / gate), routing_gate=gate))
        try:
            result = judge_case(CASE.id, misrouted, policy=env.policy, **args)  # type: ignore[arg-type]
        finally:
            env.close()
        verdicts[gate] = (result.gate_failures, result.dimensions["routing"].score)
    routing_gate = "routing: routed to mixta, expected catalogo_precios"
    assert routing_gate in verdicts["true"][0]
    assert routing_gate not in verdicts["false"][0]
    assert verdicts["true"][1] == verdicts["false"][1] == 0.0, "scored either way"
