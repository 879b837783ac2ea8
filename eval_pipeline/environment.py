"""Everything one evaluation needs, built lazily from Settings and shared by all cases.

Heavy objects — the validated inputs, the compiled BKG functions with their memo, the warehouse
connection pool, the chatbot adapter with its HTTP pool — are built once per Dagster run (or CLI
command), never per case.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import threading
from collections.abc import Callable, Sequence
from functools import cached_property, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eval_pipeline.configuration import build_adapter as build_adapter  # its one home is there
from eval_pipeline.configuration import configuration_problems, open_results_store
from eval_pipeline.core.adapters.base import ChatbotAdapter
from eval_pipeline.core.aggregate import GatePolicy
from eval_pipeline.core.analysis.calibration import demotions, judge_version
from eval_pipeline.core.attempts import RunLedger
from eval_pipeline.core.conversations import (
    ConversationReader,
    as_case,
    conversation_id_of,
    is_logged_key,
)
from eval_pipeline.core.dimensions.judges import prompt_versions
from eval_pipeline.core.dimensions.rubric_judge import load_rubric_prompt
from eval_pipeline.core.inputs import load_bkg, load_golden
from eval_pipeline.core.limits import ReferenceLimits
from eval_pipeline.core.lineage.fingerprints import StageFingerprints
from eval_pipeline.core.lineage.staleness import table_fingerprints
from eval_pipeline.core.llm.client import CostLedger, JudgeClient
from eval_pipeline.core.models import BKG, ChatPayload, DimensionResult, GoldenCase, OracleResult
from eval_pipeline.core.problems import InputError, Problem
from eval_pipeline.core.redaction import Redactor
from eval_pipeline.core.results_store import ResultsStore
from eval_pipeline.core.rubrics.load import RubricSet, check_rubric_set
from eval_pipeline.core.tracing.spans import NO_TRACE, NO_TRACER, CaseTrace, Tracer
from eval_pipeline.core.warehouse.bkg_runtime import BKGRuntime
from eval_pipeline.core.warehouse.db import Database
from eval_pipeline.settings import Settings
from eval_pipeline.versions import STAGE_VERSIONS

if TYPE_CHECKING:
    from eval_pipeline.core.embeddings.encoder import SentenceEmbedder


def build_tracer(
    settings: Settings, redactor: Redactor | None = None, *, own_process: bool = False
) -> Tracer:
    """The OpenTelemetry exporter when ``EVAL_OTEL_ENDPOINT`` is set, its spans redacted by
    ``redactor`` (built from the settings when not given), else the tracer that records nothing.
    ``own_process`` sends from a child process (worth its start for a whole evaluation, not for
    one Dagster step); OpenTelemetry is imported only where the spans are sent."""
    traces = settings.traces
    if traces is None:
        return NO_TRACER
    from eval_pipeline.core.tracing.recorder import Exporter, RecordingTracer

    exporter: Exporter
    if own_process:
        from eval_pipeline.core.tracing.export_process import ExportProcess

        exporter = ExportProcess(traces)
    else:
        from eval_pipeline.core.tracing.otel import ExportPipeline

        exporter = ExportPipeline(traces)
    return RecordingTracer(traces, exporter, (redactor or Redactor.from_settings(settings)).text)


def answer_source(settings: Settings) -> dict[str, Any]:
    """What decides which answers a case gets: a stored answer is reused only for the same.
    Where the adapter reads the routed intent counts only when not the default (answers stored
    before intents were read stay reusable under the default)."""
    s = settings
    target: dict[str, Any] = {
        "kind": s.chatbot_kind,
        "url": s.chatbot_url,
        "callable": s.chatbot_callable,
    }
    where = [s.chatbot_intent_event, s.chatbot_intent_path]
    if where != ["agent_status", "intent"]:
        target["intent"] = where
    if s.chatbot_kind == "openai_chat":
        target["model"] = s.chatbot_model
        target["body"] = json.dumps(s.chatbot_body, sort_keys=True, default=str)
    if s.chatbot_kind == "ui" and s.chatbot_ui_config is not None:
        target["ui_config"] = _stamp(s.chatbot_ui_config) or ""
    return target


def _stamp(path: Path) -> str | None:
    """The file's content hash: the cache key of what was validated from it."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None  # the loader reports the missing file


