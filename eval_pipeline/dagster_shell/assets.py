"""The evaluation graph, one asset per box of the diagram; each body delegates to the core.

No ``from __future__ import annotations`` here: Dagster inspects the real type hints.

golden_cases → chatbot_responses → extracted_claims → oracle_verdicts → judge_scores
→ eval_run → eval_report (see docs/architecture.md for partitions).

Per-case assets process every partition of their step in one batch (``context.partition_keys``),
so a whole evaluation run over all cases is one Dagster run, with the cases of the batch worked on
concurrently inside it.
"""

import json
import warnings
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from statistics import fmean, quantiles
from typing import Any

from dagster import (
    AssetCheckResult,
    AssetCheckSpec,
    AssetDep,
    AssetExecutionContext,
    AssetIn,
    AssetKey,
    AssetSpec,
    BackfillPolicy,
    BetaWarning,
    DataVersion,
    MetadataValue,
    Output,
    asset,
)

from eval_pipeline.core.aggregate import judge_case, summarize_run
from eval_pipeline.core.compare import compare_runs
from eval_pipeline.core.hashing import content_hash
from eval_pipeline.core.judges import prompt_versions
from eval_pipeline.core.llm import CostLedger, JudgeClient
from eval_pipeline.core.llm_oracle import oracle_prompt_versions
from eval_pipeline.core.models import (
    ChatPayload,
    ClaimContract,
    DimensionResult,
    GoldenCase,
    OracleResult,
)
from eval_pipeline.core.report import render_report
from eval_pipeline.core.results_store import ResultsStore
from eval_pipeline.core.reuse import fingerprint, reuse_or_compute
from eval_pipeline.core.staleness import case_tables, mark_stale, stale_tables, table_fingerprints
from eval_pipeline.core.steps import (
    ask,
    extract,
    map_concurrently,
    prefetch_embeddings,
    score,
    verify,
    warm_embeddings,
)
from eval_pipeline.dagster_shell.io_manager import Batch, FingerprintedBatch
from eval_pipeline.dagster_shell.partitions import BY_CASE, BY_RUN, CASES, RUN_CASE, RUNS, split_key
from eval_pipeline.dagster_shell.resources import EvalEnvironment
from eval_pipeline.versions import STAGE_VERSIONS

warnings.filterwarnings("ignore", message="Parameter `backfill_policy`", category=BetaWarning)

GROUP = "evaluation"
IO = "results_io_manager"
SINGLE_RUN = BackfillPolicy.single_run()
REMOVED = "removed from the golden dataset"
HISTORY_RUNS = 20
SCORING_CHUNK = 1000  # cases whose texts are encoded together: well within the embedding cache


def _keys(context: AssetExecutionContext) -> list[tuple[str, str]]:
    return [split_key(k) for k in context.partition_keys]


def _case(golden: Batch, case_id: str) -> GoldenCase | None:
    record = golden.get(("", case_id))
    if record is None or record.get("removed"):
        return None
    return GoldenCase.model_validate(record)


def _md_table(
    header: Sequence[str], rows: Sequence[Sequence[Any]], limit: int = 20
) -> MetadataValue:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += [
        "| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in rows[:limit]
    ]
    if len(rows) > limit:
        lines.append(f"\n… {len(rows) - limit} more")
    return MetadataValue.md("\n".join(lines))


def log_table(
    context: AssetExecutionContext, title: str, header: Sequence[str], rows: Sequence[Sequence[Any]]
) -> None:
    """A step-level table goes to the run log once: output metadata of a batched output is copied
    onto every partition's materialization event."""
    if rows:
        context.log.info(f"{title}:\n{_md_table(header, rows).value}")


def warehouse_specs(table_names: Sequence[str]) -> list[AssetSpec]:
    """One external asset per BKG table: the live data the oracle recomputes from."""
    return [AssetSpec(key=AssetKey(["warehouse", t]), group_name="warehouse") for t in table_names]


