"""Staleness as the Dagster UI shows it: a real ``dagster-webserver`` over a real instance.

After a finished evaluation, one golden case is edited and re-materialized (as the
``golden_dataset_sync`` sensor does) and the code location the webserver loads bumps
``judge_scores``' code version. The webserver's GraphQL API must then report exactly the affected
partitions stale, each with its cause, and the asset page in headless Chromium must show the
"Unsynced" tag on a stale partition and none on a fresh one. Without Chromium the browser test
skips locally and fails in CI (CI=true).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from dagster import AssetKey, DagsterInstance, materialize

from eval_pipeline.pipeline.definitions import build_definitions
from eval_pipeline.runner.evaluate import PER_CASE_ASSETS, QUIET, evaluate
from eval_pipeline_tests.conftest import require_service
from eval_pipeline_tests.core.report.test_report_browser import CHROMIUM, Browser
from eval_pipeline_tests.pipeline.test_graph import TINY, tiny_overrides

pytestmark = pytest.mark.slow

RUN = "r1"
EDITED = "TC_002"
CASES = [f"TC_00{i}" for i in range(1, 6)]
JUDGE_VERSION = "2-ui"
START_TIMEOUT_S = 120.0
UI_TIMEOUT_S = 30.0

# The location the webserver loads: the project's definitions with judge_scores at a new code
# version. The asset decorators read STAGE_VERSIONS at import, so it is patched before that.
LOCATION = """\
from eval_pipeline.versions import STAGE_VERSIONS

STAGE_VERSIONS["judge_scores"] = {version!r}

from eval_pipeline.pipeline.definitions import build_definitions

defs = build_definitions({overrides!r})
"""

STALENESS = """
query ($key: AssetKeyInput!, $partitions: [String!]) {
  assetNodeOrError(assetKey: $key) {
    __typename
    ... on AssetNode {
      opVersion
      staleStatusByPartition(partitions: $partitions)
      staleCausesByPartition(partitions: $partitions) {
        key { path }
        partitionKey
        category
        reason
      }
    }
  }
}
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def graphql(url: str, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
    body = json.dumps({"query": query, "variables": variables or {}}).encode()
    request = urllib.request.Request(
        f"{url}/graphql", data=body, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as reply:
        answer: dict[str, Any] = json.loads(reply.read())
    assert "errors" not in answer, answer["errors"]
    data: dict[str, Any] = answer["data"]
    return data


def staleness(url: str, asset: str, partitions: list[str]) -> dict[str, Any]:
    reply = graphql(url, STALENESS, {"key": {"path": [asset]}, "partitions": partitions})
    node: dict[str, Any] = reply["assetNodeOrError"]
    assert node["__typename"] == "AssetNode", node
    return node


def causes(node: dict[str, Any], index: int) -> set[tuple[str, str, str, str]]:
    return {
        ("/".join(c["key"]["path"]), c["partitionKey"], c["category"], c["reason"])
        for c in node["staleCausesByPartition"][index]
    }


def write_instance_yaml(home: Path) -> None:
    """The project's event log storage, its base_dir explicit: this process has no DAGSTER_HOME."""
    home.mkdir()
    (home / "dagster.yaml").write_text(
        "telemetry:\n  enabled: false\n"
        "event_log_storage:\n"
        "  module: eval_pipeline.runner.sqlite_storage\n"
        "  class: BatchingSqliteEventLogStorage\n"
        f"  config:\n    base_dir: {home / 'history' / 'runs'}\n"
    )


def wait_until(check: Callable[[], Any], what: str, timeout: float) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


@pytest.fixture(scope="module")
def webserver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """An evaluated run with one edited case and a judge code bump, served by the webserver."""
    tmp = tmp_path_factory.mktemp("ui-staleness")
    home = tmp / "dagster"
    write_instance_yaml(home)
    overrides = tiny_overrides(tmp, "honest")
    golden = json.loads((TINY / "golden_dataset.json").read_text())
    golden_path = tmp / "golden_dataset.json"
    golden_path.write_text(json.dumps(golden))
    overrides["golden_path"] = str(golden_path)

    with DagsterInstance.from_config(str(home)) as instance:
        evaluate(RUN, overrides=overrides, instance=instance)
        edited = next(c for c in golden if c["id"] == EDITED)
        edited["question"] += " Answer in one sentence."
        golden_path.write_text(json.dumps(golden))
        defs = build_definitions(overrides)
        materialize(
            list(defs.assets or []),
            selection=[AssetKey("golden_cases")],
            partition_key=EDITED,
            instance=instance,
            resources=dict(defs.resources or {}),
            run_config=QUIET,
        )

    with serving_location(
        tmp, home, LOCATION.format(version=JUDGE_VERSION, overrides=overrides)
    ) as url:
        yield url


@contextmanager
def serving_location(tmp: Path, home: Path, location: str) -> Iterator[str]:
    """The real ``dagster-webserver`` on a free port over the instance in ``home``, loading the
    code location whose source is ``location``; yields its URL once the location has loaded."""
    (tmp / "location.py").write_text(location)
    (tmp / "workspace.yaml").write_text(
        "load_from:\n  - python_file:\n      relative_path: location.py\n"
        f"      location_name: eval_ui\n      working_directory: {tmp}\n"
    )
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = (tmp / "webserver.log").open("wb")
    server = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("dagster-webserver")),
            *("-h", "127.0.0.1", "-p", str(port), "-w", "workspace.yaml"),
        ],
        cwd=tmp,
        env={**os.environ, "DAGSTER_HOME": str(home)},
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
    )

    def location_loaded() -> bool:
        if server.poll() is not None:
            raise AssertionError(f"webserver exited: {(tmp / 'webserver.log').read_text()[-2000:]}")
        try:
            node = graphql(url, STALENESS, {"key": {"path": ["judge_scores"]}, "partitions": []})
        except (urllib.error.URLError, ConnectionError):
            return False
        return bool(node["assetNodeOrError"]["__typename"] == "AssetNode")

    try:
        wait_until(location_loaded, "the webserver and its code location", START_TIMEOUT_S)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


