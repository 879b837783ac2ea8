"""Judge calibration: do judge models agree with each other, with themselves and with people?

A run's stored answers are re-judged by a panel of raters — several judge models, or one model
asked K times with the cache off — on the LLM-judged dimensions. Per dimension the panel's
Krippendorff α (interval scores) and every pair's Cohen κ (pass/fail at a threshold) are computed,
and, given human labels, each judge's α and κ against the people. One row per judge version
(model + prompt versions) and dimension goes to the ``judge_calibration`` table of the results
store; a judge version whose agreement is below the bar is "uncalibrated" there, and the gates
demote its dimensions to warnings.

The agreement that decides is the judge's α with people when there are human labels — that is
validity — and otherwise the panel's α: when the panel disagrees, nobody can tell which of its
judges is right, so none of them is trusted.

For ``bkg`` only the schema-aware judge part is calibrated (the heuristic part is deterministic),
over the top-K tables the run's scoring retrieved; human labels for ``bkg`` must score that part.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, fields
from datetime import UTC, datetime
from itertools import combinations
from pathlib import Path
from statistics import fmean
from typing import Any, Literal

import sqlalchemy as sa
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from eval_pipeline.core import json_text
from eval_pipeline.core.analysis.agreement import krippendorff_alpha_interval, pass_fail_kappa
from eval_pipeline.core.dimensions.judges import (
    bkg_judge_score,
    content_quality_dimension,
    on_topic_llm_dimension,
    prompt_versions,
)
from eval_pipeline.core.llm.client import JudgeClient, JudgeError
from eval_pipeline.core.models import (
    BKG,
    JUDGED_DIMENSIONS,
    ChatPayload,
    GoldenCase,
    OracleResult,
    Verdict,
)
from eval_pipeline.core.problems import InputError, Problem
from eval_pipeline.core.results_store import ResultsStore, engine_with_tables

Status = Literal["calibrated", "uncalibrated", "unknown"]


def judge_version(method: str, prompts: Mapping[str, str]) -> str:
    """What a calibration is valid for: the judge model and the version of every judge prompt."""
    return f"{method} [{', '.join(prompts[name] for name in sorted(prompts))}]"


@dataclass(frozen=True, order=True)
class Rater:
    """One member of the panel: a judge version and which of its K samples."""

    version: str
    model: str
    sample: int

    @property
    def label(self) -> str:
        return f"{self.model}#{self.sample + 1}"


Scores = dict[str, dict[Rater, dict[str, float | None]]]
"""dimension → rater → case id → score (None where the judge gave no score)."""
HumanLabels = dict[str, dict[str, float]]
"""dimension → case id → the people's score (the mean when several people labelled it)."""


# --------------------------------------------------------------------------- the run's cases


@dataclass(frozen=True)
class RunCase:
    """What the judges need to re-judge one answer of a stored run."""

    case: GoldenCase
    answer: str
    verdicts: list[Verdict]
    sql: list[str]
    bkg_tables: list[str] | None


def load_run_cases(
    store: ResultsStore, run_key: str, case_ids: Sequence[str] | None = None
) -> list[RunCase]:
    """The run's answered cases; errored, empty and removed ones have nothing to judge."""
    responses = store.latest("chatbot_responses", run_key, case_ids)
    if not responses:
        raise ValueError(f"no chatbot responses for run key {run_key!r} in the results store")
    golden = store.case_records("golden_cases", responses)
    verdicts = store.latest("oracle_verdicts", run_key, responses)
    scored = store.latest("judge_scores", run_key, responses)
    cases = []
    for case_id in sorted(responses):
        record = golden.get(case_id)
        payload = ChatPayload.model_validate(responses[case_id])
        if record is None or record.get("removed"):
            continue
        if payload.status == "error" or not payload.answer.strip():
            continue
        oracle = verdicts.get(case_id)
        retrieved = (
            scored.get(case_id, {})
            .get("dimensions", {})
            .get("bkg", {})
            .get("details", {})
            .get("retrieved")
        )
        cases.append(
            RunCase(
                case=GoldenCase.model_validate(record),
                answer=payload.answer,
                verdicts=OracleResult.model_validate(oracle).verdicts if oracle else [],
                sql=payload.sql_statements,
                bkg_tables=[str(r["table"]) for r in retrieved] if retrieved else None,
            )
        )
    return cases


