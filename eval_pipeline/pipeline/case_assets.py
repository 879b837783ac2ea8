"""The per-case assets: golden_cases → chatbot_responses → extracted_claims → oracle_verdicts
→ judge_scores, each body delegating to the core (see docs/architecture.md).

No ``from __future__ import annotations`` here: Dagster inspects the real type hints.
"""

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from statistics import fmean
from typing import Any

from dagster import (
    AssetCheckEvaluation,
    AssetDep,
    AssetExecutionContext,
    AssetIn,
    AssetKey,
    AssetSpec,
    Output,
    ResourceParam,
    asset,
)

from eval_pipeline.core.adapters.base import ChatbotAdapter
from eval_pipeline.core.aggregate import judge_record
from eval_pipeline.core.embeddings.encoder import SentenceEmbedder
from eval_pipeline.core.lineage.staleness import case_tables, mark_stale, stale_tables
from eval_pipeline.core.models import (
    CaseScores,
    ChatPayload,
    ClaimContract,
    GoldenCase,
    LoggedCase,
    OracleResult,
    RemovedCase,
)
from eval_pipeline.core.report.viewer import report_url
from eval_pipeline.core.steps import (
    ask,
    extract,
    map_concurrently,
    prefetch_embeddings,
    prefetch_schema,
    verify,
    warm_embeddings,
)
from eval_pipeline.core.tracing.spans import CaseTrace, Tracer
from eval_pipeline.pipeline.batch import (
    BATCH,
    GROUP,
    IO,
    REMOVED,
    SINGLE_RUN,
    Reusing,
    case_cost,
    golden_case,
    log_metrics,
    log_table,
    p95,
    versioned,
)
from eval_pipeline.pipeline.case_checks import CASE_CHECK, case_results
from eval_pipeline.pipeline.case_metadata import (
    claims_metadata,
    first_contradiction,
    redacted,
    response_metadata,
    scores_metadata,
    verdict_metadata,
)
from eval_pipeline.pipeline.io_manager import Batch, Key, Records
from eval_pipeline.pipeline.partition_events import add_partition_metadata, check_evaluations
from eval_pipeline.pipeline.partitions import BY_CASE, CASES, RUN_CASE
from eval_pipeline.pipeline.resources import (
    EvalSettings,
    JudgeLLM,
    Results,
    Warehouse,
)
from eval_pipeline.versions import STAGE_VERSIONS

SCORING_CHUNK = 1000  # cases whose texts are encoded together: well within the embedding cache
PER_CASE_ASSETS = ("chatbot_responses", "extracted_claims", "oracle_verdicts", "judge_scores")


def per_partition(
    context: AssetExecutionContext, step: Reusing, build: Any
) -> dict[str, Mapping[str, Any]]:
    """``build(key, link)`` for each partition of the step, redacted and keyed as Dagster names
    partitions; empty when ``EVAL_PARTITION_METADATA`` is off."""
    settings = step.env.settings
    if not settings.partition_metadata:
        return {}
    base = settings.report_links_base
    return {
        partition: redacted(build(key, report_url(base, *key)), step.env.redactor)
        for partition, key in zip(context.partition_keys, step.keys, strict=True)
    }


def warehouse_specs(table_names: Sequence[str]) -> list[AssetSpec]:
    """One external asset per BKG table: the live data the oracle recomputes from.

    Partitioned by case (each ``oracle_verdicts`` partition reads its case's partition), so a
    table change observed on the cases that read it stales exactly their verdicts.
    """
    return [
        AssetSpec(
            key=AssetKey(["warehouse", t]),
            group_name="warehouse",
            partitions_def=CASES,
            description=f"Warehouse table {t}, read live by the oracle. Its observations carry "
            "the table's fingerprint; after a change, the one for the whole table lists the "
            "cases whose verdicts it invalidated.",
        )
        for t in table_names
    ]


def per_case_asset(stage: str, upstream: Sequence[str] = (), **kwargs: Any) -> Any:
    """The decorator every run × case asset shares: batched, versioned, reading its golden case
    and the ``upstream`` per-case assets of the same partitions."""
    return asset(
        name=stage,
        partitions_def=RUN_CASE,
        backfill_policy=SINGLE_RUN,
        ins={
            "golden_cases": AssetIn(partition_mapping=BY_CASE, dagster_type=BATCH),
            **{name: AssetIn(dagster_type=BATCH) for name in upstream},
        },
        dagster_type=BATCH,
        code_version=STAGE_VERSIONS[stage],
        group_name=GROUP,
        io_manager_key=IO,
        **kwargs,
    )


