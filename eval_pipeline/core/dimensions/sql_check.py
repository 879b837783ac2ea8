"""The ``sql`` dimension: does the SQL the bot ran parse and touch only tables/columns that exist?

Names are compared case-insensitively and without schema qualifiers, because the BKG documents
bare table names while bots often write ``schema.table``. When a live catalog is given it is the
authority on existence (the SQL ran there); the BKG is the authority otherwise.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.scope import Scope, traverse_scope

from eval_pipeline.core.models import BKG, ChatPayload, DimensionResult

Catalog = Mapping[str, Collection[str]]

_WRITE_NODES: tuple[type[exp.Expr], ...] = (
    exp.Insert,
    exp.Update,
    exp.Delete,
    exp.Merge,
    exp.Create,
    exp.Drop,
    exp.Alter,
    exp.Command,
    exp.Into,
    exp.Lock,
)

_STATEMENT_NODES: tuple[type[exp.Expr], ...] = (
    exp.Query,
    exp.DML,
    exp.DDL,
    exp.Drop,
    exp.Alter,
)


def parse_sql(sql: str, dialect: str | None = None) -> tuple[list[exp.Expr], str]:
    """Parse with the configured dialect first, then the generic one; returns (trees, dialect).

    sqlglot accepts some garbage as an expression (``SELEC x`` is an alias) or as a raw command;
    neither is a statement whose names can be checked, so both count as a parse failure.
    Parses are cached and the trees shared: every stage reads the same statements, and callers
    only read the trees, never change them.
    """
    outcome = _parse_cached(sql, dialect)
    if isinstance(outcome, str):
        raise ValueError(outcome)
    trees, used = outcome
    return list(trees), used


@lru_cache(maxsize=1024)
def _parse_cached(sql: str, dialect: str | None) -> tuple[tuple[exp.Expr, ...], str] | str:
    errors: list[str] = []
    for candidate in dict.fromkeys([dialect, None]):
        try:
            trees = [tree for tree in sqlglot.parse(sql, read=candidate) if tree is not None]
        except (SqlglotError, ValueError) as exc:  # ValueError: a dialect sqlglot does not know
            errors.append(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
            continue
        odd = [tree for tree in trees if not isinstance(tree, _STATEMENT_NODES)]
        if trees and not odd:
            return tuple(trees), candidate or "generic"
        errors.append(f"not a SQL statement: {odd[0].sql()[:80]!r}" if odd else "no statement")
    return "; ".join(dict.fromkeys(errors))


def _table_name(table: exp.Table) -> str:
    return table.name.lower()


def _is_real_table(table: exp.Table) -> bool:
    return isinstance(table.this, exp.Identifier) and bool(table.name)


def _cte_names(tree: exp.Expr) -> set[str]:
    return {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}


def _tables(tree: exp.Expr) -> set[str]:
    ctes = _cte_names(tree)
    return {
        _table_name(table)
        for table in tree.find_all(exp.Table)
        if _is_real_table(table) and not (table.name.lower() in ctes and not table.db)
    }


@lru_cache(maxsize=8192)
def tables_in_sql(sql: str, dialect: str | None = None) -> frozenset[str]:
    """Bare, lower-cased names of the tables a query reads or writes (CTE names excluded).

    Cached: every stage asks this of the same statements, and parsing dominates.
    """
    try:
        trees, _ = parse_sql(sql, dialect)
    except ValueError:
        return frozenset()
    return frozenset().union(*(_tables(tree) for tree in trees))


def sql_is_read_only(sql: str, dialect: str | None = None) -> bool:
    """True only for one SELECT (WITH/UNION allowed) that writes, creates and locks nothing."""
    try:
        trees, _ = parse_sql(sql, dialect)
    except ValueError:
        return False
    if len(trees) != 1 or not isinstance(trees[0], exp.Query):
        return False
    return not any(isinstance(node, _WRITE_NODES) for node in trees[0].walk())


@dataclass
class _Known:
    """The tables and columns that exist, keyed by bare lower-cased table name."""

    columns: dict[str, set[str]]
    described: set[str]

    @classmethod
    def build(cls, bkg: BKG, live_catalog: Catalog | None) -> _Known:
        documented = {
            t.name.split(".")[-1].lower(): {c.name.lower() for c in t.columns} for t in bkg.tables
        }
        existing = documented
        if live_catalog is not None:
            existing = {
                name.split(".")[-1].lower(): {c.lower() for c in cols}
                for name, cols in live_catalog.items()
            }
        return cls(existing, set(documented))


@dataclass
class _Findings:
    tables: set[str] = field(default_factory=set)
    unknown_tables: set[str] = field(default_factory=set)
    unknown_columns: set[str] = field(default_factory=set)

    def to_dict(self) -> dict[str, Any]:
        return {
            "tables": sorted(self.tables),
            "unknown_tables": sorted(self.unknown_tables),
            "unknown_columns": sorted(self.unknown_columns),
        }


def _output_names(scope: Scope) -> set[str] | None:
    """Column names a derived table or CTE exposes; None when it selects ``*`` (anything goes)."""
    expression = scope.expression
    if not isinstance(expression, exp.Query) or any(e.is_star for e in expression.selects):
        return None
    return {name.lower() for name in expression.named_selects}


def _source_has(source: object, column: str, known: _Known) -> bool:
    if isinstance(source, exp.Table):
        columns = known.columns.get(_table_name(source))
        return columns is None or column in columns  # unknown tables are reported once, as tables
    if isinstance(source, Scope):
        names = _output_names(source)
        return names is None or column in names
    return True  # table functions, VALUES, UNNEST...: no static schema to check against


def _owner(column: exp.Column, owners: set[int]) -> exp.Expr | None:
    """The innermost query holding a column: sqlglot also lists subquery columns on the parent."""
    node = column.parent
    while node is not None and id(node) not in owners:
        node = node.parent
    return node


def _check_scope(scope: Scope, known: _Known, findings: _Findings, owners: set[int]) -> None:
    aliases = {a.alias.lower() for a in scope.expression.find_all(exp.Alias) if a.alias}
    sources = {
        alias.lower(): source
        for level in reversed(_scope_chain(scope))
        for alias, source in level.sources.items()
    }
    selected = [source for _, source in scope.selected_sources.values()]
    for column in scope.columns:
        if isinstance(column.this, exp.Star) or _owner(column, owners) is not scope.expression:
            continue
        name = column.name.lower()
        qualifier = column.table.lower()
        if qualifier:
            source = sources.get(qualifier)
            if source is None:
                findings.unknown_columns.add(f"{qualifier}.{name}")
            elif not _source_has(source, name, known):
                findings.unknown_columns.add(f"{_qualifier_table(source, qualifier)}.{name}")
            continue
        if name in aliases or any(_source_has(source, name, known) for source in selected):
            continue
        enclosing = [
            s for level in _scope_chain(scope)[1:] for _, s in level.selected_sources.values()
        ]
        if any(_source_has(source, name, known) for source in enclosing):
            continue  # a correlated reference to an enclosing query's table
        findings.unknown_columns.add(name)


def _scope_chain(scope: Scope) -> list[Scope]:
    """The scope and its enclosing scopes, innermost first: correlated subqueries see them all."""
    chain = [scope]
    while chain[-1].parent is not None:
        chain.append(chain[-1].parent)
    return chain


def _qualifier_table(source: object, qualifier: str) -> str:
    return _table_name(source) if isinstance(source, exp.Table) else qualifier


def _check_tree(tree: exp.Expr, known: _Known, findings: _Findings) -> None:
    tables = _tables(tree)
    findings.tables |= tables
    findings.unknown_tables |= {t for t in tables if t not in known.columns}
    scopes = traverse_scope(tree)
    owners = {id(scope.expression) for scope in scopes}
    for scope in scopes:
        _check_scope(scope, known, findings, owners)


def _check_statement(sql: str, known: _Known, dialect: str | None) -> dict[str, Any]:
    try:
        trees, used_dialect = parse_sql(sql, dialect)
    except ValueError as exc:
        return {"sql": sql, "parsed": False, "valid": False, "error": str(exc), "tables": []}
    findings = _Findings()
    try:
        for tree in trees:
            _check_tree(tree, known, findings)
    except SqlglotError as exc:
        return {"sql": sql, "parsed": False, "valid": False, "error": str(exc), "tables": []}
    valid = not findings.unknown_tables and not findings.unknown_columns
    return {
        "sql": sql,
        "parsed": True,
        "dialect": used_dialect,
        "valid": valid,
        **findings.to_dict(),
        "undocumented_tables": sorted(findings.tables - known.described),
    }


def sql_dimension(
    payload: ChatPayload,
    bkg: BKG,
    live_catalog: Catalog | None = None,
    *,
    dialect: str | None = None,
) -> DimensionResult:
    """Score = share of the bot's SQL statements that parse and use only existing names."""
    statements = payload.sql_statements
    method = "sqlglot+live_catalog" if live_catalog is not None else "sqlglot+bkg"
    if not statements:
        return DimensionResult(
            name="sql",
            state="skipped",
            method=method,
            reason="the chatbot ran no SQL",
            details={"statements": [], "tables_used": []},
        )
    known = _Known.build(bkg, live_catalog)
    checks = [_check_statement(sql, known, dialect) for sql in statements]
    valid = sum(1 for check in checks if check["valid"])
    unparsed = sum(1 for check in checks if not check["parsed"])
    unknown_tables = sorted({t for check in checks for t in check.get("unknown_tables", [])})
    unknown_columns = sorted({c for check in checks for c in check.get("unknown_columns", [])})
    problems = []
    if unparsed:
        problems.append(f"{unparsed} did not parse")
    if unknown_tables:
        problems.append("unknown tables: " + ", ".join(unknown_tables))
    if unknown_columns:
        problems.append("unknown columns: " + ", ".join(unknown_columns))
    summary = f"{valid}/{len(checks)} statements parse and use known tables and columns"
    return DimensionResult(
        name="sql",
        state="scored",
        score=valid / len(checks),
        method=method,
        reason="; ".join([summary, *problems]),
        details={
            "statements": checks,
            "tables_used": sorted({t for check in checks for t in check["tables"]}),
        },
    )
