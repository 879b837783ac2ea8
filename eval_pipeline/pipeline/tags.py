"""Dagster's own tags that the code location writes: Dagster exports no public constant for them.

The range pair makes one run cover a range of partitions (a single-run backfill), the partition
tag makes a run cover one, and the data version tag carries an observation's data version.
``runner.internals.check_dagster_version`` checks they are still Dagster's.
"""

RANGE_START_TAG = "dagster/asset_partition_range_start"
RANGE_END_TAG = "dagster/asset_partition_range_end"
SINGLE_PARTITION_TAG = "dagster/partition"
DATA_VERSION_TAG = "dagster/data_version"