@asset(
    partitions_def=CASES,
    backfill_policy=SINGLE_RUN,
    code_version=STAGE_VERSIONS["golden_cases"],
    dagster_type=BATCH,
    group_name=GROUP,
    io_manager_key=IO,
)
def golden_cases(context: AssetExecutionContext, settings: EvalSettings) -> Output[Batch]:
    """The validated golden cases, one partition per case id, so editing one case stales only it;
    a ``conv.`` key is the logged conversation of that id, read from the conversation source.

    Content-versioned: without a data version a root asset's version is its code version alone,
    and an edited case would stale nothing downstream.
    """
    cases = settings.env.cases_for(context.partition_keys)
    out: dict[str, GoldenCase | RemovedCase] = {
        case_id: cases.get(case_id) or RemovedCase(id=case_id) for case_id in context.partition_keys
    }
    kept = [c for c in out.values() if isinstance(c, GoldenCase)]
    log_metrics(context, {"cases": len(out), "removed": len(out) - len(kept)})
    tags = Counter(t for c in kept for t in c.tags)
    log_table(context, settings.env.redactor, "cases per tag", ["tag", "cases"], tags.most_common())
    return versioned(out)


@per_case_asset("chatbot_responses")
def chatbot_responses(
    context: AssetExecutionContext,
    settings: EvalSettings,
    results_store: ResourceParam[Results],
    warehouse: ResourceParam[Warehouse],
    embedder: ResourceParam[SentenceEmbedder],
    chatbot: ResourceParam[ChatbotAdapter],
    tracer: ResourceParam[Tracer],
    golden_cases: Records,
) -> Output[Batch]:
    """Ask the chatbot every case of the batch concurrently; a failed call is that case's error.

    A stored answer is reused when the case and the chatbot configuration are unchanged, unless
    ``refresh`` is set. Each answer records the data versions of the tables its case depends on,
    as read before it was asked (by the step, or by the chatbot if it asked earlier).
    """
    step = Reusing(context, settings, results_store)
    env = step.env
    stage = env.stage_fingerprints(warehouse.table_fingerprints)
    fingerprints = step.fingerprints(stage.chatbot, golden_cases)
    asked = 0

    def compute(keys: Sequence[Key]) -> dict[Key, ChatPayload]:
        nonlocal asked
        current = stage.tables
        cases = {k: c for k in keys if (c := golden_case(golden_cases, k)) is not None}
        prefetch_schema(env.bkg, embedder)

        def answer(key: Key) -> ChatPayload:
            case = cases[key]
            payload = ask(chatbot, case, CaseTrace(tracer, *key))
            prefetch_embeddings(payload, embedder)
            versions = payload.data_fingerprints or current
            tables = case_tables(case, env.bkg, payload.sql_statements)
            payload.data_fingerprints = {t: versions[t] for t in tables if t in versions}
            return payload

        out = map_concurrently(answer, {k: k for k in cases}, env.settings.concurrency)
        asked = sum(not isinstance(c, LoggedCase) for c in cases.values())  # logged: no call
        for key in keys:
            if key not in out:
                out[key] = ChatPayload(
                    case_id=key[1], question="", status="error", errors=[REMOVED]
                )
        return out

    batch = step.run(fingerprints, compute, refresh=env.settings.refresh)
    step.record_calls(chatbot=asked)
    show_pii = env.settings.report_show_pii
    add_partition_metadata(
        context,
        per_partition(
            context, step, lambda key, link: response_metadata(batch[key], link, show_pii=show_pii)
        ),
    )
    ok = [p for p in batch.values() if p.status == "ok"]
    latencies = [p.latency_s for p in ok if p.latency_s is not None]
    ttfts = [p.ttft_s for p in ok if p.ttft_s is not None]
    log_table(
        context,
        env.redactor,
        "failed chatbot calls",
        ["run", "case", "error"],
        [(r, c, "; ".join(p.errors)) for (r, c), p in batch.items() if p.status != "ok"],
    )
    log_metrics(
        context,
        {
            "cases": len(batch),
            "chatbot_calls": asked,
            "errors": len(batch) - len(ok),
            "latency_mean_s": round(fmean(latencies), 3) if latencies else 0.0,
            "latency_p95_s": round(p95(latencies), 3),
            "ttft_mean_s": round(fmean(ttfts), 3) if ttfts else 0.0,
        },
    )
    return versioned(batch)


