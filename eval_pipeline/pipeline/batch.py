"""What every batched asset step shares: keys, reuse bookkeeping, data versions, logs.

Per-case assets process every partition of their step in one batch (``context.partition_keys``),
so an evaluation run takes a few Dagster runs (its waves), never one per case, with the cases of
each worked on concurrently.

No ``from __future__ import annotations`` here: Dagster inspects the real type hints.
"""

import warnings
from collections.abc import Callable, Mapping, Sequence
from statistics import quantiles
from typing import Any

from dagster import (
    AssetExecutionContext,
    BackfillPolicy,
    BetaWarning,
    DataVersion,
    MetadataValue,
    Output,
    PythonObjectDagsterType,
)

from eval_pipeline.core.hashing import content_hash
from eval_pipeline.core.lineage.reuse import reuse_or_compute
from eval_pipeline.core.llm.client import CostLedger
from eval_pipeline.core.models import GoldenCase
from eval_pipeline.core.redaction import Redactor
from eval_pipeline.pipeline.io_manager import (
    Batch,
    FingerprintedBatch,
    Key,
    Records,
    as_payload,
    as_record,
)
from eval_pipeline.pipeline.partitions import split_key
from eval_pipeline.pipeline.resources import EvalSettings, Results

warnings.filterwarnings("ignore", message="Parameter `backfill_policy`", category=BetaWarning)

# Dagster would check a ``dict[tuple, dict]`` hint entry by entry, key by key, on every input
# and output: seconds per step at thousands of cases, for a shape the IO manager guarantees.
BATCH = PythonObjectDagsterType(dict, name="Batch", description="{(run_key, case_id): record}")
GROUP = "evaluation"
IO = "results_io_manager"
SINGLE_RUN = BackfillPolicy.single_run()
REMOVED = "removed from the golden dataset"


def keys_of(context: AssetExecutionContext) -> list[Key]:
    return [split_key(k) for k in context.partition_keys]


def golden_case(golden: Records, key: Key) -> GoldenCase | None:
    """The golden case of a run × case partition; None when it was removed from the dataset."""
    case = golden.get(key[1])
    return case if isinstance(case, GoldenCase) else None


def golden_json(golden: Records, key: Key) -> dict[str, Any] | None:
    """The stored golden record of a partition, as the stage fingerprints hash it."""
    case = golden.get(key[1])
    return None if case is None else as_payload(case)


def md_table(
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
    context: AssetExecutionContext,
    redactor: Redactor,
    title: str,
    header: Sequence[str],
    rows: Sequence[Sequence[Any]],
) -> None:
    """A step-level table goes to the run log once (output metadata of a batched output is copied
    onto every partition's materialization event), redacted: the run log is stored text."""
    if rows:
        context.log.info(redactor.text(f"{title}:\n{md_table(header, rows).value}"))


def log_metrics(context: AssetExecutionContext, metrics: Mapping[str, Any]) -> None:
    """A batched step's figures go to the run log once, not into its materializations: Dagster
    copies output metadata onto every partition's event, which would store them once per case
    and make every event (thousands per run) several times larger."""
    context.log.info(", ".join(f"{k}={v}" for k, v in metrics.items()))


def versioned(batch: Batch) -> Output[Batch]:
    """The batch with a content-hash data version: an unchanged batch stales nothing downstream.

    Dagster gives all partitions of one output the same data version, so the version is per batch;
    per-case reuse is decided by the input fingerprints.
    """
    payloads = sorted((key, as_payload(record)) for key, record in batch.items())
    return Output(batch, data_version=DataVersion(content_hash(payloads)))


class Reusing:
    """Reuse-or-compute bookkeeping for one per-case asset step."""

    def __init__(
        self,
        context: AssetExecutionContext,
        settings: EvalSettings,
        results_store: Results,
    ) -> None:
        self.context = context
        self.env = settings.env
        self.store = results_store.store
        self.asset = context.assets_def.key.path[-1]
        self.keys = keys_of(context)
        self.previous: dict[Key, tuple[str, dict[str, Any]]] = {}
        for run_key in {r for r, _ in self.keys}:
            cases = [c for r, c in self.keys if r == run_key]
            for case_id, row in self.store.latest_rows(self.asset, run_key, cases).items():
                self.previous[(run_key, case_id)] = (row.input_fingerprint, row.payload)

    def fingerprints(
        self, stage: Callable[..., str], golden: Records, *upstream: Records
    ) -> dict[Key, str]:
        """Each partition's input fingerprint: ``stage`` (a ``StageFingerprints`` method) of its
        golden case and the content hashes of its ``upstream`` records."""
        return {
            key: stage(golden_json(golden, key), *(records.hashes[key] for records in upstream))
            for key in self.keys
        }

    def run(
        self,
        fingerprints: dict[Key, str],
        compute: Callable[[Sequence[Key]], Mapping[Key, Any]],
        *,
        refresh: bool = False,
    ) -> FingerprintedBatch:
        """Each partition's record: reused if its input fingerprint is unchanged, else computed."""
        values, reused = reuse_or_compute(fingerprints, self.previous, compute, refresh=refresh)
        for key in reused:  # stored as JSON: validated only when reused
            values[key] = as_record(self.asset, values[key])
        log_metrics(self.context, {"reused": len(reused), "computed": len(values) - len(reused)})
        return FingerprintedBatch(values, fingerprints=fingerprints, reused=reused)

    def record_calls(self, **calls: int) -> None:
        self.store.record_calls(self.context.run_id, self.asset, calls)


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


def p95(values: Sequence[float]) -> float:
    if len(values) < 2:
        return values[0] if values else 0.0
    return quantiles(values, n=20)[-1]
