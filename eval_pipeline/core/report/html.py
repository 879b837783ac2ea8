"""Self-contained HTML report: one file, no network, every value from the chatbot escaped.

The summary, the charts and the filters are rendered by jinja2 with autoescape on. The cases
travel as one JSON blob (escaped as ``|tojson`` would: ``<``, ``>``, ``&`` and ``'``) and a small
script pages through them, so a run of 10,000 cases costs 100 table rows in the DOM, not 10,000;
the script writes data only through ``textContent``.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup

from eval_pipeline.core.dimensions.safety import mask_pii
from eval_pipeline.core.models import DIMENSION_STATES, FUNCTION_KINDS, in_dimension_order
from eval_pipeline.core.report.charts import Series, histogram, line_chart
from eval_pipeline.core.report.claim_results import Details, case_claims
from eval_pipeline.core.report.claim_text import ClaimSentences, format_value
from eval_pipeline.core.summary import CaseChange, CaseSummary, Comparison, Cost, RunSummary

DetailLoader = Callable[[Sequence[str]], Details]  # case ids → their records, per asset

PAGE_SIZE = 100
DETAIL_CHUNK = 500
VALUE_CHARS = 2000

_ENV = Environment(
    loader=PackageLoader("eval_pipeline", "templates"),
    autoescape=select_autoescape(["html"]),
    trim_blocks=True,
    lstrip_blocks=True,
)
_ENV.policies["json.dumps_kwargs"] = {"separators": (",", ":"), "default": str}


def _fmt(value: Any, digits: int = 2) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _pct(value: Any) -> str:
    return "—" if value is None else f"{value * 100:.1f}%"


_ENV.filters["fmt"] = _fmt
_ENV.filters["pct"] = _pct


def _clip(value: Any) -> str:
    """A stored value as display text, clipped so one huge reference table cannot bloat the file."""
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= VALUE_CHARS else text[:VALUE_CHARS] + f"… ({len(text)} chars)"


def _params(params: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items())


def _evidence(items: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Evidence as ``claim_results`` lists it, with its params and value as display text, a
    number formatted as its reference's unit says."""
    return [
        {**e, "params": _params(e["params"]), "value": _shown_value(e["value"], e["unit"])}
        for e in items
    ]


def case_details(case_id: str, details: Details, *, show_pii: bool = False) -> dict[str, Any]:
    """Join a case's response, claim contract and verdicts into what its drill-down shows; PII
    in the answer is masked as the safety gate reports it unless ``show_pii``."""
    response = details.get("chatbot_responses", {}).get(case_id, {})
    oracle = details.get("oracle_verdicts", {}).get(case_id, {})
    answer = response.get("answer", "")
    sentences = ClaimSentences(answer, show_pii=show_pii)
    return {
        "question": response.get("question", ""),
        "answer": answer if show_pii else mask_pii(answer),
        "response_status": response.get("status", "ok" if response else "missing"),
        "errors": list(response.get("errors", [])),
        "latency_s": response.get("latency_s"),
        "ttft_s": response.get("ttft_s"),
        "tokens_per_s": response.get("tokens_per_s"),
        "max_chunk_gap_s": response.get("max_chunk_gap_s"),
        "chunk_count": response.get("chunk_count"),
        "attempts": response.get("attempts"),
        "transport": response.get("transport", ""),
        "sql": [c["sql"] for c in response.get("tool_calls", []) if c.get("sql")],
        "claims": [
            {
                **c,
                "text": c["text"] if show_pii else mask_pii(c["text"]),
                "sentence": sentences.of(c["span"]),
                "evidence": _evidence(c["evidence"]),
            }
            for c in case_claims(case_id, details)
        ],
        "references": [_reference(r) for r in oracle.get("references", [])],
        "oracle_error": oracle.get("error"),
    }


def _shown_value(value: Any, unit: str | None) -> Any:
    """A number as its unit reads (93.4 %, not 93.44262295081967); anything else clipped."""
    numeric = isinstance(value, int | float) and not isinstance(value, bool)
    return format_value(value, unit) if numeric else _clip(value)


