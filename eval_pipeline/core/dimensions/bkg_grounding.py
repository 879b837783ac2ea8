"""The ``bkg`` dimension without an LLM: is the answer grounded in the organisation's schema?

Score = 0.4 × heuristic + 0.6 × retrieval (the schema-aware LLM judge replaces the retrieval
part when one is configured).

Heuristic — do the entities the bot used exist in the BKG? The mean of the checks that apply:

- SQL: share of the tables and columns the bot's SQL names that the BKG declares (aliases and
  CTE names are not columns or tables);
- answer: share of the schema-like identifiers (``snake_case`` words) in the answer that appear
  anywhere in the BKG, 1.0 when the answer uses BKG vocabulary (table, column, KPI, decision,
  core-node, glossary or enumerated parameter values) without naming any identifier.

With neither (no SQL, no BKG vocabulary) there is nothing to check and the heuristic is a
neutral 0.5: the retrieval part then decides.

Retrieval — the top-K tables for the question by cosine between the question and a
"name: description. Columns: name (description); ..." document per table (26/26 golden
questions of the demo retrieve a table of their reference KPI within the top 3). The mean of:

- overlap: 1 when the bot's SQL reads at least one of the top-K tables, else 0 — a join through
  a helper table that retrieval did not rank is not punished, reading only unrelated tables is;
- alignment: the best cosine between the answer and a retrieved table's document on a
  ``ALIGN_LOW`` → ``ALIGN_HIGH`` ramp. Measured on the demo: correct answers 0.23–0.66 (median
  0.46), unrelated prose ≤ 0.19, refusals 0.16–0.36.

Nothing to ground — no SQL, no BKG vocabulary, and a refusal (or no answer at all) — is
``skipped``, so abstaining on an out-of-scope question is never punished here.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from statistics import fmean
from typing import Any

import numpy as np
from sqlglot import exp

from eval_pipeline.core.dimensions.judges import JudgedScore
from eval_pipeline.core.dimensions.on_topic import is_refusal
from eval_pipeline.core.dimensions.sql_check import parse_sql, tables_in_sql
from eval_pipeline.core.embeddings.encoder import (
    Embedder,
    EmbeddingError,
    cosine_ramp,
    default_embedder,
)
from eval_pipeline.core.llm.client import JudgeError
from eval_pipeline.core.models import BKG, DimensionResult, Table

METHOD = "heuristic+embedding"
HEURISTIC_WEIGHT = 0.4
RETRIEVAL_WEIGHT = 0.6
NEUTRAL = 0.5
ALIGN_LOW = 0.15
ALIGN_HIGH = 0.45

_IDENTIFIER = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b", re.IGNORECASE)


def table_document(table: Table) -> str:
    """The text a table is retrieved by: its name, description and documented columns."""
    columns = "; ".join(f"{c.name} ({c.description})" for c in table.columns)
    return f"{table.name}: {table.description} Columns: {columns}"


def _bare(name: str) -> str:
    return name.split(".")[-1].lower()


@dataclass(frozen=True)
class _Vocabulary:
    """What the BKG names: tables, columns, every identifier in its text, and its terms."""

    tables: frozenset[str]
    columns: frozenset[str]
    identifiers: frozenset[str]
    terms: re.Pattern[str] | None

    @classmethod
    def of(cls, bkg: BKG) -> _Vocabulary:
        tables = frozenset(_bare(t.name) for t in bkg.tables)
        columns = frozenset(c.name.lower() for t in bkg.tables for c in t.columns)
        functions = [f for group in (bkg.kpis, bkg.decisions, bkg.core_nodes) for f in group]
        enums = [
            value
            for f in functions
            for p in f.params
            for value in p.enum or []
            if isinstance(value, str)
        ]
        names = [*tables, *columns, *(f.name for f in functions), *enums]
        names += [g.term for g in bkg.glossary]
        phrases = {form.lower() for n in names for form in (n, n.replace("_", " ")) if len(n) > 1}
        alternation = "|".join(re.escape(p) for p in sorted(phrases, key=len, reverse=True))
        terms = re.compile(rf"\b(?:{alternation})(?:e?s)?\b", re.IGNORECASE) if phrases else None
        identifiers = frozenset(m.lower() for m in _IDENTIFIER.findall(bkg.model_dump_json()))
        return cls(tables, columns, identifiers | tables | columns, terms)

    def terms_in(self, text: str) -> set[str]:
        return {m.lower() for m in self.terms.findall(text)} if self.terms else set()


@dataclass
class _SqlNames:
    tables: set[str] = field(default_factory=set)
    columns: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, statements: Sequence[str]) -> _SqlNames:
        names = cls()
        for sql in statements:
            names.tables |= tables_in_sql(sql)
            names.columns |= _columns_in_sql(sql)
        return names


_VOCABULARIES: dict[int, tuple[BKG, _Vocabulary]] = {}
_VOCABULARIES_LOCK = threading.Lock()


def _vocabulary(bkg: BKG) -> _Vocabulary:
    """The vocabulary of a BKG object, built once: its big alternation costs more than a case.

    Keyed by identity (the BKG is never mutated) and holding the BKG so the id is not reused.
    """
    with _VOCABULARIES_LOCK:
        cached = _VOCABULARIES.get(id(bkg))
        if cached is None:
            if len(_VOCABULARIES) >= 8:
                _VOCABULARIES.clear()
            cached = _VOCABULARIES[id(bkg)] = (bkg, _Vocabulary.of(bkg))
        return cached[1]


def table_documents(bkg: BKG) -> list[str]:
    return [table_document(t) for t in bkg.tables]


@lru_cache(maxsize=8192)
def _columns_in_sql(sql: str) -> frozenset[str]:
    """Lower-cased column names a statement reads, aliases excluded; cached like the tables."""
    try:
        trees, _ = parse_sql(sql)
    except ValueError:
        return frozenset()
    columns: set[str] = set()
    for tree in trees:
        aliases = {a.alias.lower() for a in tree.find_all(exp.Alias) if a.alias}
        columns |= {
            c.name.lower()
            for c in tree.find_all(exp.Column)
            if c.name and not isinstance(c.this, exp.Star) and c.name.lower() not in aliases
        }
    return frozenset(columns)


def _heuristic(
    answer: str, names: _SqlNames, vocab: _Vocabulary
) -> tuple[float, dict[str, Any], list[str]]:
    unknown_tables = sorted(names.tables - vocab.tables)
    unknown_columns = sorted(names.columns - vocab.columns)
    identifiers = {m.lower() for m in _IDENTIFIER.findall(answer)}
    unknown_identifiers = sorted(identifiers - vocab.identifiers)
    terms = vocab.terms_in(answer)
    checks: dict[str, float] = {}
    sql_total = len(names.tables) + len(names.columns)
    if sql_total:
        checks["sql"] = 1 - (len(unknown_tables) + len(unknown_columns)) / sql_total
    if identifiers:
        checks["answer"] = 1 - len(unknown_identifiers) / len(identifiers)
    elif terms:
        checks["answer"] = 1.0
    problems = []
    if unknown_tables:
        problems.append("SQL reads undeclared tables: " + ", ".join(unknown_tables))
    if unknown_columns:
        problems.append("SQL uses undeclared columns: " + ", ".join(unknown_columns))
    if unknown_identifiers:
        problems.append("answer names unknown identifiers: " + ", ".join(unknown_identifiers))
    details = {
        "checks": {k: round(v, 4) for k, v in checks.items()},
        "sql_tables": sorted(names.tables),
        "sql_columns": sorted(names.columns),
        "unknown_tables": unknown_tables,
        "unknown_columns": unknown_columns,
        "answer_identifiers": sorted(identifiers),
        "unknown_identifiers": unknown_identifiers,
        "bkg_terms": sorted(terms),
        "neutral": not checks,
    }
    return (fmean(checks.values()) if checks else NEUTRAL), details, problems


def _retrieval(
    question: str,
    answer: str,
    sql_tables: set[str],
    bkg: BKG,
    top_k: int,
    embedder: Embedder,
) -> tuple[float | None, dict[str, Any]]:
    if not bkg.tables:
        return None, {"retrieved": [], "overlap": None, "alignment_cosine": None}
    documents = table_documents(bkg)
    vectors = embedder.encode([question, answer, *documents])
    table_vectors = vectors[2:]
    similarities = table_vectors @ vectors[0]
    top = [int(i) for i in np.argsort(-similarities, kind="stable")[:top_k]]
    retrieved = [_bare(bkg.tables[i].name) for i in top]
    parts: dict[str, float] = {}
    if sql_tables:
        parts["overlap"] = 1.0 if sql_tables & set(retrieved) else 0.0
    alignment_cosine = None
    if answer.strip():
        alignment_cosine = float(np.max(table_vectors[top] @ vectors[1]))
        parts["alignment"] = cosine_ramp(alignment_cosine, ALIGN_LOW, ALIGN_HIGH)
    details = {
        "retrieved": [
            {"table": name, "similarity": round(float(similarities[i]), 4)}
            for name, i in zip(retrieved, top, strict=True)
        ],
        "sql_tables_retrieved": sorted(sql_tables & set(retrieved)),
        "parts": {k: round(v, 4) for k, v in parts.items()},
        "alignment_cosine": None if alignment_cosine is None else round(alignment_cosine, 4),
        "alignment_ramp": [ALIGN_LOW, ALIGN_HIGH],
    }
    return (fmean(parts.values()) if parts else None), details


def bkg_dimension(
    question: str,
    answer: str,
    sql_statements: Sequence[str],
    bkg: BKG,
    *,
    top_k: int = 3,
    embedder: Embedder | None = None,
    judge_part: Callable[[list[str]], JudgedScore] | None = None,
    judge_method: str = "",
) -> DimensionResult:
    """Entity/schema grounding of the answer and its SQL in the BKG (see module docstring).

    With ``judge_part`` (a schema-aware LLM judge over the retrieved top-K tables), the judge's
    score replaces the embedding retrieval part of the weighted sum.
    """
    vocab = _vocabulary(bkg)
    names = _SqlNames.of(sql_statements)
    heuristic, heuristic_details, problems = _heuristic(answer, names, vocab)
    refusal = is_refusal(answer)
    vocabulary_used = bool(
        heuristic_details["bkg_terms"] or heuristic_details["answer_identifiers"]
    )
    nothing = None
    if not sql_statements and not vocabulary_used and (refusal or not answer.strip()):
        nothing = "no SQL, no BKG term, and " + ("a refusal" if refusal else "no answer")
    elif not answer.strip() and not names.tables:
        nothing = "no answer and no table read by the SQL"
    if nothing is not None:
        return DimensionResult(
            name="bkg",
            state="skipped",
            method=METHOD,
            reason=f"nothing to ground: {nothing}",
            details={"refusal": refusal},
        )
    try:
        retrieval, retrieval_details = _retrieval(
            question, answer, names.tables, bkg, top_k, embedder or default_embedder()
        )
    except EmbeddingError as exc:
        return DimensionResult(name="bkg", state="error", method=METHOD, reason=str(exc))
    method = METHOD
    if retrieval is not None and judge_part is not None:
        method = f"heuristic+{judge_method}"
        top = [str(r["table"]) for r in retrieval_details["retrieved"]]
        try:
            judged = judge_part(top)
        except JudgeError as exc:
            return DimensionResult(name="bkg", state="error", method=method, reason=str(exc))
        retrieval_details = {**retrieval_details, "judge": judged.details, "embedding": retrieval}
        retrieval = judged.score
        problems.append(f"judge: {judged.reason}")
    if retrieval is None:
        score = heuristic
        summary = f"heuristic {heuristic:.2f} alone: the BKG has no table to retrieve"
    else:
        score = HEURISTIC_WEIGHT * heuristic + RETRIEVAL_WEIGHT * retrieval
        tables = ", ".join(r["table"] for r in retrieval_details["retrieved"])
        summary = (
            f"heuristic {heuristic:.2f} × {HEURISTIC_WEIGHT} + retrieval {retrieval:.2f} × "
            f"{RETRIEVAL_WEIGHT} over top-{top_k} tables ({tables})"
        )
    if heuristic_details["neutral"]:
        problems.append("nothing schema-like to check: heuristic neutral")
    return DimensionResult(
        name="bkg",
        state="scored",
        score=round(score, 4),
        method=method,
        reason="; ".join([summary, *problems]),
        details={
            "heuristic": round(heuristic, 4),
            "retrieval": None if retrieval is None else round(retrieval, 4),
            "weights": {"heuristic": HEURISTIC_WEIGHT, "retrieval": RETRIEVAL_WEIGHT},
            "refusal": refusal,
            **heuristic_details,
            **retrieval_details,
        },
    )
