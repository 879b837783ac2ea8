"""IO manager that stores batched, multi-partition outputs in the results store, as models.

Dagster's built-in file IO managers refuse an output covering many partitions. Here an asset's
value maps each partition of the step to its record — ``(run_key, case_id)`` for run × case
assets, the case id for ``golden_cases``, the run key for run assets — written as one batch and
read back as the newest record per partition, validated into the asset's model.
"""

from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from dagster import (
    InitResourceContext,
    InputContext,
    IOManager,
    MultiPartitionKey,
    OutputContext,
    io_manager,
)
from pydantic import BaseModel

from eval_pipeline.core.hashing import content_hash
from eval_pipeline.core.models import (
    CaseScores,
    ChatPayload,
    ClaimContract,
    OracleResult,
    case_record,
)
from eval_pipeline.core.results_store import RUN_WIDE, ResultsStore, StoredRecord
from eval_pipeline.core.summary import RunSummary
from eval_pipeline.pipeline.partitions import CASES, RUNS, split_key
from eval_pipeline.pipeline.resources import Results

Key = tuple[str, str]  # (run_key, case_id) of a run × case partition
Batch = dict[Any, Any]  # partition → record: a model, or a plain dict for eval_report
# AssetIn metadata: the input is a ``StoredRecords``, read from the store a chunk at a time
IN_CHUNKS = {"read": "in chunks"}
CHUNK = 1000


RECORDS: dict[str, Any] = {
    "golden_cases": case_record,
    "chatbot_responses": ChatPayload.model_validate,
    "extracted_claims": ClaimContract.model_validate,
    "oracle_verdicts": OracleResult.model_validate,
    "judge_scores": CaseScores.model_validate,
    "eval_run": RunSummary.model_validate,
}


def as_record(asset: str, payload: dict[str, Any]) -> Any:
    """The model of a stored payload of ``asset`` (``eval_report`` keeps a plain dict)."""
    model = RECORDS.get(asset)
    return model(payload) if model else payload


def as_payload(record: Any) -> Any:
    return record.model_dump(mode="json") if isinstance(record, BaseModel) else record


class Records(Batch):
    """An input's newest record per partition, each with the content hash stored beside it."""

    def __init__(self, records: Batch, hashes: Mapping[Any, str]) -> None:
        super().__init__(records)
        self.hashes = dict(hashes)


class FingerprintedBatch(Batch):
    """A batch that also says each record's input fingerprint and which records were reused."""

    def __init__(self, values: Batch, *, fingerprints: dict[Key, str], reused: set[Key]) -> None:
        super().__init__(values)
        self.fingerprints = fingerprints
        self.reused = reused


class StoredRecords:
    """The newest record of each of an input's run × case partitions, in key order, read a chunk
    at a time: a run-level step over 10,000 cases never holds all their records at once."""

    def __init__(self, store: ResultsStore, asset: str, wanted: Mapping[str, Sequence[str]]):
        self._store = store
        self._asset = asset
        self.keys = sorted(
            (run_key, case_id)
            for run_key, case_ids in wanted.items()
            for case_id in store.latest_rows(asset, run_key, case_ids, with_payload=False)
        )

    def __len__(self) -> int:
        return len(self.keys)

    def records(self) -> Iterator[tuple[Key, Any]]:
        for start in range(0, len(self.keys), CHUNK):
            chunk = self.keys[start : start + CHUNK]
            by_run: dict[str, list[str]] = defaultdict(list)
            for run_key, case_id in chunk:
                by_run[run_key].append(case_id)
            loaded = {
                (run_key, case_id): payload
                for run_key, case_ids in by_run.items()
                for case_id, payload in self._store.latest(self._asset, run_key, case_ids).items()
            }
            for key in chunk:
                yield key, as_record(self._asset, loaded[key])


def partition_of(partitions_def: Any, key: str | MultiPartitionKey) -> tuple[Any, Key]:
    """The batch key of a partition, and its (run_key, case_id) row in the results store."""
    if partitions_def == CASES:
        return str(key), (RUN_WIDE, str(key))
    if partitions_def == RUNS:
        return str(key), (str(key), RUN_WIDE)
    pair = split_key(key)
    return pair, pair


class ResultsIOManager(IOManager):
    def __init__(self, store: ResultsStore) -> None:
        self.store = store

    def handle_output(self, context: OutputContext, obj: Batch) -> None:
        asset = context.asset_key.path[-1]
        parts = [
            partition_of(context.asset_partitions_def, k) for k in context.asset_partition_keys
        ]
        missing = [key for key, _ in parts if key not in obj]
        if missing:
            raise ValueError(f"{asset}: no record produced for partitions {missing[:5]}")
        fingerprints = getattr(obj, "fingerprints", {})
        reused = getattr(obj, "reused", set())

        def stored(key: Any, row: Key) -> StoredRecord:
            payload = as_payload(obj[key])
            return StoredRecord(
                run_key=row[0],
                case_id=row[1],
                payload=payload,
                content_hash=content_hash(payload),
                input_fingerprint=fingerprints.get(key, ""),
                reused=key in reused,
            )

        records = (stored(key, row) for key, row in parts)
        written = self.store.append(asset, records, context.run_id)
        if len(parts) == 1:  # on a batch it would be copied onto every partition's event
            context.add_output_metadata({"records_written": written})

    def load_input(self, context: InputContext) -> Records | StoredRecords:
        asset = context.asset_key.path[-1]
        rows: dict[str, dict[str, Any]] = defaultdict(dict)
        for partition in context.asset_partition_keys:
            key, (run_key, case_id) = partition_of(context.asset_partitions_def, partition)
            rows[run_key][case_id] = key
        store = self.store
        if (context.definition_metadata or {}).get("read") == IN_CHUNKS["read"]:
            return StoredRecords(store, asset, {r: list(cases) for r, cases in rows.items()})
        records: Batch = {}
        hashes: dict[Any, str] = {}
        for run_key, keys in rows.items():
            for case_id, row in store.latest_rows(asset, run_key, keys).items():
                records[keys[case_id]] = as_record(asset, row.payload)
                hashes[keys[case_id]] = row.content_hash
        return Records(records, hashes)


@io_manager(required_resource_keys={"results_store"})
def results_io_manager(context: InitResourceContext) -> ResultsIOManager:
    """Every asset's records, in the results store the assets use."""
    results: Results = context.resources.results_store
    return ResultsIOManager(results.store)
