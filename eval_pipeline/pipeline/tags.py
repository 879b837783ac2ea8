"""Dagster's own tags and settings the code location writes: Dagster has no public constants.

The range pair makes one run cover a range of partitions (a single-run backfill), the partition
tag makes a run cover one, and the data version tag carries an observation's data version.
``runner.internals.check_dagster_version`` checks they are still Dagster's.
"""

import os

RANGE_START_TAG = "dagster/asset_partition_range_start"
RANGE_END_TAG = "dagster/asset_partition_range_end"
SINGLE_PARTITION_TAG = "dagster/partition"
DATA_VERSION_TAG = "dagster/data_version"

BATCH_SIZE_ENV = "DAGSTER_EVENT_BATCH_SIZE"
DEFAULT_BATCH_SIZE = 1000


def enable_event_batching(batch_size: int = DEFAULT_BATCH_SIZE) -> None:
    """Let Dagster hand a multi-partition output's events over as one batch.

    Dagster reads the variable at every event, in whichever process stores it; an explicit value,
    ``0`` included, is left alone.
    """
    os.environ.setdefault(BATCH_SIZE_ENV, str(batch_size))
