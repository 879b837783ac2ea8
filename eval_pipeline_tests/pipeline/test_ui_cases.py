"""Per-case results where users look: the real ``dagster-webserver`` over a real instance holding a
demo-like run, driven by playwright in Debian's headless Chromium.

The run's chatbot inflates units, so some cases are contradicted. The ``judge_scores`` asset's
``case_passed`` check must show those partitions failed in its partition view, a failed
partition's materialization metadata must name its contradicted claim with the expected value,
and its report link must point at the real ``eval-pipeline view`` (``EVAL_REPORT_BASE_URL``), not
a ``file://`` URL, and open the report at that case when clicked. After a warehouse refresh the
cases it invalidated show failed in ``oracle_verdicts``' ``verdicts_current`` partition view and
on the table's own page.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from dagster import AssetKey, DagsterInstance

from eval_pipeline.core.summary import RunSummary
from eval_pipeline.pipeline.resources import EvalSettings
from eval_pipeline.pipeline.sensors import warehouse_refresh
from eval_pipeline.runner.evaluate import evaluate
from eval_pipeline_tests.conftest import require_service
from eval_pipeline_tests.core.report.test_report_browser import CHROMIUM
from eval_pipeline_tests.pipeline.test_graph import tiny_overrides
from eval_pipeline_tests.pipeline.test_refresh_visible import readers_of, touch_products
from eval_pipeline_tests.pipeline.test_sensors import record, tick
from eval_pipeline_tests.pipeline.test_ui_staleness import (
    free_port,
    graphql,
    serving_location,
    wait_until,
    write_instance_yaml,
)

pytestmark = [pytest.mark.slow, pytest.mark.browser]

RUN = "r1"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
UI_TIMEOUT_MS = 30_000
LOCATION = """\
from eval_pipeline.pipeline.definitions import build_definitions

defs = build_definitions({overrides!r})
"""


@contextmanager
def serving_reports(tmp: Path, eval_home: str, url: str) -> Iterator[None]:
    """The real ``eval-pipeline view`` over ``eval_home``'s reports, listening at ``url``."""
    port = url.rsplit(":", 1)[1]
    log = (tmp / "view.log").open("wb")
    viewer = subprocess.Popen(
        [str(Path(sys.executable).with_name("eval-pipeline")), "view", "--port", port],
        env={**os.environ, "EVAL_HOME": eval_home},
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
    )

    def answering() -> bool:
        assert viewer.poll() is None, (tmp / "view.log").read_text()
        try:
            with urllib.request.urlopen(url, timeout=5) as reply:
                return bool(reply.status == 200)
        except (urllib.error.URLError, ConnectionError):
            return False

    try:
        wait_until(answering, "eval-pipeline view", 60)
        yield
    finally:
        viewer.terminate()
        viewer.wait(timeout=30)
        log.close()


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A finished run with contradicted cases, served by the webserver."""
    tmp = tmp_path_factory.mktemp("ui-cases")
    home = tmp / "dagster"
    write_instance_yaml(home)
    viewer_url = f"http://127.0.0.1:{free_port()}"
    overrides = {**tiny_overrides(tmp, "inflated_units"), "report_base_url": viewer_url}
    with DagsterInstance.from_config(str(home)) as instance:
        summary = evaluate(RUN, overrides=overrides, instance=instance)
        # then a warehouse refresh, its tick recorded but the cases it re-asks not yet run
        env = EvalSettings(overrides=overrides)
        record(instance, baseline := tick(warehouse_refresh, instance, env))
        touch_products(overrides["database_url"])
        record(instance, tick(warehouse_refresh, instance, env, baseline.cursor))
    with (
        serving_reports(tmp, overrides["home"], viewer_url),
        serving_location(tmp, home, LOCATION.format(overrides=overrides)) as url,
    ):
        graphql(url, "mutation { setNuxSeen }")
        # the check fails a case that failed (ERROR) or passed with warnings (WARN)
        flagged = [c.case_id for c in summary.cases if not c.passed or c.warnings]
        clean = [c.case_id for c in summary.cases if c.case_id not in flagged]
        yield {
            "url": url,
            "home": home,
            "viewer": viewer_url,
            "failed": flagged,
            "passed": clean,
            "summary": summary,
            "invalidated": readers_of("products"),
        }


def wait_text(page: Any, text: str) -> None:
    """Wait for ``text`` on the page; on timeout fail with what the page shows instead."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.get_by_text(text).first.wait_for()
    except PlaywrightTimeout:
        raise AssertionError(
            f"{text!r} not shown; the page reads:\n{page.inner_text('body')}"
        ) from None


CHECK_STATUSES = (
    "query ($asset: [String!]!) { assetNodeOrError(assetKey: {path: $asset}) { ... on AssetNode { "
    "assetChecksOrError { ... on AssetChecks { checks { name partitionStatuses { "
    "... on AssetCheckMultiPartitionStatuses { primaryDimensionName ranges { "
    "primaryDimStartKey primaryDimEndKey secondaryDim { "
    "... on AssetCheckDefaultPartitionStatuses { failedPartitions succeededPartitions "
    "} } } } } } } } } } }"
)