@asset(
    partitions_def=CASES,
    backfill_policy=SINGLE_RUN,
    code_version=STAGE_VERSIONS["golden_cases"],
    group_name=GROUP,
    io_manager_key=IO,
)
def golden_cases(context: AssetExecutionContext, environment: EvalEnvironment) -> Batch:
    """The validated golden cases, one partition per case id, so editing one case stales only it."""
    cases = environment.env.cases
    out: Batch = {}
    for case_id in context.partition_keys:
        case = cases.get(case_id)
        out[("", case_id)] = (
            case.model_dump(mode="json") if case else {"id": case_id, "removed": True}
        )
    tags = Counter(t for c in out.values() for t in c.get("tags", []))
    context.add_output_metadata(
        {
            "cases": len(out),
            "removed": sum(bool(c.get("removed")) for c in out.values()),
        }
    )
    log_table(context, "cases per tag", ["tag", "cases"], tags.most_common())
    return out


def versioned(batch: Batch) -> Output[Batch]:
    """The batch with a content-hash data version: an unchanged batch stales nothing downstream.

    Dagster gives all partitions of one output the same data version, so the version is per batch;
    per-case reuse is decided by the input fingerprints.
    """
    return Output(batch, data_version=DataVersion(content_hash(sorted(batch.items()))))


class Reusing:
    """Reuse-or-compute bookkeeping for one per-case asset step."""

    def __init__(self, context: AssetExecutionContext, environment: EvalEnvironment) -> None:
        self.context = context
        self.env = environment.env
        self.asset = context.assets_def.key.path[-1]
        self.keys = _keys(context)
        self.fingerprints: dict[tuple[str, str], str] = {}
        self.previous: dict[tuple[str, str], tuple[str, dict[str, Any]]] = {}
        for run_key in {r for r, _ in self.keys}:
            cases = [c for r, c in self.keys if r == run_key]
            for case_id, row in self.env.store.latest_rows(self.asset, run_key, cases).items():
                self.previous[(run_key, case_id)] = (row.input_fingerprint, row.payload)

    def run(
        self,
        fingerprints: dict[tuple[str, str], str],
        compute: Callable[[Sequence[tuple[str, str]]], Mapping[tuple[str, str], dict[str, Any]]],
        *,
        refresh: bool = False,
    ) -> FingerprintedBatch:
        values, reused = reuse_or_compute(fingerprints, self.previous, compute, refresh=refresh)
        self.context.add_output_metadata(
            {"reused": len(reused), "computed": len(values) - len(reused)}
        )
        return FingerprintedBatch(values, fingerprints=fingerprints, reused=reused)

    def record_calls(self, **calls: int) -> None:
        self.env.store.record_calls(self.context.run_id, self.asset, calls)


