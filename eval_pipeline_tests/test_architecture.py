"""The package map of docs/architecture.md, enforced: who may import what."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from eval_pipeline.runner.internals import UnsupportedDagster, check_dagster_version
from eval_pipeline.settings import PROJECT_ROOT

PACKAGE = PROJECT_ROOT / "eval_pipeline"
SHARED = (
    "eval_pipeline.settings",
    "eval_pipeline.configuration",
    "eval_pipeline.environment",
    "eval_pipeline.versions",
)


def module_name(path: Path) -> str:
    parts = path.relative_to(PROJECT_ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Every module a file imports, at the top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def modules_under(layer: str) -> dict[str, set[str]]:
    root = PACKAGE.joinpath(*layer.split(".")[1:])
    files = [root.with_suffix(".py")] if root.with_suffix(".py").exists() else root.rglob("*.py")
    return {module_name(f): imports_of(f) for f in files}


def offenders(layer: str, forbidden: tuple[str, ...]) -> dict[str, list[str]]:
    found = {
        module: sorted(i for i in imported for f in forbidden if i == f or i.startswith(f"{f}."))
        for module, imported in modules_under(layer).items()
    }
    return {module: names for module, names in found.items() if names}


def test_the_layers_are_where_the_map_says() -> None:
    for layer in ("core", "pipeline", "runner", "cli", "demo"):
        assert (PACKAGE / layer / "__init__.py").is_file(), layer
    assert modules_under("eval_pipeline.core"), "the walk finds modules"


def test_core_imports_no_dagster_and_nothing_above_it() -> None:
    above = ("dagster", "dagster_celery", "dagster_postgres", "eval_pipeline.pipeline")
    above += ("eval_pipeline.runner", "eval_pipeline.cli", "eval_pipeline.demo", *SHARED)
    assert offenders("eval_pipeline.core", above) == {}


@pytest.mark.parametrize("shared", SHARED)
def test_settings_and_environment_import_no_dagster(shared: str) -> None:
    dagster_side = (
        "dagster",
        "eval_pipeline.pipeline",
        "eval_pipeline.runner",
        "eval_pipeline.cli",
    )
    assert offenders(shared, dagster_side) == {}


def test_the_code_location_imports_no_runner_and_no_cli() -> None:
    assert offenders("eval_pipeline.pipeline", ("eval_pipeline.runner", "eval_pipeline.cli")) == {}


def test_only_the_tracers_implementation_imports_opentelemetry() -> None:
    """The steps trace through ``core.tracing.spans``; OpenTelemetry is loaded only when an
    endpoint is configured (``environment.build_tracer`` imports ``core.tracing.otel``)."""
    found = {
        module
        for layer in ("eval_pipeline.core", "eval_pipeline.pipeline", "eval_pipeline.runner")
        for module in offenders(layer, ("opentelemetry",))
    }
    found |= set(offenders("eval_pipeline.cli", ("opentelemetry",)))
    found |= {s for s in SHARED if offenders(s, ("opentelemetry",))}
    assert found == {"eval_pipeline.core.tracing.otel"}


def test_only_two_named_modules_import_dagsters_private_api() -> None:
    """The runner's tuning (runner/internals) and the code location's per-partition events
    (pipeline/partition_events: Dagster 1.13 has no public per-partition metadata or check
    result for a batched step)."""
    private = {
        module: sorted(i for i in imported if i.startswith("dagster._"))
        for layer in ("core", "pipeline", "runner", "cli", "demo")
        for module, imported in modules_under(f"eval_pipeline.{layer}").items()
    }
    users = {module for module, names in private.items() if names}
    assert users == {"eval_pipeline.runner.internals", "eval_pipeline.pipeline.partition_events"}
    for shared in SHARED:
        assert not any(i.startswith("dagster._") for i in imports_of(PACKAGE / f"{shared[14:]}.py"))


def test_this_dagster_is_one_the_internals_were_written_for() -> None:
    check_dagster_version()


@pytest.mark.parametrize("version", ["1.14.0", "2.0.1", "1.12.22"])
def test_another_dagster_series_fails_with_what_to_do(version: str) -> None:
    with pytest.raises(UnsupportedDagster) as failure:
        check_dagster_version(version)
    message = str(failure.value)
    assert f"Dagster {version} is installed" in message
    assert "1.13.x" in message and "re-check each private name" in message


IMPORT_EVERY_CORE_MODULE = """
import importlib, json, os, pkgutil, threading
import eval_pipeline.core as core
before = dict(os.environ)
names = [m.name for m in pkgutil.walk_packages(core.__path__, "eval_pipeline.core.")]
for name in names:
    importlib.import_module(name)
changed = sorted(k for k in set(before) | set(os.environ) if before.get(k) != os.environ.get(k))
def parent(pid):
    try:
        return int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
    except OSError:
        return None
children = [p for p in os.listdir("/proc") if p.isdigit() and parent(p) == os.getpid()]
print(json.dumps({"modules": len(names), "changed": changed,
                  "threads": threading.active_count(), "children": children}))
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
def test_importing_core_changes_no_environment_variable_and_starts_nothing() -> None:
    out = subprocess.run(
        [sys.executable, "-c", IMPORT_EVERY_CORE_MODULE],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["modules"] > 40
    assert report["changed"] == []
    assert report["threads"] == 1, "no thread is started by an import"
    assert report["children"] == [], "no process is started by an import"
