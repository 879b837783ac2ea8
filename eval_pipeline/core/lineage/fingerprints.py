"""Input fingerprints of the per-case stages, in one place.

The assets compare them with the stored ones to reuse results; the launcher compares them to skip
cases whose every stage is up to date. Both must agree exactly, so both build them here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cached_property
from typing import Any

from eval_pipeline.core.dimensions.judges import prompt_versions
from eval_pipeline.core.hashing import content_hash
from eval_pipeline.core.lineage.reuse import fingerprint
from eval_pipeline.core.lineage.staleness import case_tables
from eval_pipeline.core.llm.client import JudgeClient
from eval_pipeline.core.models import BKG, GoldenCase, case_record
from eval_pipeline.core.oracle.llm_verifier import oracle_prompt_versions

Record = Mapping[str, Any] | None


def judge_identity(judge: JudgeClient | None) -> dict[str, Any] | None:
    """What a judged result depends on: the model and every prompt version."""
    if judge is None:
        return None
    return {"model": judge.method, "prompts": {**prompt_versions(), **oracle_prompt_versions()}}


def as_case(golden: Record) -> GoldenCase | None:
    """The golden case of a stored ``golden_cases`` record; None when it was removed."""
    case = None if golden is None else case_record(golden)
    return case if isinstance(case, GoldenCase) else None


class StageFingerprints:
    """Fingerprint of each stage's inputs: code version, configuration, the golden record and the
    content hashes of the upstream records (as stored beside them in the results store).

    ``versions`` is read at every call, so a bumped stage version counts at once;
    ``table_fingerprints`` (the live data version of every BKG table) is read once, when first
    needed.
    """

    def __init__(
        self,
        *,
        versions: Mapping[str, str],
        bkg: BKG,
        chatbot_target: Mapping[str, Any],
        judge: JudgeClient | None,
        scoring: Mapping[str, Any],
        table_fingerprints: Callable[[], dict[str, str]],
        oracle: Mapping[str, Any] | None = None,
    ) -> None:
        self.versions = versions
        self.bkg = bkg
        self.chatbot_target = dict(chatbot_target)
        self.judge_id = judge_identity(judge)
        self.scoring = {**scoring, "judge": self.judge_id}
        self.oracle_config = dict(oracle or {})
        self._table_fingerprints = table_fingerprints

    @cached_property
    def tables(self) -> dict[str, str]:
        return self._table_fingerprints()

    def chatbot(self, golden: Record) -> str:
        return fingerprint(self.versions["chatbot_responses"], golden, self.chatbot_target)

    def claims(self, golden: Record, response: str) -> str:
        """Also the BKG's locale, when not the default: it decides how numbers are read."""
        locale = [self.bkg.locale] if self.bkg.locale != "en" else []
        return fingerprint(
            self.versions["extracted_claims"], golden, response, self.judge_id, *locale
        )

    def oracle(self, golden: Record, response: str, claims: str) -> str:
        """Also the reference functions' source and the live data version of every table the
        case's truth reads: a changed KPI or refreshed table re-verifies."""
        case = as_case(golden)
        tables = case_tables(case, self.bkg) if case else []
        return fingerprint(
            self.versions["oracle_verdicts"],
            self.judge_id,
            golden,
            response,
            claims,
            self._function_sources(case),
            {t: self.tables.get(t) for t in tables},
            self.oracle_config,
        )

    def scores(self, golden: Record, response: str, verdicts: str) -> str:
        return fingerprint(self.versions["judge_scores"], golden, response, verdicts, self.scoring)

    def _function_sources(self, case: GoldenCase | None) -> list[str]:
        if case is None:
            return []
        out = []
        for ref in case.reference:
            fn = self.bkg.function(ref.kind, ref.target) if ref.sql is None else None
            out.append(content_hash(fn.python_function) if fn else ref.target)
        return out
