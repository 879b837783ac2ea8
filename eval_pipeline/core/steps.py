"""The per-case evaluation steps, one function per asset of the graph, free of Dagster.

Each step takes plain records and returns plain records, so the Dagster assets stay thin and the
same logic is unit-testable alone. Cases are independent: a step maps over a batch concurrently
and one case's failure becomes that case's ``error`` state, never the batch's.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from eval_pipeline.core.adapters.base import ChatbotAdapter
from eval_pipeline.core.claims.extract import extract_claims
from eval_pipeline.core.claims.locale import as_written, localized
from eval_pipeline.core.dimensions.bkg_grounding import bkg_dimension, table_documents
from eval_pipeline.core.dimensions.judges import (
    bkg_judge_score,
    content_quality_dimension,
    on_topic_llm_dimension,
)
from eval_pipeline.core.dimensions.latency import LatencySLA, latency_dimension
from eval_pipeline.core.dimensions.on_topic import on_topic_dimension
from eval_pipeline.core.dimensions.routing import answered_dimension, routing_dimension
from eval_pipeline.core.dimensions.rubric_judge import rubric_dimensions
from eval_pipeline.core.dimensions.safety import find_pii, safety_dimension
from eval_pipeline.core.dimensions.sql_check import sql_dimension
from eval_pipeline.core.embeddings.encoder import SentenceEmbedder, default_embedder
from eval_pipeline.core.llm.client import JudgeClient, JudgeError
from eval_pipeline.core.models import (
    BKG,
    JUDGED_DIMENSIONS,
    ChatPayload,
    ClaimContract,
    DimensionResult,
    GoldenCase,
    LoggedCase,
    OracleResult,
)
from eval_pipeline.core.oracle import DEFAULT_RULE, ToleranceRule, oracle_dimension, verify_claims
from eval_pipeline.core.oracle.llm_verifier import llm_claim_contract, oracle_llm_result
from eval_pipeline.core.rubrics.load import Rubric
from eval_pipeline.core.tracing import attributes as attr
from eval_pipeline.core.tracing.spans import NO_TRACE, CaseTrace
from eval_pipeline.core.warehouse.bkg_runtime import BKGRuntime
from eval_pipeline.core.warehouse.db import Database

log = logging.getLogger(__name__)

K = TypeVar("K")
V = TypeVar("V")
R = TypeVar("R")


def map_concurrently(fn: Callable[[V], R], items: Mapping[K, V], concurrency: int) -> dict[K, R]:
    """Apply ``fn`` to every value with a bounded thread pool, keeping the keys."""
    if not items:
        return {}
    workers = max(1, min(concurrency, len(items)))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="eval") as pool:
        results = pool.map(fn, items.values())
        return dict(zip(items.keys(), results, strict=True))


def ask(adapter: ChatbotAdapter, case: GoldenCase, trace: CaseTrace = NO_TRACE) -> ChatPayload:
    """One chatbot call, traced with the times the answer holds (it may have been asked ahead
    of this step)."""
    asked = time.time()
    payload = _ask(adapter, case)
    if trace.enabled:
        start, end = attr.call_interval(payload, asked, time.time())
        trace.record(
            "chatbot call",
            "AGENT",
            lambda: attr.chatbot_call(case, payload),
            start_s=start,
            end_s=end,
            error="; ".join(payload.errors) if payload.status == "error" else None,
        )
    return payload


def _ask(adapter: ChatbotAdapter, case: GoldenCase) -> ChatPayload:
    """An adapter that raises anyway still yields an error payload. A case created from a logged
    conversation is not asked: the logged answer is the answer."""
    if isinstance(case, LoggedCase):
        return logged_payload(case)
    try:
        return adapter.ask(case.id, case.question, case.context)
    except Exception as exc:
        return ChatPayload(
            case_id=case.id,
            question=case.question,
            status="error",
            errors=[f"adapter failed: {type(exc).__name__}: {exc}"],
        )


def logged_payload(case: LoggedCase) -> ChatPayload:
    """The payload of a logged answer, as if the bot had just given it; its latency is unknown,
    and an empty one is left to the ``answered`` gate."""
    logged = case.logged
    return ChatPayload(
        case_id=case.id,
        question=case.question,
        answer=logged.answer,
        tool_calls=logged.tool_calls,
        transport="logged",
        started_at=logged.created_at,
        intent=logged.intent,
    )


def extract(
    case: GoldenCase,
    payload: ChatPayload,
    judge: JudgeClient | None = None,
    trace: CaseTrace = NO_TRACE,
    locale: str = "en",
) -> ClaimContract:
    """Claim contract of the answer (see ``_extract``), in the case's trace."""
    with trace.span("claim extraction", "CHAIN", lambda: attr.inputs(payload.answer)) as span:
        contract = _extract(case, payload, judge, locale)
        span.set(lambda: attr.claims(contract))
    return contract