@per_case_asset("extracted_claims", ["chatbot_responses"])
def extracted_claims(
    context: AssetExecutionContext,
    settings: EvalSettings,
    results_store: ResourceParam[Results],
    judge_llm: ResourceParam[JudgeLLM],
    tracer: ResourceParam[Tracer],
    golden_cases: Records,
    chatbot_responses: Records,
) -> Output[Batch]:
    """Pass 1 of the oracle: every claim of every answer, numbered into a contract."""
    step = Reusing(context, settings, results_store)
    judge = judge_llm.client
    stage = step.env.stage_fingerprints()
    fingerprints = step.fingerprints(stage.claims, golden_cases, chatbot_responses)

    def extract_one(key: Key) -> ClaimContract:
        case = golden_case(golden_cases, key)
        if case is None:
            return ClaimContract(case_id=key[1], method="none")
        trace = CaseTrace(tracer, *key)
        return extract(case, chatbot_responses[key], judge, trace, step.env.bkg.locale)

    def compute(keys: Sequence[Key]) -> dict[Key, ClaimContract]:
        return map_concurrently(extract_one, {k: k for k in keys}, step.env.settings.concurrency)

    before = judge_llm.requests()
    batch = step.run(fingerprints, compute)
    step.record_calls(judge=judge_llm.requests() - before)
    add_partition_metadata(
        context, per_partition(context, step, lambda key, link: claims_metadata(batch[key], link))
    )
    counts = [len(c.claims) for c in batch.values()]
    log_metrics(
        context,
        {"cases": len(batch), "claims": sum(counts), "claims_per_case_max": max(counts, default=0)},
    )
    return versioned(batch)


def oracle_deps(table_names: Sequence[str]) -> list[AssetDep]:
    return [AssetDep(spec.key) for spec in warehouse_specs(table_names)]


def build_oracle_verdicts(table_names: Sequence[str]) -> Any:
    """The oracle asset depends on the warehouse tables of the BKG, known at load time."""

    @per_case_asset(
        "oracle_verdicts",
        ["chatbot_responses", "extracted_claims"],
        deps=oracle_deps(table_names),
    )
    def oracle_verdicts(
        context: AssetExecutionContext,
        settings: EvalSettings,
        results_store: ResourceParam[Results],
        warehouse: ResourceParam[Warehouse],
        judge_llm: ResourceParam[JudgeLLM],
        tracer: ResourceParam[Tracer],
        golden_cases: Records,
        chatbot_responses: Records,
        extracted_claims: Records,
    ) -> Output[Batch]:
        """Pass 2: recompute each case's references on the live database and judge every claim.

        Reused when the answer, the claims, the reference functions and the live data version of
        every table the case reads are unchanged; stale when those tables changed since the answer.
        """
        step = Reusing(context, settings, results_store)
        env = step.env
        stage = env.stage_fingerprints(warehouse.table_fingerprints)
        current = stage.tables
        fingerprints = step.fingerprints(
            stage.oracle, golden_cases, chatbot_responses, extracted_claims
        )

        def verify_one(key: Key) -> OracleResult:
            case = golden_case(golden_cases, key)
            if case is None:
                return OracleResult(case_id=key[1], error=REMOVED)
            payload: ChatPayload = chatbot_responses[key]
            result = verify(
                case,
                payload,
                extracted_claims[key],
                warehouse.runtime,
                warehouse.db,
                judge_llm.client,
                env.settings.tolerance_rule,
                CaseTrace(tracer, *key),
                env.bkg.locale,
            )
            changed = stale_tables(payload, current)
            if changed and payload.status == "ok":
                result = mark_stale(result, changed)
            return result

        def compute(keys: Sequence[Key]) -> dict[Key, OracleResult]:
            return map_concurrently(verify_one, {k: k for k in keys}, env.settings.concurrency)

        before = judge_llm.requests()
        referenced = warehouse.runtime.calls_made
        batch = step.run(fingerprints, compute)
        referenced = warehouse.runtime.calls_made - referenced
        step.record_calls(reference=referenced, judge=judge_llm.requests() - before)
        add_partition_metadata(
            context,
            per_partition(
                context,
                step,
                lambda key, link: verdict_metadata(batch[key], extracted_claims[key], link),
            ),
        )
        totals: Counter[str] = Counter()
        contradicted = []
        for (_, case_id), result in batch.items():
            totals.update(v.verdict for v in result.verdicts)
            contradicted += [
                (case_id, v.claim_id, v.reason)
                for v in result.verdicts
                if v.verdict == "contradicted"
            ]
        log_metrics(
            context,
            {
                **{f"verdicts_{k}": v for k, v in sorted(totals.items())},
                "reference_calls": referenced,
                "stale_cases": sum(bool(r.stale_tables) for r in batch.values()),
            },
        )
        log_table(
            context, env.redactor, "contradicted claims", ["case", "claim", "why"], contradicted
        )
        return versioned(batch)

    return oracle_verdicts