@asset(
    partitions_def=RUN_CASE,
    backfill_policy=SINGLE_RUN,
    ins={"golden_cases": AssetIn(partition_mapping=BY_CASE)},
    code_version=STAGE_VERSIONS["chatbot_responses"],
    group_name=GROUP,
    io_manager_key=IO,
)
def chatbot_responses(
    context: AssetExecutionContext, environment: EvalEnvironment, golden_cases: Batch
) -> Output[Batch]:
    """Ask the chatbot every case of the batch concurrently; a failed call is that case's error.

    A stored answer is reused when the case and the chatbot configuration are unchanged, unless
    ``refresh`` is set. The fingerprints of the tables each case depends on are recorded with it.
    """
    step = Reusing(context, environment)
    env = step.env
    s = env.settings
    target = {"kind": s.chatbot_kind, "url": s.chatbot_url, "callable": s.chatbot_callable}
    fingerprints = {
        key: fingerprint(
            STAGE_VERSIONS["chatbot_responses"], golden_cases.get(("", key[1])), target
        )
        for key in step.keys
    }
    asked = 0

    def compute(keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], dict[str, Any]]:
        nonlocal asked
        current = table_fingerprints(env.db, env.bkg)
        cases = {k: c for k in keys if (c := _case(golden_cases, k[1])) is not None}
        payloads = map_concurrently(
            lambda c: prefetch_embeddings(ask(env.adapter, c)), cases, s.concurrency
        )
        asked = len(payloads)
        out: dict[tuple[str, str], dict[str, Any]] = {}
        for key in keys:
            payload = payloads.get(key) or ChatPayload(
                case_id=key[1], question="", status="error", errors=[REMOVED]
            )
            if key in cases:
                tables = case_tables(cases[key], env.bkg, payload.sql_statements)
                payload.data_fingerprints = {t: current[t] for t in tables if t in current}
            out[key] = payload.model_dump(mode="json")
        return out

    batch = step.run(fingerprints, compute, refresh=s.refresh)
    step.record_calls(chatbot=asked)
    ok = [p for p in batch.values() if p["status"] == "ok"]
    latencies = [p["latency_s"] for p in ok if p.get("latency_s") is not None]
    ttfts = [p["ttft_s"] for p in ok if p.get("ttft_s") is not None]
    log_table(
        context,
        "failed chatbot calls",
        ["run", "case", "error"],
        [(r, c, "; ".join(p["errors"])) for (r, c), p in batch.items() if p["status"] != "ok"],
    )
    context.add_output_metadata(
        {
            "cases": len(batch),
            "chatbot_calls": asked,
            "errors": len(batch) - len(ok),
            "latency_mean_s": round(fmean(latencies), 3) if latencies else 0.0,
            "latency_p95_s": round(_p95(latencies), 3),
            "ttft_mean_s": round(fmean(ttfts), 3) if ttfts else 0.0,
        }
    )
    return versioned(batch)


def judge_requests(judge: JudgeClient | None) -> int:
    """Requests really sent to the LLM so far (cache hits excluded), to count a step's calls."""
    if judge is None:
        return 0
    spent = judge.ledger.total()
    return spent.calls - spent.cached_calls


def judge_identity(judge: JudgeClient | None) -> dict[str, Any] | None:
    """What a judged result depends on: the model and every prompt version."""
    if judge is None:
        return None
    return {"model": judge.method, "prompts": {**prompt_versions(), **oracle_prompt_versions()}}


def case_cost(ledger: CostLedger, case_id: str) -> dict[str, Any]:
    """Judge tokens and USD spent on one case, with the USD per dimension."""
    entries = [e for e in ledger.entries() if e.case_id == case_id]
    totals = ledger.case_total(case_id)
    by_dimension: dict[str, float] = {}
    for e in entries:
        by_dimension[e.dimension] = by_dimension.get(e.dimension, 0.0) + e.totals.cost_usd
    return {
        "judge_calls": totals.calls - totals.cached_calls,
        "cached_calls": totals.cached_calls,
        "input_tokens": totals.input_tokens,
        "output_tokens": totals.output_tokens,
        "usd": round(totals.cost_usd, 6),
        "usd_by_dimension": {k: round(v, 6) for k, v in sorted(by_dimension.items())},
    }


def _p95(values: Sequence[float]) -> float:
    if len(values) < 2:
        return values[0] if values else 0.0
    return quantiles(values, n=20)[-1]


@asset(
    partitions_def=RUN_CASE,
    backfill_policy=SINGLE_RUN,
    ins={"golden_cases": AssetIn(partition_mapping=BY_CASE)},
    code_version=STAGE_VERSIONS["extracted_claims"],
    group_name=GROUP,
    io_manager_key=IO,
)
def extracted_claims(
    context: AssetExecutionContext,
    environment: EvalEnvironment,
    golden_cases: Batch,
    chatbot_responses: Batch,
) -> Output[Batch]:
    """Pass 1 of the oracle: every claim of every answer, numbered into a contract."""
    step = Reusing(context, environment)
    judge = step.env.judge
    fingerprints = {
        key: fingerprint(
            STAGE_VERSIONS["extracted_claims"],
            golden_cases.get(("", key[1])),
            content_hash(chatbot_responses[key]),
            judge_identity(judge),
        )
        for key in step.keys
    }

    def extract_one(key: tuple[str, str]) -> dict[str, Any]:
        case = _case(golden_cases, key[1])
        if case is None:
            return ClaimContract(case_id=key[1], method="none").model_dump(mode="json")
        payload = ChatPayload.model_validate(chatbot_responses[key])
        return extract(case, payload, judge).model_dump(mode="json")

    def compute(keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], dict[str, Any]]:
        return map_concurrently(extract_one, {k: k for k in keys}, step.env.settings.concurrency)

    before = judge_requests(judge)
    batch = step.run(fingerprints, compute)
    step.record_calls(judge=judge_requests(judge) - before)
    counts = [len(c["claims"]) for c in batch.values()]
    context.add_output_metadata(
        {"cases": len(batch), "claims": sum(counts), "claims_per_case_max": max(counts, default=0)}
    )
    return versioned(batch)


