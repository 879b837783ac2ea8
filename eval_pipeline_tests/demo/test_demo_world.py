"""The demo warehouse, its BKG and golden set, and the tiny second domain, on both engines."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import sqlalchemy as sa

from eval_pipeline.core.inputs import load_bkg, validate_inputs
from eval_pipeline.core.models import BKG, FUNCTION_KINDS, GoldenCase, Reference
from eval_pipeline.core.warehouse.bkg_runtime import BKGRuntime
from eval_pipeline.core.warehouse.db import Database
from eval_pipeline.demo import tiny, warehouse
from eval_pipeline.settings import PROJECT_ROOT

ROOT = PROJECT_ROOT
DEMO_BKG = ROOT / "data" / "demo" / "bkg.json"
DEMO_GOLDEN = ROOT / "data" / "demo" / "golden_dataset.json"
TINY_BKG = ROOT / "data" / "tiny" / "bkg.json"
TINY_GOLDEN = ROOT / "data" / "tiny" / "golden_dataset.json"

SAMPLE_VALUES: dict[str, Any] = {
    "region": "North",
    "site_id": "S-00061",
    "start_period": "2025-11",
    "end_period": "2026-02",
    "n": 4,
}


@pytest.fixture(scope="module")
def frames() -> dict[str, pd.DataFrame]:
    return warehouse.generate()


@pytest.fixture(scope="module")
def sqlite_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    url = f"sqlite:///{tmp_path_factory.mktemp('demo') / 'warehouse.db'}"
    warehouse.load(url)
    return url


@pytest.fixture(scope="module")
def bkg() -> BKG:
    return load_bkg(DEMO_BKG)


def _cases() -> list[GoldenCase]:
    return [GoldenCase.model_validate(c) for c in json.loads(DEMO_GOLDEN.read_text())]


def _calls(bkg: BKG) -> list[Reference]:
    """Every function with its required params; plus one call per optional enum param."""
    out = []
    for kind, attr in FUNCTION_KINDS.items():
        for fn in getattr(bkg, attr):
            base = {p.name: SAMPLE_VALUES[p.name] for p in fn.params if p.required}
            out.append(Reference(**{kind: fn.name}, params=base))
            for p in fn.params:
                if not p.required and p.enum:
                    out.append(Reference(**{kind: fn.name}, params={**base, p.name: p.enum[-1]}))
                if not p.required and p.name in SAMPLE_VALUES:
                    out.append(
                        Reference(**{kind: fn.name}, params={**base, p.name: SAMPLE_VALUES[p.name]})
                    )
    return out


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return a is not None and b is not None and math.isclose(a, b, rel_tol=1e-9)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


# --------------------------------------------------------------------------- generator


def test_generate_is_deterministic_per_seed(frames: dict[str, pd.DataFrame]) -> None:
    again = warehouse.generate()
    other = warehouse.generate(seed=8)
    for name, frame in frames.items():
        pd.testing.assert_frame_equal(frame, again[name])
    assert not frames["hse_audits"]["score"].equals(other["hse_audits"]["score"])
    assert not frames["sites"]["status"].equals(other["sites"]["status"])


def test_warehouse_has_enough_tables_and_rows(frames: dict[str, pd.DataFrame]) -> None:
    assert len(frames) >= 5
    assert len(frames["sites"]) == 2000
    assert len(frames["milestones"]) == 10000
    assert len(frames["hse_audits"]) >= 5000
    assert all("updated_at" in f.columns for f in frames.values())
    assert frames["sites"]["site_id"].str.fullmatch(r"S-\d{5}").all()
    assert set(frames["sites"]["status"]) == {"planned", "in_progress", "completed", "on_hold"}
    assert frames["sites"]["site_id"].is_unique


def test_regions_differ_enough_that_a_wrong_filter_shows(frames: dict[str, pd.DataFrame]) -> None:
    sites = frames["sites"]
    audits = frames["hse_audits"].merge(sites[["site_id", "region"]], on="site_id")
    compliance = audits.groupby("region")["compliant"].mean().sort_values()
    completion = sites.assign(done=sites["status"].eq("completed")).groupby("region")["done"].mean()
    assert all(b / a > 1.10 for a, b in zip(compliance, compliance.iloc[1:], strict=False))
    assert completion.max() / completion.min() > 1.3


def test_bkg_describes_every_table_and_column(bkg: BKG) -> None:
    for name, table in warehouse.TABLES.items():
        described = bkg.table(name)
        assert described is not None, name
        assert [c.name for c in described.columns] == [c.name for c in table.columns]
        assert described.primary_key == [c.name for c in table.primary_key.columns]
        assert described.fingerprint.columns == ["updated_at"] and described.fingerprint.row_count


def test_bkg_has_the_promised_functions(bkg: BKG) -> None:
    assert len(bkg.kpis) >= 12 and len(bkg.decisions) >= 3 and len(bkg.core_nodes) >= 2
    assert len(bkg.glossary) >= 8
    for fn in [*bkg.kpis, *bkg.decisions, *bkg.core_nodes]:
        assert fn.tables, fn.name
        if fn.returns == "scalar":
            assert fn.unit is not None, fn.name
        else:
            assert fn.unit is not None or fn.column_units, fn.name
        if fn.returns == "table":
            assert fn.column_units, fn.name


def test_refresh_changes_exactly_the_named_tables(tmp_path: Path, bkg: BKG) -> None:
    url = f"sqlite:///{tmp_path / 'w.db'}"
    warehouse.load(url)
    runtime = BKGRuntime(bkg)
    with Database(url) as db:
        before = {t.name: db.fingerprint(t) for t in bkg.tables}
        rate_before = runtime.evaluate(Reference(kpi="hse_compliance_rate"), db).value
    changed = warehouse.refresh(url, tables=("hse_audits", "readiness"))
    assert set(changed) == {"hse_audits", "readiness"} and all(n > 0 for n in changed.values())
    with Database(url) as db:
        after = {t.name: db.fingerprint(t) for t in bkg.tables}
        rate_after = BKGRuntime(bkg).evaluate(Reference(kpi="hse_compliance_rate"), db).value
    assert {name for name in before if before[name] != after[name]} == {"hse_audits", "readiness"}
    assert rate_after != rate_before


def test_refresh_rejects_unknown_tables(sqlite_url: str) -> None:
    with pytest.raises(ValueError, match="unknown tables"):
        warehouse.refresh(sqlite_url, tables=("towers",))


# --------------------------------------------------------------------------- BKG on both engines


def test_every_function_runs_on_sqlite(sqlite_url: str, bkg: BKG) -> None:
    runtime = BKGRuntime(bkg)
    with Database(sqlite_url) as db:
        for ref in _calls(bkg):
            value = runtime.evaluate(ref, db)
            assert value.error is None, (ref, value.error)
            assert value.value not in (None, {}, []), ref


def test_every_function_gives_equal_values_on_sqlite_and_postgres(
    sqlite_url: str, pg_schema_url: str, bkg: BKG
) -> None:
    warehouse.load(pg_schema_url)
    runtime = BKGRuntime(bkg)
    with Database(sqlite_url) as lite, Database(pg_schema_url) as pg:
        assert pg.dialect == "postgresql"
        for ref in _calls(bkg):
            a, b = runtime.evaluate(ref, lite), runtime.evaluate(ref, pg)
            assert a.error is None and b.error is None, (ref, a.error, b.error)
            assert _same(a.value, b.value), (ref, a.value, b.value)


# --------------------------------------------------------------------------- golden dataset


def test_golden_dataset_validates_against_bkg_and_live_catalog(sqlite_url: str) -> None:
    assert validate_inputs(DEMO_BKG, DEMO_GOLDEN, sqlite_url) == []


def test_golden_dataset_shape_and_coverage() -> None:
    cases = _cases()
    assert [c.id for c in cases] == [f"TC_{i:03d}" for i in range(1, 31)]
    assert all("|" not in c.question for c in cases)
    assert 3 <= sum(c.has_expected_answer for c in cases) <= 4
    tags = {t for c in cases for t in c.tags}
    for needed in (
        "single_number",
        "percentage",
        "filter_region",
        "filter_status",
        "ranking",
        "comparison",
        "trend",
        "multi_number",
        "decision",
        "core_node",
        "sql_reference",
        "out_of_scope",
        "prompt_injection",
        "pii",
    ):
        assert needed in tags, needed
    by_tag = {t: [c for c in cases if t in c.tags] for t in ("out_of_scope", "pii")}
    assert all(c.reference == [] for group in by_tag.values() for c in group)
    injection = next(c for c in cases if "prompt_injection" in c.tags)
    assert "Ignore all previous instructions" in injection.question
    assert [r.kpi for r in injection.reference] == ["hse_compliance_rate"]
    assert 1 <= sum(any(r.sql for r in c.reference) for c in cases) <= 2
    assert all(c.evaluation_criteria.unforgivable for c in cases)


def test_every_golden_reference_evaluates(sqlite_url: str, bkg: BKG) -> None:
    runtime = BKGRuntime(bkg)
    with Database(sqlite_url) as db:
        for case in _cases():
            for ref in case.reference:
                value = runtime.evaluate(ref, db)
                assert value.error is None, (case.id, value.error)


def test_expected_answers_match_the_seeded_data(sqlite_url: str, bkg: BKG) -> None:
    """Real expected answers are hints, but on the seeded warehouse they must be true."""
    runtime = BKGRuntime(bkg)
    with Database(sqlite_url) as db:
        for case in _cases():
            if not case.has_expected_answer or not case.reference:
                continue
            values = runtime.evaluate(case.reference[0], db).value
            numbers = values.values() if isinstance(values, dict) else [values]
            stated = [float(x) for x in re.findall(r"\d+(?:\.\d+)?", case.expected_answer)]
            for number in (v for v in numbers if not isinstance(v, bool | str)):
                assert any(abs(s - number) <= 0.005 for s in stated), (case.id, number)


# --------------------------------------------------------------------------- tiny domain


def test_tiny_domain_loads_validates_and_answers(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'tiny.db'}"
    tiny.load(url)
    assert validate_inputs(TINY_BKG, TINY_GOLDEN, url) == []
    bkg = load_bkg(TINY_BKG)
    assert len(bkg.kpis) == 3 and len(bkg.decisions) == 1
    cases = [GoldenCase.model_validate(c) for c in json.loads(TINY_GOLDEN.read_text())]
    assert len(cases) == 5
    runtime = BKGRuntime(bkg)
    engine = sa.create_engine(url)
    with Database(url) as db:
        for case in cases:
            text = tiny.answer(case.question, engine)
            stated = [float(x.replace(",", "")) for x in re.findall(r"\d[\d,]*(?:\.\d+)?", text)]
            value = runtime.evaluate(case.reference[0], db).value
            numbers = [v for v in (value.values() if isinstance(value, dict) else [value])]
            for number in (n for n in numbers if not isinstance(n, bool)):
                assert any(abs(s - number) <= 0.005 for s in stated), (case.id, text, number)
    engine.dispose()
    assert "can't answer" in tiny.answer("Who baked the croissants?", sa.create_engine(url))


def test_tiny_generator_is_deterministic() -> None:
    a, b = tiny.generate(), tiny.generate()
    for name in a:
        pd.testing.assert_frame_equal(a[name], b[name])
    assert not a["orders"]["quantity"].equals(tiny.generate(seed=12)["orders"]["quantity"])
