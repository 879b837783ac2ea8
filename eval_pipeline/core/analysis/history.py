"""Plain-SQL views over the results store, so an evaluation's history is queryable without Python.

The store keeps one JSON payload per (asset, run, case) materialization in ``records``. These views
unpack the payloads with the database's own JSON functions — SQLite's ``json_each`` /
``json_extract``, PostgreSQL's ``json_each`` / ``->`` / ``->>`` — so they are always current: no
indexing step can be forgotten and nothing is stored twice. ``create_history_views`` (re)creates
them; it is idempotent and safe to call on every start.

``eval_latest_records``
    The newest row of ``records`` per (asset, run_key, case_id): the current result, with
    ``reused`` as 0/1 on both databases.
``eval_dimension_scores``
    One row per judge_scores materialization × dimension: ``record_id``, ``run_key``,
    ``case_id``, ``dimension``, ``state`` (scored / skipped / error), ``score`` (float, NULL
    unless scored), ``method``, ``reason``, ``created_at``, ``dagster_run_id``, ``reused`` (1
    when the row was copied from an earlier run because its inputs were unchanged) and
    ``is_latest`` (1 for the current materialization of that run and case, else 0).
``eval_claims``
    One row per claim of the current ``extracted_claims`` of each run and case, with the verdict
    of the current ``oracle_verdicts`` for that claim (NULL when the oracle gave none):
    ``run_key``, ``case_id``, ``claim_id``, ``text``, ``span`` (JSON), ``value``, ``unit``,
    ``kind``, ``verdict``, ``reason``, ``evidence`` (JSON array), ``created_at``.
``eval_runs``
    One row per run from its current ``eval_run`` summary: ``run_key``, ``created_at``,
    ``cases_total``, ``cases_passed``, ``cases_failed``, ``cases_error``, ``pass_rate``,
    ``coverage``, ``mean_overall``, ``report_path``.
``evaluations``
    One row per (run, case or logged conversation, dimension) of the current ``judge_scores``: a
    superset of the help-desk seed's table. ``id`` (``run_key/case_id/dimension``),
    ``run_key``, ``case_id``, ``conversation_id`` (for a case created from a logged
    conversation, else NULL), ``dimension``, ``score`` (normalised to [0, 1]), ``raw_score``
    (on the dimension's own scale, a rubric's 1–5; else the normalised score), ``state``,
    ``method``, ``justification`` (the judge's justification or the dimension's reason),
    ``created_at``, ``dagster_run_id``.

Example — the runs where a dimension's mean dropped under 0.8::

    SELECT run_key, AVG(score) FROM eval_dimension_scores
    WHERE dimension = 'oracle' AND is_latest = 1 AND state = 'scored'
    GROUP BY run_key HAVING AVG(score) < 0.8;
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import sqlalchemy as sa

from eval_pipeline.core.attempts import RunLedger
from eval_pipeline.core.conversations import CASE_PREFIX
from eval_pipeline.core.results_store import RECORDS, RUN_WIDE, ResultsStore
from eval_pipeline.core.summary import RunSummary

HISTORY_VIEWS = (
    "eval_latest_records",
    "eval_dimension_scores",
    "eval_claims",
    "eval_runs",
    "evaluations",
)
_NEWEST_COLUMN = (
    "span"  # the last column added to eval_claims: a store with older views gets new ones
)


@dataclass(frozen=True)
class _JSON:
    """The few JSON expressions the views need, spelled for one dialect.

    On PostgreSQL ``payload`` is text, so every access casts to ``json`` first; casting a
    ``json`` value again is a no-op.
    """

    dialect: str

    def members(self, column: str, key: str, alias: str) -> str:
        """A FROM item with one row per member of the object at ``key`` (``key``, ``value``)."""
        if self.dialect == "sqlite":
            return f"json_each({column}, '$.{key}') AS {alias}"
        return f"LATERAL json_each(CAST({column} AS json) -> '{key}') AS {alias}"

    def elements(self, column: str, key: str, alias: str) -> str:
        """A FROM item with one row per element of the array at ``key`` (``value``)."""
        if self.dialect == "sqlite":
            return f"json_each({column}, '$.{key}') AS {alias}"
        return f"LATERAL json_array_elements(CAST({column} AS json) -> '{key}') AS {alias}(value)"

    def text(self, json_expr: str, key: str) -> str:
        if self.dialect == "sqlite":
            return f"json_extract({json_expr}, '$.{key}')"
        return f"(CAST({json_expr} AS json) ->> '{key}')"

    def number(self, json_expr: str, key: str) -> str:
        kind = "REAL" if self.dialect == "sqlite" else "DOUBLE PRECISION"
        return f"CAST({self.text(json_expr, key)} AS {kind})"

    def integer(self, json_expr: str, key: str) -> str:
        return f"CAST({self.text(json_expr, key)} AS INTEGER)"

    def raw(self, json_expr: str, key: str) -> str:
        """The member as JSON: text holding JSON on SQLite, ``json`` on PostgreSQL."""
        if self.dialect == "sqlite":
            return f"json_extract({json_expr}, '$.{key}')"
        return f"(CAST({json_expr} AS json) -> '{key}')"


def _view_sql(j: _JSON) -> dict[str, str]:
    latest = """
        SELECT r.id, r.asset, r.run_key, r.case_id, r.created_at, r.dagster_run_id,
               r.content_hash, r.input_fingerprint,
               CASE WHEN r.reused THEN 1 ELSE 0 END AS reused, r.payload
        FROM records r
        JOIN (SELECT MAX(id) AS id FROM records GROUP BY asset, run_key, case_id) newest
          ON newest.id = r.id
    """
    dimension_scores = f"""
        SELECT r.id AS record_id, r.run_key, r.case_id, d.key AS dimension,
               {j.text("d.value", "state")} AS state,
               {j.number("d.value", "score")} AS score,
               {j.text("d.value", "method")} AS method,
               {j.text("d.value", "reason")} AS reason,
               r.created_at, r.dagster_run_id,
               CASE WHEN r.reused THEN 1 ELSE 0 END AS reused,
               CASE WHEN newest.id IS NULL THEN 0 ELSE 1 END AS is_latest
        FROM records r
        CROSS JOIN {j.members("r.payload", "dimensions", "d")}
        LEFT JOIN (
            SELECT MAX(id) AS id FROM records
            WHERE asset = 'judge_scores' GROUP BY run_key, case_id
        ) newest ON newest.id = r.id
        WHERE r.asset = 'judge_scores'
    """
    claims = f"""
        SELECT c.run_key, c.case_id, c.claim_id, c.text, c.span, c.value, c.unit, c.kind,
               v.verdict, v.reason, v.evidence, c.created_at
        FROM (
            SELECT x.run_key, x.case_id, x.created_at,
                   {j.text("e.value", "id")} AS claim_id,
                   {j.text("e.value", "text")} AS text,
                   {j.raw("e.value", "span")} AS span,
                   {j.number("e.value", "value")} AS value,
                   {j.text("e.value", "unit")} AS unit,
                   {j.text("e.value", "kind")} AS kind
            FROM eval_latest_records x
            CROSS JOIN {j.elements("x.payload", "claims", "e")}
            WHERE x.asset = 'extracted_claims'
        ) c
        LEFT JOIN (
            SELECT y.run_key, y.case_id,
                   {j.text("e.value", "claim_id")} AS claim_id,
                   {j.text("e.value", "verdict")} AS verdict,
                   {j.text("e.value", "reason")} AS reason,
                   {j.raw("e.value", "evidence")} AS evidence
            FROM eval_latest_records y
            CROSS JOIN {j.elements("y.payload", "verdicts", "e")}
            WHERE y.asset = 'oracle_verdicts'
        ) v
          ON v.run_key = c.run_key AND v.case_id = c.case_id AND v.claim_id = c.claim_id
    """
    runs = f"""
        SELECT run_key, created_at,
               {j.integer("payload", "cases_total")} AS cases_total,
               {j.integer("payload", "cases_passed")} AS cases_passed,
               {j.integer("payload", "cases_failed")} AS cases_failed,
               {j.integer("payload", "cases_error")} AS cases_error,
               {j.number("payload", "pass_rate")} AS pass_rate,
               {j.number("payload", "coverage")} AS coverage,
               {j.number("payload", "mean_overall")} AS mean_overall,
               {j.text("payload", "report_path")} AS report_path
        FROM eval_latest_records
        WHERE asset = 'eval_run' AND case_id = ''
    """
    evaluations = f"""
        SELECT r.run_key || '/' || r.case_id || '/' || d.key AS id,
               r.run_key, r.case_id,
               CASE WHEN r.case_id LIKE '{CASE_PREFIX}%'
                    THEN SUBSTR(r.case_id, {len(CASE_PREFIX) + 1}) END AS conversation_id,
               d.key AS dimension,
               {j.number("d.value", "score")} AS score,
               COALESCE({j.number("d.value", "raw_score")},
                        {j.number("d.value", "score")}) AS raw_score,
               {j.text("d.value", "state")} AS state,
               {j.text("d.value", "method")} AS method,
               {j.text("d.value", "reason")} AS justification,
               r.created_at, r.dagster_run_id
        FROM eval_latest_records r
        CROSS JOIN {j.members("r.payload", "dimensions", "d")}
        WHERE r.asset = 'judge_scores'
    """
    return {
        "evaluations": evaluations,
        "eval_latest_records": latest,
        "eval_dimension_scores": dimension_scores,
        "eval_claims": claims,
        "eval_runs": runs,
    }


def ensure_history_views(engine: sa.Engine) -> None:
    """Create the views when one is missing or older than this code; a concurrent creator
    winning the race is fine."""
    if engine.dialect.name not in {"sqlite", "postgresql"}:
        return
    inspector = sa.inspect(engine)
    if set(HISTORY_VIEWS) <= set(inspector.get_view_names()) and _NEWEST_COLUMN in {
        c["name"] for c in inspector.get_columns("eval_claims")
    }:
        return
    try:
        create_history_views(engine)
    except sa.exc.DBAPIError:
        if not set(HISTORY_VIEWS) <= set(sa.inspect(engine).get_view_names()):
            raise


def create_history_views(engine: sa.Engine) -> tuple[str, ...]:
    """(Re)create the history views in one transaction; returns their names."""
    if engine.dialect.name not in {"sqlite", "postgresql"}:
        raise ValueError(f"history views support SQLite and PostgreSQL, not {engine.dialect.name}")
    RECORDS.create(engine, checkfirst=True)
    views = _view_sql(_JSON(engine.dialect.name))
    with engine.begin() as conn:
        for name in reversed(HISTORY_VIEWS):
            conn.execute(sa.text(f"DROP VIEW IF EXISTS {name}"))
        for name in HISTORY_VIEWS:
            conn.execute(sa.text(f"CREATE VIEW {name} AS {views[name]}"))
    return HISTORY_VIEWS


@dataclass(frozen=True)
class HistoryEntry:
    """One attempt of a run key: a summary it was given, or an attempt that stopped before one."""

    run_key: str
    attempt: int
    """1, 2, … per run key, oldest first."""
    status: str
    """``current`` (the summary the run key shows), ``superseded``, or an attempt's status
    without a summary: ``unreachable``, ``stopped``, ``running``, ``interrupted``."""
    summary: RunSummary | None
    chatbot: str = ""
    """The chatbot asked; empty for a summary no recorded attempt wrote (a Dagster-launched run,
    or one evaluated before attempts were recorded)."""
    message: str = ""


def run_history(
    store: ResultsStore,
    ledger: RunLedger,
    last: int | None = None,
    evaluating: Callable[[str], bool] = lambda run_key: True,
) -> list[HistoryEntry]:
    """Every attempt of every run key (of the ``last`` keys first evaluated most recently), each
    key's attempts oldest first; a ``running`` attempt of a key nobody is ``evaluating`` now is
    ``interrupted`` (its process was killed).

    Summaries and stopped attempts are ordered in record-id space: a summary by its row, a
    stopped attempt by the last row written before it started.
    """
    attempts = ledger.attempts()
    made_by = {a.summary_id: a for a in attempts if a.summary_id is not None}
    events: dict[str, list[tuple[float, HistoryEntry]]] = {}
    for key in store.run_keys("eval_run"):
        rows = store.history_rows("eval_run", key, RUN_WIDE)
        for n, (row_id, payload) in enumerate(rows, start=1):
            writer = made_by.get(row_id)
            status = "current" if n == len(rows) else "superseded"
            summary = RunSummary.model_validate(payload)
            entry = HistoryEntry(key, 0, status, summary, writer.chatbot if writer else "")
            events.setdefault(key, []).append((row_id, entry))
    for a in attempts:
        if a.summary_id is None:
            gone = a.status == "running" and not evaluating(a.run_key)
            status = "interrupted" if gone else a.status
            entry = HistoryEntry(a.run_key, 0, status, None, a.chatbot, a.message)
            events.setdefault(a.run_key, []).append((a.records_before + 0.5, entry))
    keys = sorted(events, key=lambda k: min(at for at, _ in events[k]))
    return [
        dataclasses.replace(entry, attempt=n)
        for key in (keys[-last:] if last else keys)
        for n, (_, entry) in enumerate(sorted(events[key], key=lambda e: e[0]), start=1)
    ]