def _reference(stored: Mapping[str, Any]) -> dict[str, Any]:
    """A recomputed reference as the drill-down shows it, a scalar in the reference's unit."""
    ref = stored.get("reference", {})
    kind = next((k for k in FUNCTION_KINDS if ref.get(k)), None)
    value = stored.get("value")
    return {
        "target": f"{kind} {ref[kind]}" if kind else "sql",
        "params": _params(ref.get("params") or {}),
        "label": ref.get("label"),
        "sql": ref.get("sql"),
        "value": None if stored.get("error") else _shown_value(value, stored.get("unit")),
        "error": stored.get("error"),
    }


def case_issues(case: CaseSummary) -> dict[str, str]:
    """Dimension → ``fail`` (failed a gate), ``error`` or ``warn`` (warning), worst first.

    Gate failures and warnings are reasons prefixed by the dimension name (see aggregate.py).
    """
    dims = case.dimensions
    issues = {name: "error" for name, dim in dims.items() if dim.state == "error"}
    for reason in case.warnings:
        issues.setdefault(reason.split(":", 1)[0], "warn")
    for reason in case.gate_failures:
        issues[reason.split(":", 1)[0]] = "fail"
    return {name: kind for name, kind in issues.items() if name in dims}


def _percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def _timing_chart(values: Sequence[float], title: str, colour: str) -> dict[str, Any]:
    caption = (
        f"p50 {_percentile(values, 0.5):.2f} s · p95 {_percentile(values, 0.95):.2f} s · "
        f"max {max(values):.2f} s · n={len(values)}"
        if values
        else "no timings recorded"
    )
    return {
        "svg": histogram(values, title=title, x_label="seconds", colour=colour),
        "caption": caption,
    }


def _dimension_charts(summary: RunSummary, dimensions: Sequence[str]) -> list[dict[str, Any]]:
    charts = []
    for name in dimensions:
        scores = [s for c in summary.cases if (s := c.dimension_score(name)) is not None]
        states = summary.dimension_states.get(name, {})
        charts.append(
            {
                "name": name,
                "svg": histogram(scores, title=name, x_label="score", lo=0.0, hi=1.0),
                "mean": summary.dimension_means.get(name),
                "states": {s: states.get(s, 0) for s in DIMENSION_STATES},
            }
        )
    return charts


def _trend_chart(summary: RunSummary, history: Sequence[RunSummary]) -> Markup:
    runs = [*history, summary]
    return line_chart(
        [r.run_key for r in runs],
        [
            Series("pass rate", [r.pass_rate for r in runs], "#1a7f37"),
            Series("mean overall", [r.mean_overall for r in runs], "#4f6bed"),
        ],
        title="Trend across runs",
        x_label=f"run (oldest → newest, {len(runs)} runs)",
        y_label="rate / score",
    )


def _usd(value: Any) -> str:
    return "—" if value is None else f"${value:,.4f}"


def _cost(cost: Cost | None) -> dict[str, Any]:
    """Judge spend as a headline figure plus detail lines."""
    if cost is None:
        return {"main": "—", "lines": []}
    lines = [
        f"{cost.judge_calls} judge calls, {cost.cached_calls} cached",
        f"{cost.input_tokens:,} tokens in · {cost.output_tokens:,} out",
        *(f"{name} {_usd(usd)}" for name, usd in cost.usd_by_dimension.items()),
    ]
    return {"main": _usd(cost.usd), "lines": lines}


def _case_marks(comparison: Comparison | None) -> dict[str, str]:
    if comparison is None:
        return {}
    marks = {r.case_id: "improved" for r in comparison.improvements}
    marks.update({r.case_id: "regressed" for r in comparison.regressions})
    return marks


def _change_text(item: CaseChange) -> str:
    """One line on what changed for a case."""
    parts = [f"{item.base_result} → {item.head_result}"]
    if item.overall_delta is not None:
        parts.append(f"overall {_fmt(item.base_overall)} → {_fmt(item.head_overall)}")
    parts += [f"new gate {g}" for g in item.gates_added]
    parts += [f"gate gone {g}" for g in item.gates_removed]
    parts += [f"{k} {v:+d}" for k, v in item.verdict_changes.items()]
    parts += [
        f"{d.dimension} {d.delta:+.2f}" for d in item.dimension_changes if d.delta is not None
    ]
    return "; ".join(parts)