# --------------------------------------------------------------------------- judging


def _judge_case(
    client: JudgeClient, item: RunCase, bkg: BKG, use_cache: bool
) -> dict[str, float | None]:
    case = item.case
    quality = content_quality_dimension(
        client, case, item.answer, item.verdicts, bkg, use_cache=use_cache
    )
    topic = on_topic_llm_dimension(
        client, case.question, item.answer, case_id=case.id, use_cache=use_cache
    )
    scores = {
        "content_quality": quality.score if quality.state == "scored" else None,
        "on_topic": topic.score if topic.state == "scored" else None,
    }
    if item.bkg_tables is not None:
        try:
            scores["bkg"] = bkg_judge_score(
                client,
                case.question,
                item.answer,
                item.sql,
                bkg,
                item.bkg_tables,
                case_id=case.id,
                use_cache=use_cache,
            ).score
        except JudgeError:
            scores["bkg"] = None
    return scores


def collect_scores(
    clients: Sequence[JudgeClient],
    cases: Sequence[RunCase],
    bkg: BKG,
    *,
    repeats: int = 1,
    concurrency: int = 4,
) -> Scores:
    """Every rater's score of every case; with ``repeats`` > 1 the cache is off, so each sample
    is a fresh call and the judge's own noise shows."""
    if repeats < 1:
        raise ValueError("repeats must be at least 1")
    models = [c.model for c in clients]
    if len(set(models)) != len(models):
        raise ValueError(f"a judge model is listed twice ({models}); use repeats instead")
    prompts = prompt_versions()
    tasks = [
        (Rater(judge_version(client.method, prompts), client.model, sample), client, item)
        for client in clients
        for sample in range(repeats)
        for item in cases
    ]
    use_cache = repeats == 1
    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        results = list(pool.map(lambda task: _judge_case(task[1], task[2], bkg, use_cache), tasks))
    scores: Scores = {}
    for (rater, _, item), by_dimension in zip(tasks, results, strict=True):
        for dimension, score in by_dimension.items():
            scores.setdefault(dimension, {}).setdefault(rater, {})[item.case.id] = score
    return {d: scores[d] for d in JUDGED_DIMENSIONS if d in scores}


# --------------------------------------------------------------------------- human labels


class _HumanLabel(BaseModel):
    model_config = ConfigDict(extra="ignore")

    case_id: str = Field(min_length=1)
    dimension: Literal["content_quality", "on_topic", "bkg"]
    score: float = Field(ge=0, le=1)


def load_human_labels(path: Path) -> HumanLabels:
    """Human scores from CSV or JSON rows of ``case_id, dimension, score`` (0–1).

    Several rows for the same case and dimension (several people) are averaged into one label.
    """
    if path.suffix.lower() == ".csv":
        with path.open(newline="", encoding="utf-8") as handle:
            rows: list[Any] = list(csv.DictReader(handle))
    else:
        data = json_text.loads(path.read_text(encoding="utf-8"))
        rows = data if isinstance(data, list) else [data]
    problems: list[Problem] = []
    collected: dict[str, dict[str, list[float]]] = {}
    for number, row in enumerate(rows, start=1):
        try:
            label = _HumanLabel.model_validate(row)
        except ValidationError as exc:
            for err in exc.errors():
                where = ".".join(str(p) for p in err["loc"])
                problems.append(Problem(str(path), f"row {number} {where}", err["msg"]))
            continue
        collected.setdefault(label.dimension, {}).setdefault(label.case_id, []).append(label.score)
    if problems:
        raise InputError(problems)
    return {d: {c: fmean(v) for c, v in by_case.items()} for d, by_case in collected.items()}