def test_graphql_reports_exactly_the_affected_partitions_stale_with_their_causes(
    webserver: str,
) -> None:
    keys = [f"{case}|{RUN}" for case in CASES]
    edited = keys.index(f"{EDITED}|{RUN}")
    upstream_edit = ("golden_cases", EDITED, "DATA", "has a new data version")

    judge = staleness(webserver, "judge_scores", keys)
    assert judge["opVersion"] == JUDGE_VERSION, "the webserver must load the bumped location"
    assert judge["staleStatusByPartition"] == ["STALE"] * len(keys)
    for i, key in enumerate(keys):
        code = ("judge_scores", key, "CODE", "has a new code version")
        expected = {code, upstream_edit} if i == edited else {code}
        assert causes(judge, i) == expected, key

    # the golden edit stales only its own case downstream, through its content-hash data version
    for asset in PER_CASE_ASSETS[:-1]:
        node = staleness(webserver, asset, keys)
        expected_status = ["STALE" if i == edited else "FRESH" for i in range(len(keys))]
        assert node["staleStatusByPartition"] == expected_status, asset
        assert causes(node, edited) == {upstream_edit}, asset

    golden = staleness(webserver, "golden_cases", CASES)
    assert golden["staleStatusByPartition"] == ["FRESH"] * len(CASES)


@pytest.fixture(scope="module")
def browser(webserver: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    """Chromium on the webserver, its first-visit newsletter dialog marked seen: on loopback the
    UI opens it a second after the first page, over whatever the test is hovering."""
    if not os.access(CHROMIUM, os.X_OK):
        require_service("Chromium", f"{CHROMIUM} not found; apt-get install chromium")
    graphql(webserver, "mutation { setNuxSeen }")
    assert graphql(webserver, "{ shouldShowNux }") == {"shouldShowNux": False}
    instance = Browser(tmp_path_factory.mktemp("chromium-profile"))
    yield instance
    instance.close()


def partition_heading(page: Browser, url: str, asset: str, partition: str) -> str:
    """Open the asset's partition view and return its heading row once its tags have loaded."""
    query = urllib.parse.urlencode({"view": "partitions", "partition": partition})
    page.open(f"{url}/assets/{asset}?{query}")
    row = f"document.querySelector({json.dumps(f'[data-tooltip={json.dumps(partition)}]')})"
    settled = (
        f"(() => {{ const r = {row}; return r && r.innerText.includes('Materialized')"
        " && !r.querySelector('[role=progressbar]') ? r.innerText : null; })()"
    )
    text: str = wait_until(lambda: page.js(settled), f"{asset} {partition} in the UI", UI_TIMEOUT_S)
    return text


def hover_text(page: Browser, label: str) -> None:
    """Move the mouse onto the element showing ``label``, as a person would to read its popover."""
    box = page.js(
        "(() => { const e = Array.from(document.querySelectorAll('span, div'))"
        f".find(e => e.children.length === 0 && e.textContent.startsWith({json.dumps(label)}));"
        " const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2];"
        " })()"
    )
    page.page("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": box[0], "y": box[1]})


@pytest.mark.browser
def test_the_asset_page_shows_a_stale_partition_as_unsynced_with_its_causes(
    webserver: str, browser: Browser, tmp_path: Path
) -> None:
    stale = partition_heading(browser, webserver, "judge_scores", f"{EDITED}|{RUN}")
    assert "Unsynced (2)" in stale
    hover_text(browser, "Unsynced (2)")
    popover: str = wait_until(
        lambda: browser.js(
            "(() => { const t = document.body.innerText;"
            " return t.includes('since last materialization') ? t : null; })()"
        ),
        "the stale causes popover",
        UI_TIMEOUT_S,
    )
    assert "2 changes since last materialization" in popover
    assert "1 code version change" in popover and "has a new code version" in popover
    assert "1 upstream data version change" in popover and "has a new data version" in popover
    assert "golden_cases" in popover
    browser.screenshot(tmp_path / "unsynced.png")  # for a person to look at

    fresh = partition_heading(browser, webserver, "chatbot_responses", f"TC_001|{RUN}")
    assert "Unsynced" not in fresh
    upstream = partition_heading(browser, webserver, "chatbot_responses", f"{EDITED}|{RUN}")
    assert "Unsynced (1)" in upstream
    assert browser.errors() == []
