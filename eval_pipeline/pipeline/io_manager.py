"""IO manager that stores batched, multi-partition outputs in the results store.

Dagster's built-in file IO managers refuse an output covering many partitions. Here an asset's
value is ``{(run_key, case_id): record}`` for all the partitions of the step (``run_key`` is ""
for case-only assets, ``case_id`` is "" for run-only assets), written as one batch and read back
as the newest record per partition.
"""

from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from dagster import (
    ConfigurableIOManager,
    InputContext,
    MultiPartitionKey,
    OutputContext,
)

from eval_pipeline.core.hashing import content_hash
from eval_pipeline.core.results_store import ResultsStore, StoredRecord
from eval_pipeline.pipeline.partitions import CASES, RUNS, split_key
from eval_pipeline.pipeline.resources import EvalEnvironment

Batch = dict[tuple[str, str], dict[str, Any]]
# AssetIn metadata: the input is a ``StoredRecords``, read from the store a chunk at a time
IN_CHUNKS = {"read": "in chunks"}
CHUNK = 1000


class FingerprintedBatch(Batch):
    """A batch that also says each record's input fingerprint and which records were reused."""

    def __init__(
        self,
        values: Batch,
        *,
        fingerprints: dict[tuple[str, str], str],
        reused: set[tuple[str, str]],
    ) -> None:
        super().__init__(values)
        self.fingerprints = fingerprints
        self.reused = reused


class StoredRecords:
    """The newest record of each of an input's partitions, in key order, read a chunk at a time:
    a run-level step over 10,000 cases never holds all their records (hundreds of MiB) at once."""

    def __init__(
        self, store: ResultsStore, asset: str, wanted: Mapping[str, Sequence[str]]
    ) -> None:
        self._store = store
        self._asset = asset
        self.keys = sorted(
            (run_key, case_id)
            for run_key, case_ids in wanted.items()
            for case_id in store.latest_rows(asset, run_key, case_ids, with_payload=False)
        )

    def __len__(self) -> int:
        return len(self.keys)

    def records(self) -> Iterator[tuple[tuple[str, str], dict[str, Any]]]:
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
                yield key, loaded[key]


def key_pair(partitions_def: Any, key: str | MultiPartitionKey) -> tuple[str, str]:
    """(run_key, case_id) of a partition key of any of the graph's partitionings."""
    if partitions_def == CASES:
        return "", str(key)
    if partitions_def == RUNS:
        return str(key), ""
    return split_key(key)


class ResultsIOManager(ConfigurableIOManager):
    environment: EvalEnvironment

    def handle_output(self, context: OutputContext, obj: Batch) -> None:
        asset = context.asset_key.path[-1]
        pairs = [key_pair(context.asset_partitions_def, k) for k in context.asset_partition_keys]
        missing = [p for p in pairs if p not in obj]
        if missing:
            raise ValueError(f"{asset}: no record produced for partitions {missing[:5]}")
        fingerprints = getattr(obj, "fingerprints", {})
        reused = getattr(obj, "reused", set())
        records = (
            StoredRecord(
                run_key=r,
                case_id=c,
                payload=obj[(r, c)],
                content_hash=content_hash(obj[(r, c)]),
                input_fingerprint=fingerprints.get((r, c), ""),
                reused=(r, c) in reused,
            )
            for r, c in pairs
        )

        written = self.environment.env.store.append(asset, records, context.run_id)
        if len(pairs) == 1:  # on a batch it would be copied onto every partition's event
            context.add_output_metadata({"records_written": written})

    def load_input(self, context: InputContext) -> Batch | StoredRecords:
        asset = context.asset_key.path[-1]
        wanted: dict[str, list[str]] = defaultdict(list)
        for key in context.asset_partition_keys:
            run_key, case_id = key_pair(context.asset_partitions_def, key)
            wanted[run_key].append(case_id)
        store = self.environment.env.store
        if (context.definition_metadata or {}).get("read") == IN_CHUNKS["read"]:
            return StoredRecords(store, asset, wanted)
        batch: Batch = {}
        for run_key, case_ids in wanted.items():
            for case_id, payload in store.latest(asset, run_key, case_ids).items():
                batch[(run_key, case_id)] = payload
        return batch