def check_partitions(url: str, asset: str, summary: RunSummary) -> dict[str, set[str]]:
    """The cases of ``RUN`` the webserver shows the asset's one check failed and succeeded for."""
    reply = graphql(url, CHECK_STATUSES, {"asset": [asset]})
    (check,) = reply["assetNodeOrError"]["assetChecksOrError"]["checks"]
    statuses = check["partitionStatuses"]
    assert statuses["primaryDimensionName"] == "case"
    order = [c.case_id for c in summary.cases]
    found: dict[str, set[str]] = {"failed": set(), "succeeded": set()}
    for row in statuses["ranges"]:  # consecutive cases of one status pattern form a range
        first, last = (order.index(row[f"primaryDim{end}Key"]) for end in ("Start", "End"))
        for kind in found:
            if row["secondaryDim"][f"{kind}Partitions"] == [RUN]:
                found[kind] |= set(order[first : last + 1])
    return found


def open_check_partitions(page: Any, url: str, asset: str, check: str) -> None:
    """The asset's page, its check's detail, the check's own Partitions tab."""
    query = urllib.parse.urlencode({"view": "checks", "checkDetail": check})
    page.goto(f"{url}/assets/{asset}?{query}")
    wait_text(page, "Execution history")  # the check's own tabs have rendered
    tabs = page.get_by_role("tab", name="Partitions")
    assert tabs.count() == 2, "the asset's Partitions tab and the check's"
    tabs.nth(1).click()


def contradicted_case(summary: RunSummary) -> str:
    return next(c.case_id for c in summary.cases if c.verdict_counts["contradicted"])


@contextmanager
def chromium_page() -> Iterator[Any]:
    """A page of Debian's headless Chromium, sized for the Dagster UI."""
    if not os.access(CHROMIUM, os.X_OK):
        require_service("Chromium", f"{CHROMIUM} not found; apt-get install chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(UI_TIMEOUT_MS)
        yield page
        browser.close()


@pytest.fixture(scope="module")
def page(evaluated: dict[str, Any]) -> Iterator[Any]:
    with chromium_page() as opened:
        yield opened


def test_the_case_check_marks_the_failed_cases_in_its_partition_view(
    evaluated: dict[str, Any], page: Any, tmp_path: Path
) -> None:
    assert evaluated["failed"] and evaluated["passed"], "the run needs both outcomes"
    assert any(not c.passed for c in evaluated["summary"].cases)
    open_check_partitions(page, evaluated["url"], "judge_scores", "case_passed")
    failed, passed = len(evaluated["failed"]), len(evaluated["passed"])
    wait_text(page, f"Failed ({failed})")
    wait_text(page, f"Passed ({passed})")
    found = check_partitions(evaluated["url"], "judge_scores", evaluated["summary"])
    assert found["failed"] == set(evaluated["failed"])
    assert found["succeeded"] == set(evaluated["passed"])
    page.screenshot(path=str(tmp_path / "case-check.png"), full_page=True)


def test_a_failed_partitions_metadata_names_its_contradicted_claim(
    evaluated: dict[str, Any], page: Any, tmp_path: Path
) -> None:
    case = contradicted_case(evaluated["summary"])
    partition = f"{case}|{RUN}"
    query = urllib.parse.urlencode({"view": "partitions", "partition": partition})
    page.goto(f"{evaluated['url']}/assets/judge_scores?{query}")
    wait_text(page, "first_contradicted_claim")
    text = page.locator("body").inner_text()
    assert "No metadata entries" not in text
    assert "C1 contradicted: expected" in text and "kpi units_sold" in text
    link = f"{evaluated['viewer']}/runs/{RUN}/report.html#case-{case}"
    assert link in page.content()
    page.screenshot(path=str(tmp_path / "judge-partition.png"), full_page=True)

    # a click on the link opens the served report at that case
    with page.context.expect_page() as opened:
        page.locator(f'a[href="{link}"]').first.click()
    report = opened.value
    report.locator(f'.detail[data-case="{case}"]').wait_for()
    assert "contradicted" in report.locator(f'.detail[data-case="{case}"]').inner_text()
    report.close()

    page.goto(
        f"{evaluated['url']}/assets/oracle_verdicts?"
        + urllib.parse.urlencode({"view": "partitions", "partition": partition})
    )
    wait_text(page, "claims_table")
    oracle = page.locator("body").inner_text()
    assert "contradicted" in oracle and "expected" in oracle


def test_the_report_link_of_the_run_points_at_the_viewer(evaluated: dict[str, Any]) -> None:
    with DagsterInstance.from_config(str(evaluated["home"])) as instance:
        (record,) = instance.fetch_materializations(AssetKey("eval_report"), limit=1).records
    url = record.asset_materialization.metadata["report_url"].value
    assert url == f"{evaluated['viewer']}/runs/{RUN}/report.html"
    assert json.dumps(url).find("file://") < 0


def test_the_cases_a_warehouse_refresh_invalidated_show_at_once_in_a_check(
    evaluated: dict[str, Any], page: Any, tmp_path: Path
) -> None:
    invalidated = evaluated["invalidated"]
    assert 0 < len(invalidated) < len(evaluated["summary"].cases)
    open_check_partitions(page, evaluated["url"], "oracle_verdicts", "verdicts_current")
    wait_text(page, f"Failed ({len(invalidated)})")
    page.screenshot(path=str(tmp_path / "verdicts-current.png"), full_page=True)
    found = check_partitions(evaluated["url"], "oracle_verdicts", evaluated["summary"])
    assert found == {"failed": set(invalidated), "succeeded": set()}

    # the table's page lists them too, from its latest observation
    page.goto(f"{evaluated['url']}/assets/warehouse/products")
    wait_text(page, "invalidated_verdicts")
    text = page.locator("body").inner_text()
    assert all(f"{case} (oracle_verdicts {case}|{RUN})" in text for case in invalidated), text
    page.screenshot(path=str(tmp_path / "warehouse-table.png"), full_page=True)