def oracle_deps(table_names: Sequence[str]) -> list[AssetDep]:
    return [AssetDep(spec.key) for spec in warehouse_specs(table_names)]


def _function_sources(case: GoldenCase | None, environment: EvalEnvironment) -> list[str]:
    if case is None:
        return []
    bkg = environment.env.bkg
    out = []
    for ref in case.reference:
        fn = bkg.function(ref.kind, ref.target) if ref.sql is None else None
        out.append(content_hash(fn.python_function) if fn else ref.target)
    return out


def build_oracle_verdicts(table_names: Sequence[str]) -> Any:
    """The oracle asset depends on the warehouse tables of the BKG, known at load time."""

    @asset(
        name="oracle_verdicts",
        partitions_def=RUN_CASE,
        backfill_policy=SINGLE_RUN,
        ins={"golden_cases": AssetIn(partition_mapping=BY_CASE)},
        deps=oracle_deps(table_names),
        code_version=STAGE_VERSIONS["oracle_verdicts"],
        group_name=GROUP,
        io_manager_key=IO,
    )
    def oracle_verdicts(
        context: AssetExecutionContext,
        environment: EvalEnvironment,
        golden_cases: Batch,
        chatbot_responses: Batch,
        extracted_claims: Batch,
    ) -> Output[Batch]:
        """Pass 2: recompute each case's references on the live database and judge every claim.

        Reused when the answer, the claims, the reference functions and the live data version of
        every table the case reads are unchanged; stale when those tables changed since the answer.
        """
        step = Reusing(context, environment)
        env = step.env
        current = table_fingerprints(env.db, env.bkg)
        fingerprints = {}
        for key in step.keys:
            case = _case(golden_cases, key[1])
            tables = case_tables(case, env.bkg) if case else []
            fingerprints[key] = fingerprint(
                STAGE_VERSIONS["oracle_verdicts"],
                judge_identity(env.judge),
                golden_cases.get(("", key[1])),
                content_hash(chatbot_responses[key]),
                content_hash(extracted_claims[key]),
                _function_sources(case, environment),
                {t: current.get(t) for t in tables},
            )

        def verify_one(key: tuple[str, str]) -> dict[str, Any]:
            case = _case(golden_cases, key[1])
            if case is None:
                return OracleResult(case_id=key[1], error=REMOVED).model_dump(mode="json")
            payload = ChatPayload.model_validate(chatbot_responses[key])
            contract = ClaimContract.model_validate(extracted_claims[key])
            result = verify(case, payload, contract, env.runtime, env.db, env.judge)
            changed = stale_tables(payload, current)
            if changed and payload.status == "ok":
                result = mark_stale(result, changed)
            return result.model_dump(mode="json")

        def compute(keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], dict[str, Any]]:
            return map_concurrently(verify_one, {k: k for k in keys}, env.settings.concurrency)

        before = judge_requests(env.judge)
        batch = step.run(fingerprints, compute)
        step.record_calls(
            reference=env.runtime.calls_made, judge=judge_requests(env.judge) - before
        )
        totals: Counter[str] = Counter()
        contradicted = []
        for (_, case_id), result in batch.items():
            totals.update(v["verdict"] for v in result["verdicts"])
            contradicted += [
                (case_id, v["claim_id"], v["reason"])
                for v in result["verdicts"]
                if v["verdict"] == "contradicted"
            ]
        context.add_output_metadata(
            {
                **{f"verdicts_{k}": v for k, v in sorted(totals.items())},
                "reference_calls": env.runtime.calls_made,
                "stale_cases": sum(bool(r.get("stale_tables")) for r in batch.values()),
            }
        )
        log_table(context, "contradicted claims", ["case", "claim", "why"], contradicted)
        return versioned(batch)

    return oracle_verdicts


