"""A verdict never compares an answer with data the chatbot did not see.

The tables a case depends on (its references' declared tables and the tables in the bot's SQL)
are fingerprinted when the bot answers and again when the oracle verifies; if any changed in
between, the case's verdicts are ``stale`` — never ``contradicted`` — and the case is re-asked.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from eval_pipeline.core.dimensions.sql_check import tables_in_sql
from eval_pipeline.core.models import BKG, ChatPayload, GoldenCase, OracleResult, Verdict
from eval_pipeline.core.warehouse.db import Database


def case_tables(case: GoldenCase, bkg: BKG, sql_statements: Iterable[str] = ()) -> list[str]:
    """BKG tables the case's truth and the bot's answer read, by their BKG names."""
    names: set[str] = set()
    for ref in case.reference:
        if ref.sql is not None:
            names |= tables_in_sql(ref.sql)
        else:
            fn = bkg.function(ref.kind, ref.target)
            names |= set(fn.tables) if fn else set()
    for sql in sql_statements:
        names |= tables_in_sql(sql)
    declared = (bkg.table(n) for n in names)
    return sorted({t.name for t in declared if t is not None})


def table_fingerprints(db: Database, bkg: BKG) -> dict[str, str]:
    """Current fingerprint of every BKG table (one cheap query per table)."""
    return {t.name: db.fingerprint(t) for t in bkg.tables}


def stale_tables(payload: ChatPayload, current: Mapping[str, str]) -> list[str]:
    return sorted(t for t, fp in payload.data_fingerprints.items() if current.get(t) != fp)


def mark_stale(result: OracleResult, tables: list[str]) -> OracleResult:
    reason = f"stale: {', '.join(tables)} changed between the answer and the check"
    return result.model_copy(
        update={
            "stale_tables": tables,
            "verdicts": [
                Verdict(claim_id=v.claim_id, verdict="stale", reason=reason, evidence=v.evidence)
                for v in result.verdicts
            ],
        }
    )
