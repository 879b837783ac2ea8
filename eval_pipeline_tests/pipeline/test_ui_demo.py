"""Issue #16's browser check on the demo itself: the demo's warehouse, golden set and bot with
seeded faults evaluated into a real instance, the code location's webserver over it, and headless
Chromium finding the failed cases in ``judge_scores``' partition view and a failed partition's
contradicted claim with its expected value (``test_ui_cases`` does the same, and more, on the tiny
world in seconds).
"""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dagster import DagsterInstance

from eval_pipeline_tests.pipeline.test_ui_cases import (
    LOCATION,
    RUN,
    check_partitions,
    chromium_page,
    contradicted_case,
    open_check_partitions,
    serving_reports,
    wait_text,
)
from eval_pipeline_tests.pipeline.test_ui_staleness import (
    free_port,
    graphql,
    serving_location,
    write_instance_yaml,
)
from eval_pipeline_tests.seeded_demo import evaluate_seeded_demo

pytestmark = [pytest.mark.slow, pytest.mark.browser]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The 30 demo cases, answered by the demo bot with fault seed 3, served by the webserver."""
    tmp = tmp_path_factory.mktemp("ui-demo")
    home = tmp / "dagster"
    write_instance_yaml(home)
    viewer_url = f"http://127.0.0.1:{free_port()}"
    with DagsterInstance.from_config(str(home)) as instance:
        summary, overrides = evaluate_seeded_demo(
            tmp, RUN, instance, ttft_s=0.0, report_base_url=viewer_url
        )
    with (
        serving_reports(tmp, overrides["home"], viewer_url),
        serving_location(tmp, home, LOCATION.format(overrides=overrides)) as served,
    ):
        graphql(served, "mutation { setNuxSeen }")
        flagged = [c.case_id for c in summary.cases if not c.passed or c.warnings]
        written = Path(overrides["home"]) / "reports" / RUN / "summary.json"
        yield {
            "url": served,
            "summary": summary,
            "failed": flagged,
            "claims": {c["case_id"]: c["claims"] for c in json.loads(written.read_text())["cases"]},
        }


@pytest.fixture(scope="module")
def page(demo: dict[str, Any]) -> Iterator[Any]:
    with chromium_page() as opened:
        yield opened


def test_the_demo_runs_failed_cases_are_marked_and_name_their_contradicted_claim(
    demo: dict[str, Any], page: Any, tmp_path: Path
) -> None:
    summary = demo["summary"]
    assert len(summary.cases) == 30
    failed = set(demo["failed"])
    passed = {c.case_id for c in summary.cases} - failed
    assert failed and passed, "the seeded faults fail some cases and leave others"

    open_check_partitions(page, demo["url"], "judge_scores", "case_passed")
    wait_text(page, f"Failed ({len(failed)})")
    wait_text(page, f"Passed ({len(passed)})")
    found = check_partitions(demo["url"], "judge_scores", summary)
    assert found == {"failed": failed, "succeeded": passed}
    page.screenshot(path=str(tmp_path / "demo-case-check.png"), full_page=True)

    case = contradicted_case(summary)
    claim = next(c for c in demo["claims"][case] if c["verdict"] == "contradicted")
    query = urllib.parse.urlencode({"view": "partitions", "partition": f"{case}|{RUN}"})
    page.goto(f"{demo['url']}/assets/judge_scores?{query}")
    wait_text(page, "first_contradicted_claim")
    text = page.locator("body").inner_text()
    assert f"{claim['id']} contradicted: expected" in text
    assert claim["text"].strip() in text
    page.screenshot(path=str(tmp_path / "demo-judge-partition.png"), full_page=True)