@asset(
    partitions_def=RUN_CASE,
    backfill_policy=SINGLE_RUN,
    ins={"golden_cases": AssetIn(partition_mapping=BY_CASE)},
    code_version=STAGE_VERSIONS["judge_scores"],
    group_name=GROUP,
    io_manager_key=IO,
)
def judge_scores(
    context: AssetExecutionContext,
    environment: EvalEnvironment,
    golden_cases: Batch,
    chatbot_responses: Batch,
    oracle_verdicts: Batch,
) -> Output[Batch]:
    """Every dimension of every case, each scored, skipped or in error — never invented."""
    step = Reusing(context, environment)
    env = step.env
    judge = env.judge
    scoring = {
        "sla": env.settings.latency_sla.model_dump(),
        "judge": judge_identity(judge),
    }
    fingerprints = {
        key: fingerprint(
            STAGE_VERSIONS["judge_scores"],
            golden_cases.get(("", key[1])),
            content_hash(chatbot_responses[key]),
            content_hash(oracle_verdicts[key]),
            scoring,
        )
        for key in step.keys
    }

    def compute(keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], dict[str, Any]]:
        out: dict[tuple[str, str], dict[str, Any]] = {}
        for start in range(0, len(keys), SCORING_CHUNK):
            out.update(score_chunk(keys[start : start + SCORING_CHUNK]))
        return out

    def score_chunk(keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], dict[str, Any]]:
        warm_embeddings(
            [
                t
                for k in keys
                for t in (chatbot_responses[k]["question"], chatbot_responses[k]["answer"])
            ]
        )
        out: dict[tuple[str, str], dict[str, Any]] = {}
        for key in keys:
            case = _case(golden_cases, key[1])
            payload = ChatPayload.model_validate(chatbot_responses[key])
            if case is None:
                out[key] = {"case_id": key[1], "removed": True, "chatbot_errors": [REMOVED]}
                continue
            dims = score(
                case,
                payload,
                OracleResult.model_validate(oracle_verdicts[key]),
                bkg=env.bkg,
                sla=env.settings.latency_sla,
                live_catalog=env.live_catalog,
                judge=judge,
                use_cache=env.settings.judge_use_cache,
            )
            out[key] = {
                "cost": case_cost(judge.ledger, case.id) if judge else {},
                "case_id": case.id,
                "has_expected_answer": case.has_expected_answer,
                "has_reference": bool(case.reference),
                "tags": case.tags,
                "chatbot_errors": payload.errors if payload.status == "error" else [],
                "stale_tables": oracle_verdicts[key].get("stale_tables", []),
                "dimensions": {n: d.model_dump(mode="json") for n, d in dims.items()},
            }
        return out

    before = judge_requests(judge)
    batch = step.run(fingerprints, compute)
    step.record_calls(judge=judge_requests(judge) - before)
    states: dict[str, Counter[str]] = {}
    for record in batch.values():
        for name, dim in record.get("dimensions", {}).items():
            states.setdefault(name, Counter())[dim["state"]] += 1
    context.add_output_metadata({"cases": len(batch)})
    log_table(
        context,
        "dimension states",
        ["dimension", "scored", "skipped", "error"],
        [(n, c["scored"], c["skipped"], c["error"]) for n, c in sorted(states.items())],
    )
    return versioned(batch)


