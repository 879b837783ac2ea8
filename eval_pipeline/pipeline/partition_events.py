"""Per-partition events of a batched step: each case's metadata and its check evaluation.

Dagster 1.13 has no public form of either for a step that materializes many partitions at once.
``context.add_asset_metadata(partition_key=...)`` re-derives the step's whole partition range on
every call (reading every dynamic partition key from the instance and building all N keys): about
10 ms a call at 500 cases, quadratic in the batch. ``AssetCheckResult`` takes the step's single
partition key, so a step over a range cannot report a partitioned check through it; the check's
evaluation must point at the partition's materialization itself, or Dagster treats it as outdated.

This is the only module of the code location that uses Dagster's private API (the rest is in
``runner/internals.py``): re-check both on a Dagster upgrade.

No ``from __future__ import annotations`` here: Dagster inspects the real type hints.
"""

import time
from collections.abc import Iterator, Mapping
from typing import Any

from dagster import (
    AssetCheckEvaluation,
    AssetCheckSeverity,
    AssetExecutionContext,
    AssetKey,
    AssetRecordsFilter,
    DagsterEventType,
    DagsterInstance,
    OpExecutionContext,
)
from dagster._core.definitions.asset_checks.asset_check_evaluation import (
    AssetCheckEvaluationTargetMaterializationData,
)
from dagster._core.execution.context.metadata_logging import (
    AssetMetadataHandle,
    OutputMetadataAccumulator,
)

LOOKUP_CHUNK = 1000  # materializations fetched by storage id per query: well under SQLite's limit


def add_partition_metadata(
    context: AssetExecutionContext, by_partition: Mapping[str, Mapping[str, Any]]
) -> None:
    """Give each partition of the step's output its own metadata, in one pass over the batch."""
    if not by_partition:
        return
    step = context.op_execution_context._step_execution_context
    key = context.assets_def.key
    accumulated = step._metadata_accumulator.per_output_metadata
    step._metadata_accumulator = OutputMetadataAccumulator(
        per_output_metadata={
            **accumulated,
            **{
                AssetMetadataHandle(asset_key=key, partition_key=partition): dict(metadata)
                for partition, metadata in by_partition.items()
            },
        }
    )


def check_evaluations(
    context: AssetExecutionContext | OpExecutionContext,
    asset: AssetKey,
    check_name: str,
    results: Mapping[str, tuple[bool, AssetCheckSeverity, Mapping[str, Any]]],
) -> Iterator[AssetCheckEvaluation]:
    """One evaluation per partition of ``results`` (passed, severity, metadata), each pointing at
    the partition's latest materialization, made by this run: yield them after the step's output
    is stored."""
    if not results:
        return
    stored = context.instance.get_latest_storage_id_by_partition(
        asset, DagsterEventType.ASSET_MATERIALIZATION, set(results)
    )
    now = time.time()
    targets = {
        partition: AssetCheckEvaluationTargetMaterializationData(
            storage_id=storage_id, run_id=context.run_id, timestamp=now
        )
        for partition, storage_id in stored.items()
    }
    yield from _evaluations(asset, check_name, results, targets)


def stored_check_evaluations(
    instance: DagsterInstance,
    asset: AssetKey,
    check_name: str,
    results: Mapping[str, tuple[bool, AssetCheckSeverity, Mapping[str, Any]]],
) -> list[AssetCheckEvaluation]:
    """The same for an evaluation made apart from the materializing run (a sensor's, a check run
    alone): each points at the partition's latest stored materialization, whichever run made it,
    so the partition's next materialization clears it."""
    if not results:
        return []
    stored = instance.get_latest_storage_id_by_partition(
        asset, DagsterEventType.ASSET_MATERIALIZATION, set(results)
    )
    ids = list(stored.values())
    records = [
        record
        for start in range(0, len(ids), LOOKUP_CHUNK)
        for record in instance.fetch_materializations(
            AssetRecordsFilter(asset_key=asset, storage_ids=ids[start : start + LOOKUP_CHUNK]),
            limit=LOOKUP_CHUNK,
        ).records
    ]
    by_id = {r.storage_id: r for r in records}
    targets = {
        partition: AssetCheckEvaluationTargetMaterializationData(
            storage_id=storage_id,
            run_id=by_id[storage_id].run_id,
            timestamp=by_id[storage_id].timestamp,
        )
        for partition, storage_id in stored.items()
        if storage_id in by_id
    }
    return list(_evaluations(asset, check_name, results, targets))


def _evaluations(
    asset: AssetKey,
    check_name: str,
    results: Mapping[str, tuple[bool, AssetCheckSeverity, Mapping[str, Any]]],
    targets: Mapping[str, AssetCheckEvaluationTargetMaterializationData],
) -> Iterator[AssetCheckEvaluation]:
    for partition, (passed, severity, metadata) in results.items():
        yield AssetCheckEvaluation(
            asset_key=asset,
            check_name=check_name,
            passed=passed,
            metadata=metadata,
            target_materialization_data=targets.get(partition),
            severity=severity,
            partition=partition,
        )
