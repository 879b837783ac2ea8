"""The sql dimension: parsing, alias/CTE resolution and checks against the BKG and live catalog."""

from __future__ import annotations

import pytest

from eval_pipeline.core.dimensions.sql_check import (
    parse_sql,
    sql_dimension,
    sql_is_read_only,
    tables_in_sql,
)
from eval_pipeline.core.models import BKG, ChatPayload, Column, Table, ToolCall


def table(name: str, *columns: str) -> Table:
    return Table(
        name=name,
        description="",
        primary_key=[columns[0]],
        columns=[Column(name=c, type="text", description="") for c in columns],
    )


BKG_FIXTURE = BKG(
    name="shop",
    tables=[
        table("orders", "id", "customer_id", "amount", "created_at", "status"),
        table("customers", "id", "name", "segment"),
    ],
)


def payload(*statements: str) -> ChatPayload:
    return ChatPayload(
        case_id="TC_001",
        question="q",
        tool_calls=[
            ToolCall(id=f"c{i}", name="run_sql", arguments={"sql": s}, sql=s)
            for i, s in enumerate(statements)
        ],
    )


def score_of(
    sql: str, live_catalog: dict[str, list[str]] | None = None, dialect: str | None = None
) -> float | None:
    return sql_dimension(payload(sql), BKG_FIXTURE, live_catalog, dialect=dialect).score


def test_no_sql_is_skipped_with_a_reason() -> None:
    result = sql_dimension(ChatPayload(case_id="TC_001", question="q"), BKG_FIXTURE)
    assert result.state == "skipped"
    assert result.score is None
    assert "no SQL" in result.reason


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT id, amount FROM orders",
        "SELECT o.amount, c.name FROM orders AS o JOIN public.customers c ON c.id = o.customer_id",
        "SELECT ORDERS.AMOUNT FROM Orders",
        "SELECT status, SUM(amount) AS total FROM orders GROUP BY status ORDER BY total DESC",
        "WITH big AS (SELECT customer_id, SUM(amount) AS spend FROM orders GROUP BY 1) "
        "SELECT c.name, b.spend FROM big b JOIN customers c ON c.id = b.customer_id",
        "SELECT name FROM customers c WHERE EXISTS "
        "(SELECT 1 FROM orders o WHERE o.customer_id = c.id AND status = 'paid')",
        "SELECT t.total FROM (SELECT SUM(amount) AS total FROM orders) t",
        "SELECT DATE_TRUNC('month', created_at) AS m, COUNT(*) FROM orders GROUP BY m",
        "SELECT id FROM orders UNION ALL SELECT id FROM customers",
    ],
)
def test_valid_statements_score_one(sql: str) -> None:
    assert score_of(sql) == 1.0


@pytest.mark.parametrize(
    ("sql", "unknown_tables", "unknown_columns"),
    [
        ("SELECT * FROM invoices", ["invoices"], []),
        ("SELECT revenue FROM orders", [], ["revenue"]),
        ("SELECT o.revenue FROM orders o", [], ["orders.revenue"]),
        ("SELECT x.id FROM orders o", [], ["x.id"]),
        ("WITH a AS (SELECT id FROM orders) SELECT a.amount FROM a", [], ["a.amount"]),
        (
            "SELECT id FROM customers WHERE id IN (SELECT id FROM orders WHERE label = 'x')",
            [],
            ["label"],
        ),
    ],
)
def test_unknown_names_are_reported(
    sql: str, unknown_tables: list[str], unknown_columns: list[str]
) -> None:
    result = sql_dimension(payload(sql), BKG_FIXTURE)
    assert result.score == 0.0
    statement = result.details["statements"][0]
    assert statement["unknown_tables"] == unknown_tables
    assert statement["unknown_columns"] == unknown_columns
    for name in unknown_tables + unknown_columns:
        assert name in result.reason


def test_score_is_the_share_of_valid_statements_and_lists_tables() -> None:
    result = sql_dimension(
        payload(
            "WITH recent AS (SELECT * FROM orders) SELECT COUNT(*) FROM recent",
            "SELECT nope FROM customers",
            "SELEC oops",
        ),
        BKG_FIXTURE,
    )
    assert result.state == "scored"
    assert result.score == pytest.approx(1 / 3)
    assert result.details["tables_used"] == ["customers", "orders"]
    assert "1 did not parse" in result.reason
    parsed = [s["parsed"] for s in result.details["statements"]]
    assert parsed == [True, True, False]


def test_live_catalog_is_the_authority_on_existence() -> None:
    live = {"public.orders": ["id", "amount", "discount"], "staging": ["id"]}
    assert score_of("SELECT discount FROM orders", live_catalog=live) == 1.0
    assert score_of("SELECT id FROM customers", live_catalog=live) == 0.0
    result = sql_dimension(payload("SELECT id FROM staging"), BKG_FIXTURE, live)
    assert result.score == 1.0
    assert result.details["statements"][0]["undocumented_tables"] == ["staging"]


def test_dialect_specific_syntax_falls_back_gracefully() -> None:
    trees, dialect = parse_sql("SELECT amount::numeric FROM orders", "postgres")
    assert dialect == "postgres" and len(trees) == 1
    _, dialect = parse_sql("SELECT amount FROM orders WHERE id = $1", "clickhouse")
    assert dialect == "generic"
    assert score_of("SELECT amount FROM orders", dialect="no-such-dialect") == 1.0
    with pytest.raises(ValueError, match="not a SQL statement"):
        parse_sql("SELEC amount", "postgres")


def test_tables_in_sql_excludes_ctes_and_aliases() -> None:
    sql = (
        "WITH totals AS (SELECT customer_id, SUM(amount) s FROM sales.orders GROUP BY 1) "
        "SELECT c.name FROM totals t JOIN Customers c ON c.id = t.customer_id"
    )
    assert tables_in_sql(sql) == {"orders", "customers"}
    assert tables_in_sql("not sql at all ((") == set()


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT 1", True),
        ("WITH a AS (SELECT 1 AS x) SELECT x FROM a", True),
        ("SELECT 1 UNION SELECT 2", True),
        ("SELECT 1; SELECT 2", False),
        ("DELETE FROM orders", False),
        ("UPDATE orders SET amount = 0", False),
        ("DROP TABLE orders", False),
        ("SELECT * INTO copy FROM orders", False),
        ("SELECT * FROM orders FOR UPDATE", False),
        ("WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d", False),
        ("", False),
    ],
)
def test_sql_is_read_only(sql: str, expected: bool) -> None:
    assert sql_is_read_only(sql, "postgres") is expected