# --------------------------------------------------------------------------- agreement


@dataclass(frozen=True)
class JudgeAgreement:
    """One row of ``judge_calibration``: how far one judge version can be trusted on a dimension.

    ``alpha`` is the panel's α (shared by the panel's judges), ``kappa`` the mean κ of the pairs
    this judge takes part in; ``human_*`` are the means over its samples of α and κ against the
    people; ``n`` is how many cases it scored.
    """

    judge_version: str
    dimension: str
    alpha: float | None
    kappa: float | None
    human_alpha: float | None
    human_kappa: float | None
    n: int

    @property
    def deciding_alpha(self) -> tuple[str, float | None]:
        """The α the bar applies to, and what it measures."""
        if self.human_alpha is not None:
            return "α with people", self.human_alpha
        return "α", self.alpha


@dataclass(frozen=True)
class DimensionAgreement:
    dimension: str
    alpha: float | None
    kappas: dict[tuple[str, str], float | None]
    judges: list[JudgeAgreement]
    cases: int
    human_cases: int


def _mean(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return fmean(present) if present else None


def dimension_agreement(
    dimension: str,
    ratings: Mapping[Rater, Mapping[str, float | None]],
    human: Mapping[str, float] | None,
    *,
    threshold: float,
) -> DimensionAgreement:
    """The panel's α, every pair's κ and each judge version's agreement with people."""
    raters = sorted(ratings)
    units = sorted({case for by_case in ratings.values() for case in by_case})

    def row(rater: Rater, over: Sequence[str]) -> list[float | None]:
        return [ratings[rater].get(case) for case in over]

    alpha = krippendorff_alpha_interval([row(r, units) for r in raters])
    pair_kappas = {
        (a, b): pass_fail_kappa(row(a, units), row(b, units), threshold)
        for a, b in combinations(raters, 2)
    }
    labelled = sorted(set(human or {}) & set(units))
    people: list[float | None] = [(human or {})[case] for case in labelled]
    judges = []
    for version in sorted({r.version for r in raters}):
        own = [r for r in raters if r.version == version]
        scored = {c for r in own for c, s in ratings[r].items() if s is not None}
        judges.append(
            JudgeAgreement(
                judge_version=version,
                dimension=dimension,
                alpha=alpha,
                kappa=_mean(
                    [k for (a, b), k in pair_kappas.items() if version in (a.version, b.version)]
                ),
                human_alpha=_mean(
                    [krippendorff_alpha_interval([people, row(r, labelled)]) for r in own]
                ),
                human_kappa=_mean(
                    [pass_fail_kappa(people, row(r, labelled), threshold) for r in own]
                ),
                n=len(scored),
            )
        )
    return DimensionAgreement(
        dimension=dimension,
        alpha=alpha,
        kappas={(a.label, b.label): k for (a, b), k in pair_kappas.items()},
        judges=judges,
        cases=len(units),
        human_cases=len(labelled),
    )


# --------------------------------------------------------------------------- storage

_METADATA = sa.MetaData()

JUDGE_CALIBRATION = sa.Table(
    "judge_calibration",
    _METADATA,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("judge_version", sa.String(1024), nullable=False),
    sa.Column("dimension", sa.String(64), nullable=False),
    sa.Column("alpha", sa.Float, nullable=True),
    sa.Column("kappa", sa.Float, nullable=True),
    sa.Column("human_alpha", sa.Float, nullable=True),
    sa.Column("human_kappa", sa.Float, nullable=True),
    sa.Column("n", sa.Integer, nullable=False),
    sa.Column("run_key", sa.String(255), nullable=False, server_default=""),
    sa.Column("created_at", sa.String(32), nullable=False),
    sa.Index("ix_judge_calibration_lookup", "judge_version", "dimension", "id"),
)


def _engine(store_url: str) -> sa.Engine:
    ResultsStore(store_url)  # the results store's own tables come first
    return engine_with_tables(store_url, _METADATA)


def store_calibration(store_url: str, rows: Sequence[JudgeAgreement], *, run_key: str) -> int:
    """Append calibration rows; the newest row per (judge version, dimension) is the one used."""
    created = datetime.now(UTC).isoformat(timespec="seconds")
    if not rows:
        return 0
    with _engine(store_url).begin() as conn:
        conn.execute(
            JUDGE_CALIBRATION.insert(),
            [{**asdict(r), "run_key": run_key, "created_at": created} for r in rows],
        )
    return len(rows)


def latest_calibration(store_url: str, judge_version: str) -> dict[str, JudgeAgreement]:
    """The newest calibration of one judge version, per dimension."""
    table = JUDGE_CALIBRATION
    newest = (
        sa.select(table.c.dimension, sa.func.max(table.c.id).label("id"))
        .where(table.c.judge_version == judge_version)
        .group_by(table.c.dimension)
        .subquery()
    )
    query = sa.select(table).join(newest, table.c.id == newest.c.id)
    columns = fields(JudgeAgreement)
    with _engine(store_url).connect() as conn:
        return {
            row.dimension: JudgeAgreement(**{f.name: row._mapping[f.name] for f in columns})
            for row in conn.execute(query)
        }


def status_of(row: JudgeAgreement | None, bar: float) -> Status:
    if row is None:
        return "unknown"
    _, alpha = row.deciding_alpha
    if alpha is None:
        return "unknown"
    return "calibrated" if alpha >= bar else "uncalibrated"


def calibration_status(store_url: str, judge_version: str, dimension: str, bar: float) -> Status:
    """Whether the judge version is trusted on the dimension; ``unknown`` when it was never
    calibrated on it or its α is undefined (no pairable ratings, or no variation)."""
    return status_of(latest_calibration(store_url, judge_version).get(dimension), bar)


def demotions(store_url: str, judge_version: str, bar: float) -> dict[str, str]:
    """Uncalibrated dimensions of a judge version, each with the reason the report shows."""
    out = {}
    for dimension, row in sorted(latest_calibration(store_url, judge_version).items()):
        if status_of(row, bar) == "uncalibrated":
            what, alpha = row.deciding_alpha
            out[dimension] = f"judge uncalibrated ({what}={alpha:.2f} < {bar:.2f})"
    return out


# --------------------------------------------------------------------------- one calibration


@dataclass(frozen=True)
class CalibrationResult:
    run_key: str
    raters: list[Rater]
    cases: int
    threshold: float
    dimensions: list[DimensionAgreement]

    @property
    def rows(self) -> list[JudgeAgreement]:
        return [j for d in self.dimensions for j in d.judges]


def calibrate(
    store_url: str,
    run_key: str,
    clients: Sequence[JudgeClient],
    bkg: BKG,
    *,
    repeats: int = 1,
    human: HumanLabels | None = None,
    threshold: float = 0.6,
    case_ids: Sequence[str] | None = None,
    concurrency: int = 4,
) -> CalibrationResult:
    """Re-judge a stored run with the panel, compute agreement and store one row per judge
    version and dimension — except where α is undefined (a judge that scored nothing, a panel
    with no pairable ratings): no evidence must not overwrite an earlier calibration."""
    if len(clients) * repeats < 2 and not human:
        raise ValueError(
            "agreement needs two raters: give two judge models, repeats ≥ 2 or human labels"
        )
    cases = load_run_cases(ResultsStore(store_url), run_key, case_ids)
    scores = collect_scores(clients, cases, bkg, repeats=repeats, concurrency=concurrency)
    dimensions = [
        dimension_agreement(d, ratings, (human or {}).get(d), threshold=threshold)
        for d, ratings in scores.items()
    ]
    result = CalibrationResult(
        run_key=run_key,
        raters=sorted({r for ratings in scores.values() for r in ratings}),
        cases=len(cases),
        threshold=threshold,
        dimensions=dimensions,
    )
    evidence = [r for r in result.rows if r.deciding_alpha[1] is not None]
    store_calibration(store_url, evidence, run_key=run_key)
    return result