def run_checks(
    summary: Mapping[str, Any], min_pass_rate: float, min_coverage: float
) -> list[AssetCheckResult]:
    """The run's release gates as Dagster asset checks, visible (optionally blocking) in the UI."""
    comparison = summary.get("comparison") or {}
    regressed = bool(comparison.get("significant_regression"))
    return [
        AssetCheckResult(
            check_name="gates_passed",
            passed=summary["pass_rate"] >= min_pass_rate,
            metadata={
                "pass_rate": summary["pass_rate"],
                "min_pass_rate": min_pass_rate,
                "failed_cases": summary["cases_failed"] + summary["cases_error"],
            },
        ),
        AssetCheckResult(
            check_name="coverage",
            passed=summary["coverage"] >= min_coverage,
            metadata={"coverage": summary["coverage"], "min_coverage": min_coverage},
        ),
        AssetCheckResult(
            check_name="no_significant_regression",
            passed=not regressed,
            metadata={
                "baseline": str(comparison.get("base_run_key") or "none"),
                "significant_regression": regressed,
            },
        ),
    ]


CHECK_NAMES = ("gates_passed", "coverage", "no_significant_regression")


def build_eval_run(blocking: bool) -> Any:
    """``eval_run`` with its gate checks; blocking checks stop ``eval_report`` when they fail."""

    @asset(
        name="eval_run",
        partitions_def=RUNS,
        ins={"judge_scores": AssetIn(partition_mapping=BY_RUN)},
        code_version=STAGE_VERSIONS["eval_run"],
        group_name=GROUP,
        io_manager_key=IO,
        check_specs=[
            AssetCheckSpec(name, asset="eval_run", blocking=blocking) for name in CHECK_NAMES
        ],
    )
    def eval_run(
        context: AssetExecutionContext, environment: EvalEnvironment, judge_scores: Batch
    ) -> Iterator[Output[Batch] | AssetCheckResult]:
        """Weighted overall score and soft gates per case; coverage and pass rate for the run."""
        env = environment.env
        run_key = context.partition_key
        outcomes = []
        for (_, case_id), record in sorted(judge_scores.items()):
            dims = {
                n: DimensionResult.model_validate(d)
                for n, d in record.get("dimensions", {}).items()
            }
            outcomes.append(
                judge_case(
                    case_id,
                    dims,
                    has_expected_answer=record.get("has_expected_answer", False),
                    has_reference=record.get("has_reference", False),
                    chatbot_errors=record.get("chatbot_errors", []),
                    policy=env.policy,
                    tags=record.get("tags", []),
                )
            )
        run_dir = env.settings.reports_dir / run_key
        summary = summarize_run(run_key, outcomes, report_path=str(run_dir / "report.html"))
        calls, reused = provenance(env.store, run_key, [o.case_id for o in outcomes])
        summary["calls"] = calls
        summary["cost"] = run_cost([r.get("cost", {}) for r in judge_scores.values()])
        baseline = baseline_summary(env.store, run_key, env.settings.baseline_run)
        summary["comparison"] = (
            compare_runs(baseline, summary, level=env.settings.significance_level)
            if baseline
            else None
        )
        summary["demoted_dimensions"] = dict(env.policy.demotion_reasons)
        for case in summary["cases"]:
            case["reused"] = case["case_id"] in reused
        summary_path = write_json(run_dir / "summary.json", summary)
        comparison = summary["comparison"] or {}
        yield Output(
            {(run_key, ""): summary},
            metadata={
                "cases": summary["cases_total"],
                "pass_rate": summary["pass_rate"],
                "coverage": summary["coverage"],
                "mean_overall": summary["mean_overall"] or 0.0,
                "chatbot_calls": calls["chatbot"],
                "judge_calls": calls["judge"],
                "reference_calls": calls["reference"],
                "judge_usd": summary["cost"]["usd"],
                "baseline": str(comparison.get("base_run_key") or "none"),
                "significant_regression": bool(comparison.get("significant_regression")),
                "summary_path": MetadataValue.path(str(summary_path)),
                "cases_table": _md_table(
                    ["case", "overall", "passed", "gate failures"],
                    [
                        (
                            c["case_id"],
                            c["overall"],
                            c["passed"],
                            "; ".join(c["gate_failures"])[:120],
                        )
                        for c in summary["cases"]
                    ],
                    limit=50,
                ),
            },
        )
        s = env.settings
        yield from run_checks(summary, s.min_pass_rate, s.min_coverage)

    return eval_run


