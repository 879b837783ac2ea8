"""The BKG runtime: compiled once, memoised per call, results shaped as JSON, errors contained."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from eval_pipeline.core.models import BKG, Reference
from eval_pipeline.core.warehouse.bkg_runtime import (
    BKGRuntime,
    json_shape,
    parse_select,
    sql_tables,
)
from eval_pipeline.core.warehouse.db import Database

SEED = [
    "CREATE TABLE items (id INTEGER PRIMARY KEY, grp TEXT, amount NUMERIC(10,2))",
    "INSERT INTO items VALUES (1, 'a', 10.50)",
    "INSERT INTO items VALUES (2, 'a', 20.25)",
    "INSERT INTO items VALUES (3, 'b', NULL)",
]


def _fn(name: str, source: str, **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "description": name,
        "tables": ["items"],
        "python_function": source,
        **extra,
    }


BKG_DOC: dict[str, Any] = {
    "name": "tiny",
    "tables": [
        {
            "name": "items",
            "description": "things",
            "columns": [
                {"name": "id", "type": "integer", "description": ""},
                {"name": "grp", "type": "text", "description": ""},
                {"name": "amount", "type": "numeric", "description": ""},
            ],
            "primary_key": ["id"],
        }
    ],
    "kpis": [
        _fn(
            "item_count",
            "def item_count(db, grp=None):\n"
            "    if grp is None:\n"
            "        return db.scalar('SELECT COUNT(*) FROM items')\n"
            "    return db.scalar('SELECT COUNT(*) FROM items WHERE grp = :g', g=grp)\n",
            unit="count",
            params=[{"name": "grp", "type": "string", "enum": ["a", "b"]}],
        ),
        _fn(
            "total",
            "def total(db, min_id, scale=1):\n"
            "    value = db.scalar('SELECT SUM(amount) FROM items WHERE id >= :m', m=min_id)\n"
            "    return value * scale\n",
            unit="currency",
            params=[
                {"name": "min_id", "type": "integer", "required": True},
                {"name": "scale", "type": "number", "default": 100},
            ],
        ),
        _fn("ratio", "def ratio(db):\n    return 1 / 0\n", unit="fraction"),
        _fn(
            "avg_per_item",
            "def avg_per_item(db):\n    return total(db, min_id=0, scale=1) / item_count(db)\n",
            unit="currency",
        ),
        _fn("weird", "def weird(db):\n    return object()\n"),
        _fn("broken", "def broken(db):\n    return (\n"),
    ],
    "decisions": [
        _fn(
            "by_group",
            "def by_group(db):\n"
            "    sql = 'SELECT grp, COUNT(*) AS n FROM items GROUP BY grp ORDER BY grp'\n"
            "    frame = db.query(sql)\n"
            "    return dict(zip(frame['grp'], frame['n']))\n",
            returns="mapping",
        ),
        _fn("nested", "def nested(db):\n    return {'a': {'x': 1}}\n", returns="mapping"),
    ],
    "core_nodes": [
        _fn(
            "items_table",
            "def items_table(db):\n"
            "    return db.query('SELECT id, grp, amount FROM items ORDER BY id')\n",
            returns="table",
            column_units={"amount": "currency"},
        ),
        _fn(
            "grouped",
            "def grouped(db):\n"
            "    frame = db.query('SELECT grp, amount FROM items')\n"
            "    return frame.groupby('grp')[['amount']].count()\n",
            returns="table",
        ),
        _fn(
            "records",
            "def records(db):\n    return [{'k': 'x', 'v': 1}, {'k': 'y', 'v': None, 'w': 2}]\n",
            returns="table",
        ),
    ],
}


def _seed(url: str) -> None:
    writer = Database(url, read_only=False)
    for statement in SEED:
        writer.execute(statement)
    writer.close()


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    url = f"sqlite:///{tmp_path / 'rt.db'}"
    _seed(url)
    handle = Database(url)
    yield handle
    handle.close()


@pytest.fixture
def runtime() -> BKGRuntime:
    return BKGRuntime(BKG.model_validate(BKG_DOC))


def _ref(**fields: Any) -> Reference:
    return Reference.model_validate(fields)


# --------------------------------------------------------------------------- evaluate: shapes


def test_scalar_kpi_with_unit_tables_and_params(runtime: BKGRuntime, db: Database) -> None:
    value = runtime.evaluate(_ref(kpi="item_count", params={"grp": "a"}), db)
    assert value.error is None
    assert (value.shape, value.value, value.unit, value.tables) == ("scalar", 2, "count", ["items"])
    assert type(value.value) is int


def test_declared_defaults_are_applied_and_recorded(runtime: BKGRuntime, db: Database) -> None:
    value = runtime.evaluate(_ref(kpi="total", params={"min_id": 2}), db)
    assert value.error is None
    assert value.value == pytest.approx(2025.0)
    assert value.reference.params == {"min_id": 2, "scale": 100}
    explicit = runtime.evaluate(_ref(kpi="total", params={"min_id": 2, "scale": 1}), db)
    assert explicit.value == pytest.approx(20.25)


def test_mapping_result_has_string_keys_and_plain_values(runtime: BKGRuntime, db: Database) -> None:
    value = runtime.evaluate(_ref(decision="by_group"), db)
    assert value.error is None
    assert value.shape == "mapping"
    assert value.value == {"a": 2, "b": 1}
    assert all(type(v) is int for v in value.value.values())
    json.dumps(value.model_dump())


def test_dataframe_result_becomes_table_with_nulls(runtime: BKGRuntime, db: Database) -> None:
    value = runtime.evaluate(_ref(core_node="items_table"), db)
    assert value.error is None
    assert value.shape == "table"
    assert value.value == {
        "columns": ["id", "grp", "amount"],
        "rows": [[1, "a", 10.5], [2, "a", 20.25], [3, "b", None]],
    }


def test_named_index_is_kept_as_a_column(runtime: BKGRuntime, db: Database) -> None:
    value = runtime.evaluate(_ref(core_node="grouped"), db)
    assert value.value == {"columns": ["grp", "amount"], "rows": [["a", 2], ["b", 0]]}


def test_list_of_dicts_becomes_table(runtime: BKGRuntime, db: Database) -> None:
    value = runtime.evaluate(_ref(core_node="records"), db)
    assert value.value == {"columns": ["k", "v", "w"], "rows": [["x", 1, None], ["y", None, 2]]}


def test_sql_reference_single_cell_is_scalar(runtime: BKGRuntime, db: Database) -> None:
    value = runtime.evaluate(
        _ref(sql="SELECT COUNT(*) AS n FROM items WHERE grp = :g", params={"g": "a"}), db
    )
    assert value.error is None
    assert (value.shape, value.value, value.tables, value.unit) == ("scalar", 2, ["items"], None)


def test_sql_reference_rows_are_a_table(runtime: BKGRuntime, db: Database) -> None:
    sql = "WITH x AS (SELECT id, grp FROM items) SELECT grp, MAX(id) AS top FROM x GROUP BY grp"
    value = runtime.evaluate(_ref(sql=sql + " ORDER BY grp"), db)
    assert value.shape == "table"
    assert value.value == {"columns": ["grp", "top"], "rows": [["a", 2], ["b", 3]]}
    assert value.tables == ["items"]


def test_functions_call_each_other_through_the_shared_namespace(
    runtime: BKGRuntime, db: Database
) -> None:
    value = runtime.evaluate(_ref(kpi="avg_per_item"), db)
    assert value.error is None
    assert value.value == pytest.approx(30.75 / 3)


# --------------------------------------------------------------------------- evaluate: errors


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"kpi": "ratio"}, "ZeroDivisionError: division by zero (kpis.ratio line 2)"),
        ({"kpi": "nope"}, "LookupError: unknown kpi 'nope'"),
        ({"kpi": "total"}, "missing required param 'min_id'"),
        ({"kpi": "item_count", "params": {"grp": "z"}}, "not one of the allowed values"),
        ({"kpi": "weird"}, "unsupported result type object"),
        ({"decision": "nested"}, "mapping values must be scalars"),
        ({"kpi": "broken"}, "kpis.broken does not compile: line 2"),
        ({"sql": "DELETE FROM items"}, "only SELECT / WITH queries are allowed"),
        ({"sql": "SELECT nope FROM items"}, "no such column: nope"),
        ({}, "reference names no source"),
    ],
)
def test_evaluate_never_raises(
    runtime: BKGRuntime, db: Database, fields: dict[str, Any], expected: str
) -> None:
    value = runtime.evaluate(_ref(**fields), db)
    assert value.value is None
    assert value.error is not None and expected in value.error
    assert "Traceback" not in value.error


def test_refused_sql_is_never_executed(runtime: BKGRuntime, db: Database) -> None:
    runtime.evaluate(_ref(sql="SELECT 1; DELETE FROM items"), db)
    assert runtime.calls_made == 0
    assert db.scalar("SELECT COUNT(*) FROM items") == 3


def test_one_broken_function_does_not_stop_the_others(runtime: BKGRuntime, db: Database) -> None:
    assert runtime.evaluate(_ref(kpi="broken"), db).error is not None
    assert runtime.evaluate(_ref(kpi="item_count"), db).value == 3


# --------------------------------------------------------------------------- call + memo


def test_memoised_per_kind_name_and_canonical_params(runtime: BKGRuntime, db: Database) -> None:
    assert runtime.call("kpi", "total", db, {"min_id": 1}) == pytest.approx(3075.0)
    assert runtime.calls_made == 1
    # Same call with the default spelled out, keys in another order: served from the memo.
    runtime.call("kpi", "total", db, {"scale": 100, "min_id": 1})
    runtime.evaluate(_ref(kpi="total", params={"min_id": 1}), db)
    assert runtime.calls_made == 1
    runtime.call("kpi", "total", db, {"min_id": 2})
    runtime.call("sql", "SELECT COUNT(*) FROM items", db, {})
    runtime.call("sql", "SELECT COUNT(*) FROM items", db, {})
    assert runtime.calls_made == 3


def test_callers_cannot_corrupt_the_memo(runtime: BKGRuntime, db: Database) -> None:
    first = runtime.call("core_node", "items_table", db, {})
    first.loc[0, "grp"] = "mutated"
    mapping = runtime.call("decision", "by_group", db, {})
    mapping["a"] = -1
    assert runtime.call("core_node", "items_table", db, {}).loc[0, "grp"] == "a"
    assert runtime.call("decision", "by_group", db, {})["a"] == 2
    assert runtime.calls_made == 2


def test_failures_are_not_memoised(runtime: BKGRuntime, db: Database) -> None:
    runtime.evaluate(_ref(kpi="ratio"), db)
    runtime.evaluate(_ref(kpi="ratio"), db)
    assert runtime.calls_made == 2


def test_concurrent_identical_calls_run_once(db: Database, tmp_path: Path) -> None:
    runs = tmp_path / "runs.log"
    doc = {
        **BKG_DOC,
        "kpis": [
            _fn(
                "slow",
                "import time\n\n"
                f"def slow(db):\n    open({str(runs)!r}, 'a').write('run ')\n"
                "    time.sleep(0.05)\n    return db.scalar('SELECT COUNT(*) FROM items')\n",
            )
        ],
    }
    runtime = BKGRuntime(BKG.model_validate(doc))
    with ThreadPoolExecutor(max_workers=16) as pool:
        values = list(pool.map(lambda _: runtime.evaluate(_ref(kpi="slow"), db).value, range(32)))
    assert values == [3] * 32
    assert runtime.calls_made == 1
    assert runs.read_text() == "run "


def test_call_rejects_unknown_kind_and_bad_params(runtime: BKGRuntime, db: Database) -> None:
    with pytest.raises(LookupError):
        runtime.call("metric", "total", db, {})
    with pytest.raises(ValueError, match="unknown param 'minid'"):
        runtime.call("kpi", "total", db, {"min_id": 1, "minid": 1})
    assert runtime.calls_made == 0


# --------------------------------------------------------------------------- PostgreSQL


def test_runtime_on_postgres_returns_plain_numbers(pg_schema_url: str) -> None:
    _seed(pg_schema_url)
    runtime = BKGRuntime(BKG.model_validate(BKG_DOC))
    with Database(pg_schema_url) as db:
        total = runtime.evaluate(_ref(kpi="total", params={"min_id": 1, "scale": 1}), db)
        table = runtime.evaluate(_ref(core_node="items_table"), db)
        by_sql = runtime.evaluate(_ref(sql="SELECT SUM(amount) FROM items"), db)
    assert total.error is None and total.value == pytest.approx(30.75)
    assert type(total.value) is float
    assert table.value["rows"] == [[1, "a", 10.5], [2, "a", 20.25], [3, "b", None]]
    assert by_sql.value == pytest.approx(30.75)


# --------------------------------------------------------------------------- helpers


def test_json_shape_converts_numpy_pandas_and_dates() -> None:
    assert json_shape(np.int64(7)) == ("scalar", 7)
    assert json_shape(np.bool_(True)) == ("scalar", True)
    assert json_shape(dt.date(2024, 5, 1)) == ("scalar", "2024-05-01")
    assert json_shape(pd.Series({1: np.int64(2)})) == ("mapping", {"1": 2})
    frame = pd.DataFrame({"d": [pd.Timestamp("2024-01-02"), pd.NaT], "x": [1.5, np.nan]})
    assert json_shape(frame) == (
        "table",
        {"columns": ["d", "x"], "rows": [["2024-01-02T00:00:00", 1.5], [None, None]]},
    )
    assert json_shape(pd.DataFrame({"n": [4]}), cell_as_scalar=True) == ("scalar", 4)
    assert json_shape(pd.DataFrame({"n": [4]}))[0] == "table"


def test_sql_tables_ignore_ctes_and_see_subqueries() -> None:
    tree = parse_select(
        "WITH c AS (SELECT * FROM a) SELECT * FROM c JOIN (SELECT * FROM b) s ON 1 = 1"
    )
    assert sql_tables(tree) == ["a", "b"]
