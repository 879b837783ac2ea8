"""The check every statement passes before it reaches the warehouse, whoever wrote it.

BKG functions, golden SQL references, model-written SQL, the SQL a chatbot reports: each runs on
the read-only handle (``db.Database``), which refuses a statement unless it is exactly one query
(``SELECT``, ``WITH``, ``VALUES``, ``TABLE``, ``SHOW``) calling no function whose effects escape
the read-only transaction it runs in (signalling backends, reading server files, large objects,
other sessions through ``dblink``, settings, sleeping, SQL given as a string...).

Only a ``;`` separates statements on PostgreSQL's simple query protocol, so any ``;`` before the
end is refused, even one that a lexer would place inside a string or a comment: the test does not
depend on sqlglot and the server agreeing about quoting. Function names are found on sqlglot's
tokens (quoted, schema-qualified and commented-apart calls included).
"""

from __future__ import annotations

import re
from itertools import pairwise

import sqlglot
from sqlglot.errors import SqlglotError
from sqlglot.tokens import Token, TokenType

SQLGLOT_DIALECTS: dict[str, str] = {"sqlite": "sqlite", "postgresql": "postgres"}

BLOCKED_FUNCTIONS: frozenset[str] = frozenset(
    {
        "currval",
        "edit",
        "fts3_tokenizer",
        "lastval",
        "load_extension",
        "nextval",
        "pg_backup_start",
        "pg_backup_stop",
        "pg_cancel_backend",
        "pg_current_xact_id",
        "pg_export_snapshot",
        "pg_import_system_collations",
        "pg_log_backend_memory_contexts",
        "pg_notify",
        "pg_promote",
        "pg_reload_conf",
        "pg_rotate_logfile",
        "pg_start_backup",
        "pg_stat_file",
        "pg_stat_statements_reset",
        "pg_stop_backup",
        "pg_switch_wal",
        "pg_terminate_backend",
        "pg_truncate_visibility_map",
        "readfile",
        "set_config",
        "setval",
        "writefile",
    }
)
BLOCKED_PREFIXES: tuple[str, ...] = (
    "dblink",
    "lo_",
    "pg_advisory",
    "pg_background",
    "pg_create_",
    "pg_drop_",
    "pg_file_",
    "pg_logical_",
    "pg_ls_",
    "pg_read_",
    "pg_replication_",
    "pg_sleep",
    "pg_stat_reset",
    "pg_try_advisory",
    "pg_wal_replay_",
    "txid_",
)
# Functions that run SQL passed to them as a string, out of reach of every other check.
BLOCKED_SUFFIXES: tuple[str, ...] = ("_to_xml", "_to_xmlschema", "_to_xml_and_xmlschema")

_QUERY_STARTS = frozenset(
    {TokenType.SELECT, TokenType.WITH, TokenType.VALUES, TokenType.TABLE, TokenType.SHOW}
)
_UNICODE_ESCAPE = re.compile(r"\bU&['\"]", re.IGNORECASE)


class UnsafeSQLError(ValueError):
    """A statement the read-only handle refuses to send to the warehouse."""


def is_blocked_function(name: str) -> bool:
    name = name.lower()
    return (
        name in BLOCKED_FUNCTIONS
        or name.startswith(BLOCKED_PREFIXES)
        or name.endswith(BLOCKED_SUFFIXES)
    )


def _body(sql: str) -> str:
    """The statement without the trailing semicolons and blanks a query may end with."""
    return re.sub(r"[\s;]+$", "", sql)


def _tokens(sql: str, dialect: str | None) -> list[Token]:
    try:
        return list(sqlglot.tokenize(sql, read=SQLGLOT_DIALECTS.get(dialect or "")))
    except (SqlglotError, ValueError) as exc:
        raise UnsafeSQLError(f"SQL does not tokenize: {str(exc).splitlines()[0]}") from None


def blocked_functions(tokens: list[Token]) -> list[str]:
    """Names called in ``tokens`` (a name right before ``(``) that the deny-list holds."""
    called = {
        name.text.lower()
        for name, paren in pairwise(tokens)
        if paren.token_type == TokenType.L_PAREN and is_blocked_function(name.text)
    }
    return sorted(called)


def statement_problem(sql: str, dialect: str | None = None) -> str | None:
    """Why the read-only handle refuses ``sql``; None when it may run.

    ``dialect`` is a SQLAlchemy dialect name (``sqlite``, ``postgresql``).
    """
    body = _body(sql)
    try:
        tokens = _tokens(body, dialect)
    except UnsafeSQLError as exc:
        return str(exc)
    statements = 1 + sum(t.token_type == TokenType.SEMICOLON for t in tokens)
    if statements > 1:
        return f"expected exactly one SQL statement, found {statements}"
    if ";" in body:
        return (
            "expected exactly one SQL statement: a ';' before the end is refused even inside "
            "a string or a comment (write chr(59) for a literal semicolon)"
        )
    if _UNICODE_ESCAPE.search(body):
        return "Unicode-escaped identifiers and strings (U&'…', U&\"…\") are not allowed"
    first = next((t for t in tokens if t.token_type != TokenType.L_PAREN), None)
    if first is None:
        return "no SQL statement"
    if first.token_type not in _QUERY_STARTS:
        allowed = "SELECT, WITH, VALUES, TABLE, SHOW"
        return f"only queries may run on the warehouse ({allowed}), not {first.text.upper()}"
    blocked = blocked_functions(tokens)
    if blocked:
        return "functions with side effects are not allowed: " + ", ".join(blocked)
    return None


def check_statement(sql: str, dialect: str | None = None) -> None:
    """Raise ``UnsafeSQLError`` with the reason when the read-only handle refuses ``sql``."""
    problem = statement_problem(sql, dialect)
    if problem is not None:
        raise UnsafeSQLError(problem)
