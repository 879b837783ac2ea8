"""Loading and validating the BKG and golden dataset: every problem, located, in one report."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pydantic
import pytest

from eval_pipeline.core import models
from eval_pipeline.core.inputs import load_bkg, load_golden, load_schema, validate_inputs
from eval_pipeline.core.problems import InputError, Problem
from eval_pipeline.core.warehouse.db import Database
from eval_pipeline.settings import PROJECT_ROOT

COUNT_SRC = (
    "def order_count(db, status=None):\n"
    "    if status is None:\n"
    "        return db.scalar('SELECT COUNT(*) FROM orders')\n"
    "    return db.scalar('SELECT COUNT(*) FROM orders WHERE status = :s', s=status)\n"
)
REVENUE_SRC = (
    "def revenue(db, min_amount, year=2024):\n"
    "    return db.scalar('SELECT SUM(amount) FROM orders WHERE amount >= :m', m=min_amount)\n"
)
BIG_SRC = "def big_customers(db):\n    return db.query('SELECT customer_id FROM orders')\n"
SHARE_SRC = "def open_share(db):\n    return {'open': 0.5, 'closed': 0.5}\n"


def _col(name: str, type_: str = "integer") -> dict[str, str]:
    return {"name": name, "type": type_, "description": f"the {name}"}


BASE_BKG: dict[str, Any] = {
    "name": "shop",
    "description": "a tiny shop",
    "tables": [
        {
            "name": "orders",
            "description": "one order",
            "columns": [
                _col("id"),
                _col("customer_id"),
                _col("amount", "numeric"),
                _col("status", "text"),
                _col("updated_at", "text"),
            ],
            "primary_key": ["id"],
            "fingerprint": {"columns": ["updated_at"], "row_count": True},
        },
        {
            "name": "customers",
            "description": "one customer",
            "columns": [_col("id"), _col("area", "text")],
            "primary_key": ["id"],
        },
    ],
    "relationships": [{"from": "orders.customer_id", "to": "customers.id"}],
    "kpis": [
        {
            "name": "order_count",
            "description": "number of orders",
            "unit": "count",
            "params": [{"name": "status", "type": "string", "enum": ["open", "closed"]}],
            "tables": ["orders"],
            "python_function": COUNT_SRC,
        },
        {
            "name": "revenue",
            "description": "sum of amounts",
            "unit": "currency",
            "params": [
                {"name": "min_amount", "type": "number", "required": True},
                {"name": "year", "type": "integer", "default": 2024},
            ],
            "tables": ["orders"],
            "python_function": REVENUE_SRC,
        },
    ],
    "decisions": [
        {
            "name": "big_customers",
            "description": "customers worth a call",
            "returns": "table",
            "tables": ["orders"],
            "python_function": BIG_SRC,
        }
    ],
    "core_nodes": [
        {
            "name": "open_share",
            "description": "share by status",
            "unit": "fraction",
            "returns": "mapping",
            "tables": ["orders"],
            "python_function": SHARE_SRC,
        }
    ],
    "glossary": [{"term": "order", "definition": "a purchase"}],
}

BASE_GOLDEN: list[dict[str, Any]] = [
    {
        "id": "TC_001",
        "question": "How many open orders?",
        "expected_answer": "N/A",
        "reference": [{"kpi": "order_count", "params": {"status": "open"}}],
        "evaluation_criteria": {"unforgivable": ["wrong count"]},
        "tags": ["count"],
    },
    {
        "id": "TC_002",
        "question": "Revenue of big orders?",
        "reference": [
            {"kpi": "revenue", "params": {"min_amount": 100}},
            {"decision": "big_customers"},
            {"core_node": "open_share", "label": "share"},
            {"sql": "SELECT COUNT(*) FROM orders WHERE amount > :x", "params": {"x": 5}},
        ],
    },
]


def _write(tmp_path: Path, bkg: Any = None, golden: Any = None) -> tuple[Path, Path]:
    bkg_path, golden_path = tmp_path / "bkg.json", tmp_path / "golden.json"
    bkg_path.write_text(json.dumps(BASE_BKG if bkg is None else bkg))
    golden_path.write_text(json.dumps(BASE_GOLDEN if golden is None else golden))
    return bkg_path, golden_path


def _bkg(**changes: Any) -> dict[str, Any]:
    out = copy.deepcopy(BASE_BKG)
    out.update(changes)
    return out


def _kpi(name: str = "order_count") -> dict[str, Any]:
    return next(k for k in copy.deepcopy(BASE_BKG["kpis"]) if k["name"] == name)


def _with_kpi(kpi: dict[str, Any]) -> dict[str, Any]:
    """The base BKG with one KPI replaced by ``kpi`` (matched by name)."""
    return _bkg(kpis=[kpi if k["name"] == kpi["name"] else k for k in BASE_BKG["kpis"]])


def _messages(
    tmp_path: Path, bkg: Any = None, golden: Any = None, url: str | None = None
) -> list[str]:
    bkg_path, golden_path = _write(tmp_path, bkg, golden)
    return [str(p) for p in validate_inputs(bkg_path, golden_path, url)]


def _only(messages: list[str], tmp_path: Path) -> str:
    """The single problem, with the tmp directory stripped so assertions read like the docs."""
    assert len(messages) == 1, messages
    return messages[0].replace(f"{tmp_path}/", "")


# --------------------------------------------------------------------------- happy path


def test_valid_inputs_load(tmp_path: Path) -> None:
    bkg_path, golden_path = _write(tmp_path)
    assert validate_inputs(bkg_path, golden_path) == []
    bkg = load_bkg(bkg_path)
    assert isinstance(bkg, models.BKG)
    assert bkg.function("kpi", "revenue") is not None
    assert bkg.relationships[0].from_ == "orders.customer_id"
    cases = load_golden(golden_path, bkg)
    assert [c.id for c in cases] == ["TC_001", "TC_002"]
    assert cases[1].reference[3].kind == "sql"


def test_problem_and_input_error_render() -> None:
    problem = Problem("data/golden_dataset.json", "TC_014.reference[0].kpi", "unknown KPI 'x'")
    assert str(problem) == "data/golden_dataset.json: TC_014.reference[0].kpi: unknown KPI 'x'"
    assert str(Problem("a.json", "", "file not found")) == "a.json: file not found"
    error = InputError([problem, Problem("b.json", "", "file not found")])
    assert str(error).splitlines() == [str(problem), "b.json: file not found"]
    assert error.problems[0] is problem


# --------------------------------------------------------------------------- files and JSON


def test_missing_files_are_both_reported(tmp_path: Path) -> None:
    problems = validate_inputs(tmp_path / "nope.json", tmp_path / "gone.json")
    assert [str(p) for p in problems] == [
        f"{tmp_path}/nope.json: file not found",
        f"{tmp_path}/gone.json: file not found",
    ]
    with pytest.raises(InputError, match="file not found"):
        load_bkg(tmp_path / "nope.json")


def test_invalid_json_reports_line_and_column(tmp_path: Path) -> None:
    bkg_path, golden_path = _write(tmp_path)
    golden_path.write_text('[\n  {"id": "TC_001",\n   "question": "q",,\n}]')
    with pytest.raises(InputError) as info:
        load_golden(golden_path, load_bkg(bkg_path))
    assert (
        str(info.value) == f"{golden_path}: line 3, column 20: invalid JSON: "
        "Expecting property name enclosed in double quotes"
    )


# --------------------------------------------------------------------------- golden schema


def test_missing_required_field_is_located_by_case_id(tmp_path: Path) -> None:
    golden = copy.deepcopy(BASE_GOLDEN)
    del golden[1]["question"]
    assert _only(_messages(tmp_path, golden=golden), tmp_path) == (
        "golden.json: TC_002.question: missing required field"
    )


def test_every_missing_field_reported_once(tmp_path: Path) -> None:
    golden = copy.deepcopy(BASE_GOLDEN)
    golden[0] = {"tags": []}
    messages = [m.replace(f"{tmp_path}/", "") for m in _messages(tmp_path, golden=golden)]
    assert messages == [
        "golden.json: [0].id: missing required field",
        "golden.json: [0].question: missing required field",
    ]


def test_problems_follow_document_order(tmp_path: Path) -> None:
    golden = [{"id": f"TC_{i:02d}", "question": "q", "tags": 1} for i in range(12)]
    locations = [p.location for p in validate_inputs(*_write(tmp_path, golden=golden))]
    assert locations == [f"TC_{i:02d}.tags" for i in range(12)]


def test_wrong_type_and_unknown_field(tmp_path: Path) -> None:
    golden = copy.deepcopy(BASE_GOLDEN)
    golden[0]["tags"] = "count"
    golden[1]["quesiton"] = "typo"
    messages = [m.replace(f"{tmp_path}/", "") for m in _messages(tmp_path, golden=golden)]
    assert sorted(messages) == [
        "golden.json: TC_001.tags: expected array, got string",
        "golden.json: TC_002.quesiton: unknown field (did you mean 'question'?)",
    ]


def test_duplicate_case_ids(tmp_path: Path) -> None:
    golden = copy.deepcopy(BASE_GOLDEN)
    golden[1]["id"] = "TC_001"
    assert _only(_messages(tmp_path, golden=golden), tmp_path) == (
        "golden.json: TC_001: duplicate case id (cases 1, 2)"
    )


@pytest.mark.parametrize("bad_id", ["TC 1", "TC|1", "TC,1", ""])
def test_invalid_case_id_characters(tmp_path: Path, bad_id: str) -> None:
    golden = copy.deepcopy(BASE_GOLDEN)
    golden[0]["id"] = bad_id
    message = _only(_messages(tmp_path, golden=golden), tmp_path)
    assert message.startswith(f"golden.json: [0].id: invalid value {json.dumps(bad_id)}")
    assert "partition keys" in message


def test_empty_dataset(tmp_path: Path) -> None:
    assert (
        _only(_messages(tmp_path, golden=[]), tmp_path) == "golden.json: the dataset has no cases"
    )


@pytest.mark.parametrize(
    ("reference", "found"),
    [
        ({"params": {}}, "found none"),
        ({"kpi": "order_count", "sql": "SELECT 1"}, "found kpi, sql"),
        ({"kpi": None, "decision": None}, "found none"),
    ],
)
def test_reference_needs_exactly_one_source(
    tmp_path: Path, reference: dict[str, Any], found: str
) -> None:
    golden = copy.deepcopy(BASE_GOLDEN)
    golden[0]["reference"] = [reference]
    assert _only(_messages(tmp_path, golden=golden), tmp_path) == (
        "golden.json: TC_001.reference[0]: a reference needs exactly one of kpi, decision, "
        f"core_node, sql ({found})"
    )


# --------------------------------------------------------------------------- golden semantics


def test_unknown_function_of_each_kind(tmp_path: Path) -> None:
    golden = copy.deepcopy(BASE_GOLDEN)
    golden[0]["reference"] = [
        {"kpi": "order_cnt"},
        {"decision": "nope"},
        {"core_node": "open_shares"},
    ]
    messages = [m.replace(f"{tmp_path}/", "") for m in _messages(tmp_path, golden=golden)]
    assert messages == [
        "golden.json: TC_001.reference[0].kpi: unknown KPI 'order_cnt' "
        "(did you mean 'order_count'?)",
        "golden.json: TC_001.reference[1].decision: unknown decision 'nope'",
        "golden.json: TC_001.reference[2].core_node: unknown core node 'open_shares' "
        "(did you mean 'open_share'?)",
    ]


def test_params_checked_against_declaration(tmp_path: Path) -> None:
    golden = copy.deepcopy(BASE_GOLDEN)
    golden[0]["reference"] = [
        {"kpi": "order_count", "params": {"state": "open"}},
        {"kpi": "order_count", "params": {"status": "pending"}},
        {"kpi": "revenue", "params": {"year": 2023}},
        {"kpi": "revenue", "params": {"min_amount": "100", "year": 2024.5}},
        {"kpi": "revenue", "params": {"min_amount": True}},
    ]
    messages = [
        m.replace(f"{tmp_path}/golden.json: TC_001.", "")
        for m in _messages(tmp_path, golden=golden)
    ]
    assert messages == [
        "reference[0].params.state: unknown param 'state' (declared: status)",
        "reference[1].params.status: \"pending\" is not one of the allowed values of 'status' "
        '("open", "closed")',
        "reference[2].params.min_amount: missing required param 'min_amount'",
        "reference[3].params.min_amount: \"100\" is not a valid number for param 'min_amount'",
        "reference[3].params.year: 2024.5 is not a valid integer for param 'year'",
        "reference[4].params.min_amount: true is not a valid number for param 'min_amount'",
    ]


@pytest.mark.parametrize(
    ("sql", "params", "expected"),
    [
        ("SELEC COUNT(*) FROM orders", {}, "SQL does not parse at line 1"),
        ("DELETE FROM orders", {}, "only SELECT / WITH queries are allowed, not DELETE"),
        ("SELECT 1; SELECT 2", {}, "expected exactly one SQL statement, found 2"),
        ("SELECT * FROM orders WHERE id = :id", {}, "uses :id but params has no value"),
        ("SELECT * FROM orders", {"id": 1}, "params id not used by the query"),
    ],
)
def test_sql_reference_problems(
    tmp_path: Path, sql: str, params: dict[str, Any], expected: str
) -> None:
    golden = copy.deepcopy(BASE_GOLDEN)
    golden[0]["reference"] = [{"sql": sql, "params": params}]
    message = _only(_messages(tmp_path, golden=golden), tmp_path)
    assert message.startswith("golden.json: TC_001.reference[0].sql: ")
    assert expected in message


def test_load_golden_raises_with_every_problem(tmp_path: Path) -> None:
    golden = copy.deepcopy(BASE_GOLDEN)
    golden[0]["reference"] = [{"kpi": "missing"}]
    golden[1]["reference"][3]["sql"] = "DROP TABLE orders"
    golden.append({"id": "TC_003"})
    bkg_path, golden_path = _write(tmp_path, golden=golden)
    with pytest.raises(InputError) as info:
        load_golden(golden_path, load_bkg(bkg_path))
    locations = [p.location for p in info.value.problems]
    assert locations == ["TC_003.question", "TC_001.reference[0].kpi", "TC_002.reference[3].sql"]
    assert "Traceback" not in str(info.value)


# --------------------------------------------------------------------------- BKG


def test_bkg_schema_problems_located_by_name(tmp_path: Path) -> None:
    bkg = _bkg()
    bkg["tables"][0]["columns"][2]["type"] = 5
    bkg["kpis"][0]["params"] = {"status": "string"}
    del bkg["kpis"][1]["description"]
    bkg["kpis"][1]["unit"] = "dollars"
    messages = [m.replace(f"{tmp_path}/bkg.json: ", "") for m in _messages(tmp_path, bkg=bkg)]
    assert sorted(messages) == sorted(
        [
            "tables.orders.columns[2].type: expected string, got integer",
            "kpis.order_count.params: expected array, got object",
            "kpis.revenue.description: missing required field",
            "kpis.revenue.unit: 'dollars' is not one of ['percent', 'fraction', 'count', "
            "'currency', 'number', 'points', 'ratio', 'seconds', 'minutes', 'hours', 'days', "
            "'weeks', None]",
        ]
    )


def test_python_function_that_does_not_compile(tmp_path: Path) -> None:
    kpi = _kpi()
    kpi["python_function"] = "def order_count(db):\n    x = (\n    return 1\n"
    message = _only(_messages(tmp_path, bkg=_with_kpi(kpi)), tmp_path)
    assert message.startswith("bkg.json: kpis.order_count.python_function: does not compile: line ")
    assert "line 2" in message or "line 3" in message


def test_python_function_that_fails_while_loading(tmp_path: Path) -> None:
    kpi = _kpi()
    kpi["python_function"] = "import not_a_module_xyz\n" + COUNT_SRC
    message = _only(_messages(tmp_path, bkg=_with_kpi(kpi)), tmp_path)
    assert "fails while loading: ModuleNotFoundError" in message
    assert "(kpis.order_count line 1)" in message


def test_python_function_without_the_declared_name(tmp_path: Path) -> None:
    kpi = _kpi()
    kpi["python_function"] = COUNT_SRC.replace("def order_count", "def count_orders")
    assert _only(_messages(tmp_path, bkg=_with_kpi(kpi)), tmp_path) == (
        "bkg.json: kpis.order_count.python_function: does not define a function named 'order_count'"
    )


@pytest.mark.parametrize(
    "source",
    [
        "def order_count(db):\n    return 1\n",  # declared param 'status' not accepted
        "def order_count(status=None):\n    return 1\n",  # no db argument
        "def order_count(db, status, extra):\n    return 1\n",  # needs an undeclared arg
    ],
)
def test_signature_must_accept_declared_params(tmp_path: Path, source: str) -> None:
    kpi = _kpi()
    kpi["python_function"] = source
    message = _only(_messages(tmp_path, bkg=_with_kpi(kpi)), tmp_path)
    assert message.startswith("bkg.json: kpis.order_count.python_function: signature order_count(")
    assert "cannot be called as fn(db, **params)" in message


def test_signature_with_kwargs_is_accepted(tmp_path: Path) -> None:
    kpi = _kpi()
    kpi["python_function"] = "def order_count(db, **params):\n    return 1\n"
    assert _messages(tmp_path, bkg=_with_kpi(kpi)) == []


def test_kpi_reading_undeclared_table(tmp_path: Path) -> None:
    kpi = _kpi()
    kpi["tables"] = ["orders", "order"]
    assert _only(_messages(tmp_path, bkg=_with_kpi(kpi)), tmp_path) == (
        "bkg.json: kpis.order_count.tables: unknown table 'order' (did you mean 'orders'?)"
    )


def test_relationship_to_unknown_table_or_column(tmp_path: Path) -> None:
    bkg = _bkg(
        relationships=[
            {"from": "orders.customer", "to": "customers.id"},
            {"from": "orders.customer_id", "to": "clients.id"},
            {"from": "orders", "to": "customers.id"},
        ]
    )
    messages = [m.replace(f"{tmp_path}/bkg.json: ", "") for m in _messages(tmp_path, bkg=bkg)]
    assert messages == [
        "relationships[2].from: invalid value \"orders\": must be written 'table.column'",
        "relationships[0].from: unknown column 'orders.customer' (did you mean 'customer_id'?)",
        "relationships[1].to: unknown table 'clients'",
    ]


def test_primary_key_and_fingerprint_columns_must_be_declared(tmp_path: Path) -> None:
    bkg = _bkg()
    bkg["tables"][0]["primary_key"] = ["order_id"]
    bkg["tables"][0]["fingerprint"]["columns"] = ["updated_at", "modified"]
    messages = [m.replace(f"{tmp_path}/bkg.json: ", "") for m in _messages(tmp_path, bkg=bkg)]
    assert messages == [
        "tables.orders.primary_key: 'order_id' is not a declared column of orders",
        "tables.orders.fingerprint.columns: 'modified' is not a declared column of orders",
    ]


def test_duplicate_names(tmp_path: Path) -> None:
    bkg = _bkg()
    bkg["kpis"].append(_kpi())
    bkg["tables"].append(copy.deepcopy(bkg["tables"][1]))
    bkg["tables"][0]["columns"].append(_col("ID"))
    messages = [m.replace(f"{tmp_path}/bkg.json: ", "") for m in _messages(tmp_path, bkg=bkg)]
    assert messages == [
        "tables.customers: duplicate table name",
        "tables.orders.columns: duplicate column 'ID'",
        "kpis.order_count: duplicate KPI name",
    ]


def test_param_default_must_match_its_type(tmp_path: Path) -> None:
    kpi = _kpi("revenue")
    kpi["params"][1]["default"] = "2024"
    assert _only(_messages(tmp_path, bkg=_with_kpi(kpi)), tmp_path) == (
        "bkg.json: kpis.revenue.params.year.default: "
        "\"2024\" is not a valid integer for param 'year'"
    )


def test_helpers_defined_differently_in_two_functions(tmp_path: Path) -> None:
    bkg = _bkg()
    bkg["kpis"][0]["python_function"] = "def _helper():\n    return 1\n\n" + COUNT_SRC
    bkg["kpis"][1]["python_function"] = "def _helper():\n    return 2\n\n" + REVENUE_SRC
    bkg["decisions"][0]["python_function"] = "def _helper():\n    return 1\n\n" + BIG_SRC
    message = _only(_messages(tmp_path, bkg=bkg), tmp_path)
    assert message.startswith("bkg.json: kpis.revenue.python_function: defines '_helper' ")
    assert "kpis.order_count" in message


def test_broken_kpi_is_not_also_reported_as_unknown(tmp_path: Path) -> None:
    bkg = _bkg()
    del bkg["kpis"][0]["description"]
    messages = _messages(tmp_path, bkg=bkg)
    assert (
        _only(messages, tmp_path)
        == "bkg.json: kpis.order_count.description: missing required field"
    )


def test_every_problem_of_both_files_at_once(tmp_path: Path) -> None:
    bkg = _bkg()
    bkg["kpis"][1]["tables"] = ["ghost"]
    bkg["decisions"][0]["python_function"] = "def big_customers(:\n"
    bkg["tables"][1]["primary_key"] = ["pk"]
    golden = copy.deepcopy(BASE_GOLDEN)
    golden[0]["id"] = "TC 1"
    golden[1]["reference"][0]["params"] = {}
    golden.append({"id": "TC_002", "question": "again", "reference": [{"kpi": "unknown"}]})
    problems = validate_inputs(*_write(tmp_path, bkg, golden))
    locations = {p.location for p in problems}
    assert locations == {
        "tables.customers.primary_key",
        "kpis.revenue.tables",
        "decisions.big_customers.python_function",
        "[0].id",
        "TC_002",
        "TC_002.reference[0].params.min_amount",
        "TC_002.reference[0].kpi",
    }
    with pytest.raises(InputError) as info:
        load_bkg(tmp_path / "bkg.json")
    assert len(info.value.problems) == 3


# --------------------------------------------------------------------------- live database


LIVE_VALUES: dict[str, tuple[str, list[object]]] = {
    "id": ("INTEGER", [1, 2]),
    "customer_id": ("INTEGER", [1, 1]),
    "amount": ("NUMERIC", [150.0, 50.0]),
    "status": ("TEXT", ["open", "closed"]),
    "updated_at": ("TEXT", ["2026-01-01", "2026-01-02"]),
    "area": ("TEXT", ["West", "East"]),
}


def _live_db(url: str, tables: dict[str, list[str]]) -> None:
    """Tables with the named columns and two rows, so the references run and return values."""
    writer = Database(url, read_only=False)
    for name, columns in tables.items():
        types = ", ".join(f"{c} {LIVE_VALUES[c][0]}" for c in columns)
        writer.execute(f"CREATE TABLE {name} ({types})")
        for i in range(2):
            values = ", ".join(repr(LIVE_VALUES[c][1][i]) for c in columns)
            writer.execute(f"INSERT INTO {name} ({', '.join(columns)}) VALUES ({values})")
    writer.close()


def test_live_catalog_missing_table_and_column_sqlite(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'live.db'}"
    _live_db(url, {"orders": ["id", "customer_id", "amount", "status"]})
    messages = [m.replace(f"{tmp_path}/", "") for m in _messages(tmp_path, url=url)]
    assert messages == [
        "bkg.json: tables.orders.columns[4].name: "
        "column 'updated_at' not found in the database table",
        "bkg.json: tables.customers: table not found in the database sqlite:///live.db",
    ]


def test_live_catalog_on_postgres_matches_case_insensitively(
    tmp_path: Path, pg_schema_url: str
) -> None:
    _live_db(
        pg_schema_url,
        {
            "ORDERS": ["id", "customer_id", "amount", "status", "updated_at"],
            "customers": ["id", "area"],
        },
    )
    assert _messages(tmp_path, url=pg_schema_url) == []


def test_unreachable_database_redacts_password(tmp_path: Path) -> None:
    url = "postgresql+psycopg2://eve:topsecret@127.0.0.1:1/none"
    messages = _messages(tmp_path, url=url)
    assert len(messages) == 1
    assert messages[0].startswith(
        "postgresql+psycopg2://eve:***@127.0.0.1:1/none: cannot reach the database: "
    )
    assert "topsecret" not in messages[0]


def test_sql_parsed_with_the_database_dialect(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'live.db'}"
    _live_db(
        url,
        {
            "orders": ["id", "customer_id", "amount", "status", "updated_at"],
            "customers": ["id", "area"],
        },
    )
    golden = copy.deepcopy(BASE_GOLDEN)
    golden[0]["reference"] = [{"sql": "SELECT id FROM orders ORDER BY id LIMIT 1 OFFSET 1"}]
    assert _messages(tmp_path, golden=golden, url=url) == []


# --------------------------------------------------------------------------- published schemas


@pytest.mark.parametrize("name", ["bkg", "golden_dataset"])
def test_schemas_are_valid_documented_draft_2020_12(name: str) -> None:
    schema = load_schema(name)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    for title, definition in schema["$defs"].items():
        assert definition["description"], title
        if definition.get("type") == "object" and "properties" in definition:
            assert definition["additionalProperties"] is False, title
            for prop, spec in definition["properties"].items():
                assert spec.get("description"), f"{title}.{prop}"


def _model_fields(model: type[pydantic.BaseModel]) -> set[str]:
    return {info.alias or name for name, info in model.model_fields.items()}


@pytest.mark.parametrize(
    ("schema_name", "definition", "model"),
    [
        ("bkg", "Column", models.Column),
        ("bkg", "Fingerprint", models.Fingerprint),
        ("bkg", "Table", models.Table),
        ("bkg", "Relationship", models.Relationship),
        ("bkg", "Param", models.Param),
        ("bkg", "Function", models.Function),
        ("bkg", "GlossaryEntry", models.GlossaryEntry),
        ("golden_dataset", "GoldenCase", models.GoldenCase),
        ("golden_dataset", "Reference", models.Reference),
        ("golden_dataset", "EvaluationCriteria", models.EvaluationCriteria),
    ],
)
def test_schema_matches_model(
    schema_name: str, definition: str, model: type[pydantic.BaseModel]
) -> None:
    spec = load_schema(schema_name)["$defs"][definition]
    assert set(spec["properties"]) == _model_fields(model)
    required = {
        info.alias or name for name, info in model.model_fields.items() if info.is_required()
    }
    assert set(spec["required"]) == required


def test_bkg_schema_top_level_matches_model() -> None:
    schema = load_schema("bkg")
    assert set(schema["properties"]) == _model_fields(models.BKG)
    assert schema["additionalProperties"] is False


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("sqlite:///{tmp}/absent.db", "cannot open the database: the SQLite file"),
        ("mysql://root:hunter2@db.example/x", "cannot open the database: unsupported database"),
    ],
)
def test_unusable_database_urls(tmp_path: Path, url: str, expected: str) -> None:
    message = _only(_messages(tmp_path, url=url.format(tmp=tmp_path)), tmp_path)
    assert expected in message
    assert "hunter2" not in message
    assert not (tmp_path / "absent.db").exists()


def test_examples_in_the_format_docs_are_valid(tmp_path: Path) -> None:
    docs = PROJECT_ROOT / "docs" / "formats.md"
    examples = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", docs.read_text(), re.S)]
    (bkg,) = [e for e in examples if isinstance(e, dict) and "kpis" in e]
    (golden,) = [e for e in examples if isinstance(e, list)]  # the other: a chatbot request
    assert _messages(tmp_path, bkg=bkg, golden=golden) == []


# --------------------------------------------------------------------------- sizes


def test_oversized_golden_fields_are_problems_with_file_case_and_field(tmp_path: Path) -> None:
    golden = copy.deepcopy(BASE_GOLDEN)
    golden[0]["question"] = "How many? " * 1_000_000  # 10 MB
    golden[1]["evaluation_criteria"] = {"acceptable": ["fine", "x" * 20_001]}
    golden[1]["reference"][3]["sql"] = "SELECT 1 " + " " * 30_000
    messages = [m.replace(f"{tmp_path}/", "") for m in _messages(tmp_path, golden=golden)]
    assert messages == [
        "golden.json: TC_001.question: 10,000,000 characters, more than the 20,000 allowed "
        "(EVAL_GOLDEN_MAX_FIELD_CHARS)",
        "golden.json: TC_002.evaluation_criteria.acceptable[1]: 20,001 characters, more than "
        "the 20,000 allowed (EVAL_GOLDEN_MAX_FIELD_CHARS)",
        "golden.json: TC_002.reference[3].sql: 30,009 characters, more than the 20,000 allowed "
        "(EVAL_GOLDEN_MAX_FIELD_CHARS)",
    ]
    bkg_path, golden_path = _write(tmp_path, golden=golden)
    with pytest.raises(InputError) as raised:
        load_golden(golden_path, load_bkg(bkg_path))
    assert [p.location for p in raised.value.problems] == [
        "TC_001.question",
        "TC_002.evaluation_criteria.acceptable[1]",
        "TC_002.reference[3].sql",
    ]


def test_the_field_limit_is_configurable(tmp_path: Path) -> None:
    golden = copy.deepcopy(BASE_GOLDEN)
    golden[0]["question"] = "How many open orders, counted by region and by month?"
    bkg_path, golden_path = _write(tmp_path, golden=golden)
    assert validate_inputs(bkg_path, golden_path, max_field_chars=60) == []
    problems = validate_inputs(bkg_path, golden_path, max_field_chars=50)
    assert [p.location for p in problems] == ["TC_001.question"]
    assert "53 characters, more than the 50 allowed" in problems[0].message