def _extract(
    case: GoldenCase, payload: ChatPayload, judge: JudgeClient | None, locale: str
) -> ClaimContract:
    """Claim contract of the answer; personal data found by the safety detectors is no claim.

    The answer is read in the BKG's ``locale`` (its spans and claim texts stay the answer's own).
    With an LLM, the model enumerates every claim (numeric or not) and the deterministic claims
    it missed are merged in; if the model gives no valid contract, the deterministic one stands.
    """
    masked = [m.span for m in find_pii(payload.answer)]
    read = localized(payload.answer, locale)
    question = localized(case.question, locale).text
    contract = extract_claims(case.id, question, read.text, masked_spans=masked)
    if read.text != payload.answer:
        contract = as_written(contract, payload.answer, read)
    if judge is None or payload.status == "error":
        return contract
    try:
        return llm_claim_contract(judge, case, payload.answer, contract)
    except JudgeError as exc:
        log.warning(
            "case %s: LLM claim contract failed, deterministic contract kept: %s", case.id, exc
        )
        return contract


def verify(
    case: GoldenCase,
    payload: ChatPayload,
    contract: ClaimContract,
    runtime: BKGRuntime,
    db: Database,
    judge: JudgeClient | None = None,
    rule: ToleranceRule = DEFAULT_RULE,
    trace: CaseTrace = NO_TRACE,
    locale: str = "en",
) -> OracleResult:
    """Verdicts of the case's claims (see ``_verify``), in the case's trace: each reference
    computed and each verifier call is a span under this one."""
    claims = lambda: attr.inputs(attr.claim_list(contract))  # noqa: E731
    with trace.span("verification", "CHAIN", claims) as span:
        result = _verify(case, payload, contract, runtime, db, judge, rule, locale)
        span.set(lambda: attr.verdicts(result))
    return result


def _verify(
    case: GoldenCase,
    payload: ChatPayload,
    contract: ClaimContract,
    runtime: BKGRuntime,
    db: Database,
    judge: JudgeClient | None,
    rule: ToleranceRule,
    locale: str,
) -> OracleResult:
    """Recompute the case's references live and give every claim a verdict.

    With an LLM, a tool-calling agent verifies the contract; its real tool log is kept and a
    verdict it cannot back with a real call is downgraded to unverifiable.
    """
    if payload.status == "error":
        return OracleResult(case_id=case.id, error="no complete answer to verify")
    if judge is not None:
        return oracle_llm_result(judge, case, payload, contract, runtime, db)
    references = [runtime.evaluate(ref, db) for ref in case.reference]
    verdicts = verify_claims(
        contract,
        references,
        answer=localized(payload.answer, locale).text,
        question=localized(case.question, locale).text,
        rule=rule,
    )
    return OracleResult(case_id=case.id, verdicts=verdicts, references=references)


def _skipped(name: str, reason: str) -> DimensionResult:
    return DimensionResult(name=name, state="skipped", method="none", reason=reason)


