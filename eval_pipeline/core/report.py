"""Self-contained HTML report: one file, no network, every value escaped by jinja2."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape

_ENV = Environment(
    loader=PackageLoader("eval_pipeline", "templates"),
    autoescape=select_autoescape(["html"]),
    trim_blocks=True,
    lstrip_blocks=True,
)


def _fmt(value: Any, digits: int = 2) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


_ENV.filters["fmt"] = _fmt


def case_details(
    case_id: str, details: Mapping[str, Mapping[str, Mapping[str, Any]]]
) -> dict[str, Any]:
    """Join a case's response, claims and verdicts so the template can show claim → evidence."""
    response = details.get("chatbot_responses", {}).get(case_id, {})
    claims = details.get("extracted_claims", {}).get(case_id, {}).get("claims", [])
    oracle = details.get("oracle_verdicts", {}).get(case_id, {})
    verdicts = {v["claim_id"]: v for v in oracle.get("verdicts", [])}
    return {
        "response": response,
        "claims": [{**c, "verdict": verdicts.get(c["id"])} for c in claims],
        "references": oracle.get("references", []),
        "oracle_error": oracle.get("error"),
    }


def render_report(
    summary: Mapping[str, Any], details: Mapping[str, Mapping[str, Mapping[str, Any]]]
) -> str:
    cases = [{**c, "detail": case_details(c["case_id"], details)} for c in summary["cases"]]
    dimensions = sorted({d for c in summary["cases"] for d in c["dimensions"]})
    return _ENV.get_template("report.html").render(
        summary=summary, cases=cases, dimensions=dimensions
    )
