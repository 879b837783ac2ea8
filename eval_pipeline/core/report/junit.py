"""A run summary as JUnit XML, so any CI server shows failed cases like failed tests.

A failed case carries its gate reasons as the failure message — each contradicted claim named with
what it stated, the expected value and the reference, when the summary lists the case's claims (as
``summary.json`` does) — and its warnings as the body; a case whose chatbot call failed is an
``<error>``, matching the summary's rule that an errored case is
neither passed nor failed. Chatbot and judge text may hold characters XML 1.0 cannot represent at
all (escaping does not help), so those are dropped before ElementTree escapes the rest.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping

from eval_pipeline.core.report.claim_text import contradictions
from eval_pipeline.core.summary import CaseSummary, RunSummary

_INVALID_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _clean(value: object) -> str:
    return _INVALID_XML.sub("", str(value))


def _score(value: float | None) -> str:
    return "" if value is None else f"{value:.4f}"


def _properties(parent: ET.Element, items: Mapping[str, str]) -> None:
    props = ET.SubElement(parent, "properties")
    for name, value in items.items():
        ET.SubElement(props, "property", name=_clean(name), value=_clean(value))


def _case_properties(case: CaseSummary) -> dict[str, str]:
    props = {"overall": _score(case.overall), "profile": case.profile}
    for name, dim in case.dimensions.items():
        props[f"dimension.{name}"] = _score(dim.score) if dim.state == "scored" else dim.state
    for verdict, count in case.verdict_counts.items():
        props[f"claims.{verdict}"] = str(count)
    return props


def junit_xml(summary: RunSummary) -> str:
    """One ``<testcase>`` per case of the run summary (docs/formats.md), as an XML string."""
    run_key = _clean(summary.run_key)
    cases = summary.cases
    errors = sum(c.result == "error" for c in cases)
    failures = sum(c.result == "fail" for c in cases)
    counts = {"tests": str(len(cases)), "failures": str(failures), "errors": str(errors)}
    root = ET.Element("testsuites", {"name": "eval_pipeline", **counts})
    suite = ET.SubElement(
        root,
        "testsuite",
        {
            "name": f"eval_pipeline.{run_key}",
            **counts,
            "skipped": "0",
            "timestamp": _clean(summary.created_at),
        },
    )
    _properties(
        suite,
        {
            "pass_rate": _score(summary.pass_rate),
            "coverage": _score(summary.coverage),
            "mean_overall": _score(summary.mean_overall),
            "report_path": summary.report_path,
        },
    )
    for case in cases:
        element = ET.SubElement(
            suite, "testcase", classname=f"eval_pipeline.{run_key}", name=_clean(case.case_id)
        )
        _properties(element, _case_properties(case))
        contradicted = contradictions(case.claims or [])
        reasons = "; ".join([*case.gate_failures, *contradicted])
        if case.result == "error":
            problem = ET.SubElement(element, "error", message=_clean(reasons), type="chatbot")
        elif case.result == "fail":
            problem = ET.SubElement(element, "failure", message=_clean(reasons), type="gate")
        else:
            problem = None
        if problem is not None:
            lines = [*case.gate_failures, *contradicted, *case.warnings]
            problem.text = _clean("\n".join(lines))
        elif case.warnings:
            ET.SubElement(element, "system-out").text = _clean("\n".join(case.warnings))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