PER_CASE_ASSETS = ("chatbot_responses", "extracted_claims", "oracle_verdicts", "judge_scores")


def provenance(
    store: ResultsStore, run_key: str, case_ids: Sequence[str]
) -> tuple[dict[str, int], set[str]]:
    """Calls made by the materializations behind the current results, and the reused cases.

    A case is reused when every per-case step's current record was reused, not recomputed.
    """
    run_ids: set[str] = set()
    reused = set(case_ids)
    for asset_name in PER_CASE_ASSETS:
        rows = store.latest_rows(asset_name, run_key, case_ids)
        run_ids |= {row.dagster_run_id for row in rows.values()}
        reused &= {case_id for case_id, row in rows.items() if row.reused}
    return store.calls_for(run_ids), reused


def baseline_summary(store: ResultsStore, run_key: str, configured: str) -> dict[str, Any] | None:
    """The configured baseline run, else the run evaluated before this one."""
    if configured and configured != run_key:
        return store.latest("eval_run", configured, [""]).get("")
    keys = [k for k in store.run_keys("eval_run") if k != run_key]
    return store.latest("eval_run", keys[-1], [""]).get("") if keys else None


def run_cost(case_costs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Judge spend of the run's current results, summed over cases and per dimension."""
    keys = ("judge_calls", "cached_calls", "input_tokens", "output_tokens", "usd")
    total: dict[str, Any] = {k: sum(c.get(k, 0) for c in case_costs) for k in keys}
    total["usd"] = round(total["usd"], 6)
    by_dimension: dict[str, float] = {}
    for c in case_costs:
        for dim, usd in c.get("usd_by_dimension", {}).items():
            by_dimension[dim] = round(by_dimension.get(dim, 0.0) + usd, 6)
    total["usd_by_dimension"] = dict(sorted(by_dimension.items()))
    return total


def write_json(path: Path, payload: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(payload, indent=2, default=str))
    tmp.replace(path)
    return path


@asset(
    partitions_def=RUNS,
    deps=[
        AssetDep("chatbot_responses", partition_mapping=BY_RUN),
        AssetDep("extracted_claims", partition_mapping=BY_RUN),
        AssetDep("oracle_verdicts", partition_mapping=BY_RUN),
    ],
    code_version=STAGE_VERSIONS["eval_report"],
    group_name=GROUP,
    io_manager_key=IO,
)
def eval_report(
    context: AssetExecutionContext, environment: EvalEnvironment, eval_run: Batch
) -> Batch:
    """A self-contained HTML report with the evidence behind every verdict."""
    env = environment.env
    run_key = context.partition_key
    summary = eval_run[(run_key, "")]
    case_ids = [c["case_id"] for c in summary["cases"]]
    details = {
        name: env.store.latest(name, run_key, case_ids)
        for name in ("chatbot_responses", "extracted_claims", "oracle_verdicts")
    }
    history = [
        s
        for k in env.store.run_keys("eval_run")[-HISTORY_RUNS:]
        if k != run_key and (s := env.store.latest("eval_run", k, [""]).get(""))
    ]
    html = render_report(
        summary, details, history=[*history, summary], comparison=summary.get("comparison")
    )
    path = Path(summary["report_path"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(html, encoding="utf-8")
    context.add_output_metadata(
        {
            "report_path": MetadataValue.path(str(path)),
            "report_url": MetadataValue.url(path.resolve().as_uri()),
            "bytes": len(html.encode()),
        }
    )
    return {(run_key, ""): {"report_path": str(path), "bytes": len(html.encode())}}