def _comparison_view(comparison: Comparison | None) -> dict[str, Any] | None:
    if comparison is None:
        return None
    return {
        "significant": comparison.significant_regression,
        "reasons": comparison.significance_reasons,
        "p": comparison.mcnemar.p_value,
        "pass_to_fail": comparison.mcnemar.pass_to_fail,
        "fail_to_pass": comparison.mcnemar.fail_to_pass,
        "delta": comparison.overall.mean_delta,
        "lo": comparison.overall.ci_low,
        "hi": comparison.overall.ci_high,
        "level": f"{comparison.bootstrap.level:.0%}",
        "baseline": comparison.base_run_key,
        "paired": comparison.paired_cases,
        "dimensions": comparison.dimensions,
        "regressions": [
            {"case_id": r.case_id, "detail": _change_text(r)} for r in comparison.regressions
        ],
        "improvements": [
            {"case_id": r.case_id, "detail": _change_text(r)} for r in comparison.improvements
        ],
        "answered_pairs": comparison.answered_pairs,
        "error_changes": {
            kind: [r.case_id for r in changes] for kind, changes in comparison.error_changes
        },
    }


def _case_row(case: CaseSummary, detail: dict[str, Any], mark: str | None) -> Markup:
    """One case of the table as script-safe JSON (what ``|tojson`` would give)."""
    row = {
        "id": case.case_id,
        "status": case.result,
        "overall": case.overall,
        "profile": case.profile,
        "tags": case.tags,
        "q": detail["question"],
        "dims": {name: d.model_dump(mode="json") for name, d in case.dimensions.items()},
        "issues": case_issues(case),
        "vc": case.verdict_counts,
        "gates": case.gate_failures,
        "warnings": case.warnings,
        "mark": mark,
        "detail": detail,
    }
    return htmlsafe_json_dumps(row, **_ENV.policies["json.dumps_kwargs"])


def render_report(
    summary: RunSummary,
    details: Details | DetailLoader,
    *,
    history: Sequence[RunSummary] | None = None,
    show_pii: bool = False,
) -> str:
    """The report of one run; ``history`` is the earlier run summaries (oldest first, without
    this run), shown only when given, and the summary's ``comparison`` against the baseline run
    when it has one. PII in answers is masked as the safety gate reports it unless
    ``show_pii``.

    ``details`` may load the records of a few cases at a time (``DETAIL_CHUNK``): each case is
    turned into its JSON row at once, so a 10,000-case run never holds every record as objects.
    """
    load = details if callable(details) else lambda _ids: details
    dimensions = in_dimension_order(d for c in summary.cases for d in c.dimensions)
    marks = _case_marks(summary.comparison)
    rows: list[str] = []  # script-safe JSON, joined without Markup's escaping
    timings: dict[str, list[float]] = {"latency_s": [], "ttft_s": []}
    cases = summary.cases
    for start in range(0, len(cases), DETAIL_CHUNK):
        chunk = cases[start : start + DETAIL_CHUNK]
        loaded = load([c.case_id for c in chunk])
        for case in chunk:
            response = loaded.get("chatbot_responses", {}).get(case.case_id, {})
            for key, values in timings.items():
                if response.get(key) is not None:
                    values.append(response[key])
            detail = case_details(case.case_id, loaded, show_pii=show_pii)
            rows.append(str(_case_row(case, detail, marks.get(case.case_id))))
    head = htmlsafe_json_dumps(
        {"dimensions": dimensions, "page_size": PAGE_SIZE}, **_ENV.policies["json.dumps_kwargs"]
    )
    data = Markup(str(head)[:-1] + ',"cases":[' + ",".join(rows) + "]}")
    tags = Counter(t for c in cases for t in c.tags)
    return _ENV.get_template("report.html").render(
        summary=summary,
        dimensions=dimensions,
        dimension_charts=_dimension_charts(summary, dimensions),
        latency_chart=_timing_chart(timings["latency_s"], "Latency", "#8250df"),
        ttft_chart=_timing_chart(timings["ttft_s"], "Time to first token", "#bf3989"),
        trend_chart=_trend_chart(summary, history) if history else None,
        history_runs=len(history or ()),
        cost=_cost(summary.cost),
        comparison=_comparison_view(summary.comparison),
        tags=sorted(tags.items()),
        page_size=PAGE_SIZE,
        data=data,
    )