def score(
    case: GoldenCase,
    payload: ChatPayload,
    oracle: OracleResult,
    *,
    bkg: BKG,
    sla: LatencySLA,
    live_catalog: Mapping[str, Sequence[str]] | None,
    judge: JudgeClient | None = None,
    use_cache: bool = True,
    rubric: Rubric | None = None,
    trace: CaseTrace = NO_TRACE,
    embedder: SentenceEmbedder | None = None,
) -> dict[str, DimensionResult]:
    """Every dimension of one case; without an LLM judge, on_topic and bkg use ``embedder`` (the
    process's by default) and content_quality is skipped. ``use_cache=False`` asks the judge
    afresh (repeated sampling). With a ``rubric``, its ``rubric.<name>`` dimensions follow the
    built-in ones. In the case's trace, the scores are the attributes of the step's span, each
    judge call a span under it."""
    with trace.span("scoring", "EVALUATOR") as span:
        dims = {
            "oracle": _oracle_dimension(case, oracle),
            "sql": sql_dimension(payload, bkg, live_catalog),
            "safety": safety_dimension(case.question, payload.answer),
            "latency": latency_dimension(payload, sla),
            "routing": routing_dimension(case, payload),
            "answered": answered_dimension(payload),
            **_judged_dimensions(case, payload, oracle, bkg, judge, use_cache, embedder),
        }
        if rubric is not None:
            dims.update(
                rubric_dimensions(
                    rubric,
                    case,
                    payload,
                    oracle,
                    judge=judge,
                    intent=case.logged.intent
                    if isinstance(case, LoggedCase)
                    else case.expected_intent,
                    use_cache=use_cache,
                )
            )
        span.set(lambda: attr.scores(dims))
    return dims


def _oracle_dimension(case: GoldenCase, oracle: OracleResult) -> DimensionResult:
    if oracle.error:
        return DimensionResult(
            name="oracle", state="error", method="deterministic", reason=oracle.error
        )
    oracle_dim = oracle_dimension(
        oracle.verdicts, oracle.references, has_reference=bool(case.reference)
    )
    if oracle.agent:
        oracle_dim = oracle_dim.model_copy(
            update={
                "method": str(oracle.agent.get("method", oracle_dim.method)),
                "details": {**oracle_dim.details, "agent": oracle.agent.get("counts", {})},
            }
        )
    return oracle_dim


def _judged_dimensions(
    case: GoldenCase,
    payload: ChatPayload,
    oracle: OracleResult,
    bkg: BKG,
    judge: JudgeClient | None,
    use_cache: bool,
    embedder: SentenceEmbedder | None,
) -> dict[str, DimensionResult]:
    """content_quality, on_topic and bkg: by the LLM judges, else by embeddings (or skipped)."""
    if payload.status == "error":
        return {
            name: DimensionResult(
                name=name, state="error", method="none", reason="no complete answer to judge"
            )
            for name in JUDGED_DIMENSIONS
        }
    sql = payload.sql_statements
    if judge is None:
        return {
            "content_quality": _skipped("content_quality", "no LLM judge configured"),
            "on_topic": on_topic_dimension(case.question, payload.answer, embedder=embedder),
            "bkg": bkg_dimension(case.question, payload.answer, sql, bkg, embedder=embedder),
        }
    return {
        "content_quality": content_quality_dimension(
            judge, case, payload.answer, oracle.verdicts, bkg, use_cache=use_cache
        ),
        "on_topic": on_topic_llm_dimension(
            judge, case.question, payload.answer, case_id=case.id, use_cache=use_cache
        ),
        "bkg": bkg_dimension(
            case.question,
            payload.answer,
            sql,
            bkg,
            judge_part=lambda tables: bkg_judge_score(
                judge,
                case.question,
                payload.answer,
                sql,
                bkg,
                tables,
                case_id=case.id,
                use_cache=use_cache,
            ),
            judge_method=judge.method,
        ),
    }


def prefetch_embeddings(payload: ChatPayload, embedder: SentenceEmbedder | None = None) -> None:
    """Queue the texts the judged dimensions will encode while other answers still stream in."""
    if payload.status == "ok":
        (embedder or default_embedder()).prefetch([payload.question, payload.answer])


def prefetch_schema(bkg: BKG, embedder: SentenceEmbedder | None = None) -> None:
    """Start loading the model and queue the BKG's table documents before the first answer."""
    (embedder or default_embedder()).prefetch(table_documents(bkg))


def warm_embeddings(texts: Sequence[str], embedder: SentenceEmbedder | None = None) -> None:
    """Encode a whole batch at once; per-case scoring then hits the embedding cache.

    Texts already queued by ``prefetch_embeddings`` are waited for rather than encoded twice.
    """
    embedder = embedder or default_embedder()
    wanted = [t for t in texts if t]
    embedder.wait_for(wanted)
    embedder.encode(wanted)