@per_case_asset("judge_scores", ["chatbot_responses", "oracle_verdicts"])
def judge_scores(
    context: AssetExecutionContext,
    settings: EvalSettings,
    results_store: ResourceParam[Results],
    warehouse: ResourceParam[Warehouse],
    judge_llm: ResourceParam[JudgeLLM],
    embedder: ResourceParam[SentenceEmbedder],
    tracer: ResourceParam[Tracer],
    golden_cases: Records,
    chatbot_responses: Records,
    oracle_verdicts: Records,
) -> Iterator[Output[Batch] | AssetCheckEvaluation]:
    """Every dimension of every case, each scored, skipped or in error — never invented.

    Each case's outcome under the run's gates is also its ``case_passed`` check, reported with
    the partition metadata (``EVAL_PARTITION_METADATA``).
    """
    step = Reusing(context, settings, results_store)
    env = step.env
    judge = judge_llm.client
    stage = env.stage_fingerprints()
    fingerprints = step.fingerprints(stage.scores, golden_cases, chatbot_responses, oracle_verdicts)

    def compute(keys: Sequence[Key]) -> dict[Key, CaseScores]:
        out: dict[Key, CaseScores] = {}
        for start in range(0, len(keys), SCORING_CHUNK):
            out.update(score_chunk(keys[start : start + SCORING_CHUNK]))
        return out

    def score_chunk(keys: Sequence[Key]) -> dict[Key, CaseScores]:
        payloads: dict[Key, ChatPayload] = {k: chatbot_responses[k] for k in keys}
        warm_embeddings([t for p in payloads.values() for t in (p.question, p.answer)], embedder)
        out: dict[Key, CaseScores] = {}
        for key, payload in payloads.items():
            case = golden_case(golden_cases, key)
            if case is None:
                out[key] = CaseScores(case_id=key[1], removed=True, chatbot_errors=[REMOVED])
                continue
            verdicts: OracleResult = oracle_verdicts[key]
            out[key] = CaseScores(
                case_id=case.id,
                dimensions=env.score(
                    case,
                    payload,
                    verdicts,
                    live_catalog=warehouse.live_catalog,
                    use_cache=env.settings.judge_use_cache,
                    trace=CaseTrace(tracer, *key),
                    embedder=embedder,
                ),
                has_expected_answer=case.has_expected_answer,
                has_reference=bool(case.reference),
                tags=case.tags,
                chatbot_errors=payload.errors if payload.status == "error" else [],
                stale_tables=verdicts.stale_tables,
                cost=case_cost(judge.ledger, case.id) if judge else {},
            )
        return out

    before = judge_llm.requests()
    batch = step.run(fingerprints, compute)
    step.record_calls(judge=judge_llm.requests() - before)
    outcomes = {key: judge_record(record, env.policy) for key, record in batch.items()}
    found = {key: first_contradiction(oracle_verdicts[key]) for key in outcomes}
    add_partition_metadata(
        context,
        per_partition(
            context, step, lambda key, link: scores_metadata(outcomes[key], found[key], link)
        ),
    )
    partitions = dict(zip(context.partition_keys, step.keys, strict=True))
    checks = case_results(env, partitions, batch, oracle_verdicts)
    states: dict[str, Counter[str]] = {}
    for record in batch.values():
        for name, dim in record.dimensions.items():
            states.setdefault(name, Counter())[dim.state] += 1
    log_metrics(context, {"cases": len(batch)})
    log_table(
        context,
        env.redactor,
        "dimension states",
        ["dimension", "scored", "skipped", "error"],
        [(n, c["scored"], c["skipped"], c["error"]) for n, c in sorted(states.items())],
    )
    yield versioned(batch)
    yield from check_evaluations(context, CASE_CHECK.asset_key, CASE_CHECK.name, checks)