@lru_cache(maxsize=4)
def _bkg(path: Path, stamp: str | None, limits: ReferenceLimits) -> BKG:
    """Validated once per file version and process: an evaluation builds several environments
    (the launcher's, one per Dagster run), and validating a large golden set takes a second."""
    return load_bkg(path, limits=limits)


@lru_cache(maxsize=4)
def _cases(
    path: Path,
    stamp: str | None,
    bkg_path: Path,
    bkg_stamp: str | None,
    limits: ReferenceLimits,
    max_field_chars: int,
) -> tuple[GoldenCase, ...]:
    bkg = _bkg(bkg_path, bkg_stamp, limits)
    return tuple(load_golden(path, bkg, max_field_chars=max_field_chars))


class Environment:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._db: Database | None = None
        self._adapter: ChatbotAdapter | None = None
        self._judge: JudgeClient | None = None
        self._conversations: ConversationReader | None = None

    @cached_property
    def bkg(self) -> BKG:
        path = self.settings.bkg_path
        return _bkg(path, _stamp(path), self.settings.reference_limits)

    @cached_property
    def cases(self) -> dict[str, GoldenCase]:
        s = self.settings
        golden = _cases(
            s.golden_path,
            _stamp(s.golden_path),
            s.bkg_path,
            _stamp(s.bkg_path),
            s.reference_limits,
            s.golden_max_field_chars,
        )
        return {c.id: c for c in golden}

    @property
    def conversations(self) -> ConversationReader:
        """The reader of ``EVAL_CONVERSATIONS_URL``; ValueError when none is configured."""
        source = self.settings.conversation_source
        if source is None:
            raise ValueError("no conversation source: set EVAL_CONVERSATIONS_URL")
        with self._lock:
            if self._conversations is None:
                self._conversations = ConversationReader(source)
            return self._conversations

    def logged_cases(self, case_ids: Sequence[str]) -> dict[str, GoldenCase]:
        """The cases of the logged conversations among ``case_ids`` still in the source."""
        wanted = [conversation_id_of(c) for c in case_ids if is_logged_key(c)]
        if not wanted:
            return {}
        found = self.conversations.read(wanted)
        cases = (as_case(conversation, self.bkg) for conversation in found.values())
        return {case.id: case for case in cases if case is not None}

    def cases_for(self, case_ids: Sequence[str]) -> dict[str, GoldenCase]:
        """Every golden case, then the logged conversations among ``case_ids``."""
        return {**self.cases, **self.logged_cases(case_ids)}

    @cached_property
    def _rubric_check(self) -> tuple[RubricSet, list[Problem]]:
        s = self.settings
        return check_rubric_set(s.rubric_path, list(self.cases.values()), s.golden_path, self.bkg)

    def rubric_problems(self) -> list[Problem]:
        return self._rubric_check[1]

    @property
    def rubrics(self) -> RubricSet:
        """The default rubric and the cases' own, validated; InputError lists every problem."""
        rubrics, problems = self._rubric_check
        if problems:
            raise InputError(problems)
        return rubrics

    @cached_property
    def runtime(self) -> BKGRuntime:
        return BKGRuntime(self.bkg, self.settings.reference_limits)

    @property
    def db(self) -> Database:
        with self._lock:
            if self._db is None:
                self._db = Database(self.settings.warehouse_url, read_only=True)
            return self._db

    @property
    def adapter(self) -> ChatbotAdapter:
        with self._lock:
            if self._adapter is None:
                self._adapter = build_adapter(self.settings, self.redactor)
            return self._adapter

    @property
    def judge(self) -> JudgeClient | None:
        """The LLM judge client, shared by all cases; None when no LLM is configured."""
        llm = self.settings.llm
        if llm is None:
            return None
        with self._lock:
            if self._judge is None:
                self._judge = JudgeClient(
                    llm, cache_url=self.settings.results_store_url, ledger=CostLedger()
                )
            return self._judge

    @cached_property
    def redactor(self) -> Redactor:
        """The settings' secrets and credential shapes, out of everything stored or logged."""
        return Redactor.from_settings(self.settings)

    @cached_property
    def store(self) -> ResultsStore:
        return open_results_store(self.settings, self.redactor)

    @cached_property
    def ledger(self) -> RunLedger:
        """The run key's attempts and locks, in the results store (opened first)."""
        return RunLedger(self.store.url)

    def configuration_problems(self, dagster_config: Callable[[str], str | None]) -> list[Problem]:
        """What ``configuration.configuration_problems`` finds, with this environment's store,
        chatbot adapter and BKG, which the evaluation then goes on using."""
        return configuration_problems(
            self.settings,
            store=lambda: self.store,
            adapter=lambda: self.adapter,
            bkg=lambda: self.bkg,
            dagster_config=dagster_config,
        )

    @cached_property
    def live_catalog(self) -> dict[str, list[str]]:
        return {t: self.db.columns(t) for t in self.db.table_names()}

    @cached_property
    def calibration_demotions(self) -> dict[str, str]:
        """Judged dimensions whose judge version is uncalibrated: warnings, not scored."""
        judge = self.judge
        if judge is None:
            return {}
        version = judge_version(judge.method, prompt_versions())
        return demotions(self.settings.results_store_url, version, self.settings.calibration_bar)

    def table_fingerprints(self) -> dict[str, str]:
        """The data version of every BKG table, as it is now."""
        return table_fingerprints(self.db, self.bkg)

    def stage_fingerprints(
        self, tables: Callable[[], dict[str, str]] | None = None
    ) -> StageFingerprints:
        """Fresh per step: the tables' data versions (``tables``, by default this environment's
        warehouse) are read when the step first needs them."""
        s = self.settings
        return StageFingerprints(
            versions=STAGE_VERSIONS,
            bkg=self.bkg,
            chatbot_target=answer_source(s),
            judge=self.judge,
            scoring=self.scoring_config(),
            oracle={
                **dataclasses.asdict(s.tolerance_rule),
                **({"locale": self.bkg.locale} if self.bkg.locale != "en" else {}),
            },
            table_fingerprints=tables or self.table_fingerprints,
        )

    def scoring_config(self) -> dict[str, Any]:
        """What the scores depend on besides the records: the SLA and every rubric in use (only
        when there is one, so results scored before rubrics existed stay reusable)."""
        config: dict[str, Any] = {"sla": self.settings.latency_sla.model_dump()}
        if digests := self.rubrics.digests():
            config["rubrics"] = {"files": digests, "prompt": load_rubric_prompt().version}
        return config

    def score(
        self,
        case: GoldenCase,
        payload: ChatPayload,
        oracle: OracleResult,
        *,
        live_catalog: dict[str, list[str]] | None,
        use_cache: bool,
        trace: CaseTrace = NO_TRACE,
        embedder: SentenceEmbedder | None = None,
    ) -> dict[str, DimensionResult]:
        """Every dimension of one answer, with this evaluation's BKG, SLA, rubric and judge, and the
        warehouse's ``live_catalog``."""
        from eval_pipeline.core.steps import score  # the encoder's stack, only when scoring

        return score(
            case,
            payload,
            oracle,
            bkg=self.bkg,
            sla=self.settings.latency_sla,
            live_catalog=live_catalog,
            judge=self.judge,
            use_cache=use_cache,
            rubric=self.rubrics.for_case(case),
            trace=trace,
            embedder=embedder,
        )

    @property
    def policy(self) -> GatePolicy:
        s = self.settings
        return GatePolicy(
            demoted=frozenset(self.calibration_demotions),
            demotion_reasons=self.calibration_demotions,
            weights=s.weights,
            weights_bare=s.weights_bare,
            pass_threshold=s.pass_threshold,
            oracle_gate=s.oracle_gate,
            warn_threshold=s.warn_threshold,
            extra_weights=self.rubrics.weights(),
            gates={
                "answered": 1.0,
                **({"routing": 1.0} if s.routing_gate else {}),
                **self.rubrics.gates(),
            },
            off_topic_gate=s.off_topic_gate,
        )

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
        if self._adapter is not None:
            self._adapter.close()
        if self._judge is not None:
            self._judge.close()
        if self._conversations is not None:
            self._conversations.close()
