"""What each case's partition metadata and ``case_passed`` check add at scale, replayed from a
finished evaluation (``bench/partition_metadata.py`` leaves its homes in a temporary folder; any
``EVAL_HOME`` evaluated with ``EVAL_PARTITION_METADATA`` on will do).

When whole A/B evaluations at 10,000 cases take too long on a loaded machine, this measures the
work the setting adds, in this process's user + system CPU time:

* building each case's metadata and check result from its stored records (the four assets'
  builders and ``case_check``);
* storing the evaluation's materialization events with their per-case metadata against the same
  events without it, through the project's event log storage in batches as a run stores them;
* storing its ``case_passed`` evaluations.

    .venv/bin/python bench/partition_metadata_replay.py EVAL_HOME RUN_KEY [--batch 500]
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def timed(what: str, work: Callable[[], Any]) -> float:
    start, wall = cpu(), time.perf_counter()
    work()
    spent = cpu() - start
    print(f"  {what}: cpu {spent:.1f}s wall {time.perf_counter() - wall:.1f}s", flush=True)
    return spent


def build_all(home: Path, run_key: str) -> int:
    """Every case's metadata and check result, built as the steps build them."""
    from eval_pipeline.core.models import CaseScores, ChatPayload, ClaimContract, OracleResult
    from eval_pipeline.core.redaction import Redactor
    from eval_pipeline.core.report.viewer import report_url
    from eval_pipeline.core.results_store import ResultsStore
    from eval_pipeline.environment import Environment
    from eval_pipeline.pipeline.case_checks import case_results
    from eval_pipeline.pipeline.case_metadata import (
        claims_metadata,
        redacted,
        response_metadata,
        scores_metadata,
        verdict_metadata,
    )
    from eval_pipeline.settings import Settings

    store = ResultsStore(f"sqlite:///{home / 'results.db'}")
    records = {
        asset: store.latest(asset, run_key)
        for asset in ("chatbot_responses", "extracted_claims", "oracle_verdicts", "judge_scores")
    }
    env = Environment(Settings(home=home))
    redactor: Redactor = env.redactor
    policy = env.policy
    base = env.settings.report_links_base
    payloads = {c: ChatPayload.model_validate(r) for c, r in records["chatbot_responses"].items()}
    contracts = {c: ClaimContract.model_validate(r) for c, r in records["extracted_claims"].items()}
    verdicts = {c: OracleResult.model_validate(r) for c, r in records["oracle_verdicts"].items()}
    scores = {c: CaseScores.model_validate(r) for c, r in records["judge_scores"].items()}

    def build() -> None:
        from eval_pipeline.core.aggregate import judge_record
        from eval_pipeline.pipeline.case_metadata import first_contradiction

        for case, payload in payloads.items():
            link = report_url(base, run_key, case)
            redacted(response_metadata(payload, link, show_pii=False), redactor)
            redacted(claims_metadata(contracts[case], link), redactor)
            redacted(verdict_metadata(verdicts[case], contracts[case], link), redactor)
            outcome = judge_record(scores[case], policy)
            redacted(scores_metadata(outcome, first_contradiction(verdicts[case]), link), redactor)
        keys = {f"{c}|{run_key}": (run_key, c) for c in scores}
        by_key = {k: scores[k[1]] for k in keys.values()}
        case_results(env, keys, by_key, {k: verdicts[k[1]] for k in keys.values()})

    timed(f"building {len(payloads)} cases' metadata and check results", build)
    return len(payloads)


def replay(home: Path, batch: int) -> None:
    """The evaluation's per-case events stored again in a fresh instance, with and without."""
    from dagster import AssetMaterialization, DagsterEventType, DagsterInstance, EventRecordsFilter
    from dagster._core.events import StepMaterializationData
    from dagster._core.events.log import EventLogEntry

    common.use_dagster_home(home)
    with DagsterInstance.get() as source:
        records = source.get_event_records(
            EventRecordsFilter(event_type=DagsterEventType.ASSET_MATERIALIZATION), limit=10**6
        )
        checks = source.get_event_records(
            EventRecordsFilter(event_type=DagsterEventType.ASSET_CHECK_EVALUATION), limit=10**6
        )
    per_case = [r.event_log_entry for r in records if r.partition_key and "|" in r.partition_key]
    print(f"  {len(per_case)} per-case materializations, {len(checks)} check evaluations")

    def stripped(entry: EventLogEntry) -> EventLogEntry:
        event = entry.get_dagster_event()
        data = event.event_specific_data
        bare = AssetMaterialization(
            asset_key=data.materialization.asset_key,
            partition=data.materialization.partition,
            tags=data.materialization.tags,
            metadata={
                k: v
                for k, v in data.materialization.metadata.items()
                if k in {"dagster/code_version", "dagster/data_version"}
            },
        )
        return entry._replace(
            dagster_event=event._replace(event_specific_data=StepMaterializationData(bare))
        )

    with tempfile.TemporaryDirectory(prefix="bench-replay-") as tmp:
        common.use_dagster_home(Path(tmp))
        with DagsterInstance.get() as target:
            storage = target.event_log_storage

            def store(entries: list[EventLogEntry]) -> None:
                for start in range(0, len(entries), batch):
                    storage.store_event_batch(entries[start : start + batch])

            bare = [stripped(e) for e in per_case]
            off = timed("materializations without per-case metadata", lambda: store(bare))
            on = timed("materializations with per-case metadata", lambda: store(per_case))
            checked = timed(
                "case_passed evaluations", lambda: store([r.event_log_entry for r in checks])
            )
    print(f"  stored: metadata +{on - off:.1f}s, checks +{checked:.1f}s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("home", type=Path)
    parser.add_argument("run_key")
    parser.add_argument("--batch", type=int, default=500)
    args = parser.parse_args()
    cases = build_all(args.home, args.run_key)
    replay(args.home, args.batch)
    print(f"partition_metadata_replay: cases={cases}", flush=True)


if __name__ == "__main__":
    main()
