"""What makes the graph run by itself: a nightly run, golden-set sync, warehouse-refresh reruns,
and the evaluation of newly logged production conversations.

Dagster schedules cannot add dynamic partitions (dagster issue 14921), so the nightly run is a
sensor that follows a cron expression and returns the new run partition together with its run
request in one atomic ``SensorResult``. A run targets one partitioning, so the run-level assets
(``eval_run``, ``eval_report``) are requested by a run-status sensor once a case batch succeeds.
"""

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from croniter import croniter
from dagster import (
    AddDynamicPartitionsRequest,
    AssetCheckEvaluation,
    AssetKey,
    AssetObservation,
    AssetSelection,
    DagsterRunStatus,
    DefaultSensorStatus,
    DeleteDynamicPartitionsRequest,
    MetadataValue,
    ResourceParam,
    RunRequest,
    RunStatusSensorContext,
    SensorEvaluationContext,
    SensorResult,
    SkipReason,
    define_asset_job,
    run_status_sensor,
    sensor,
)

from eval_pipeline.core.conversations import (
    Cursor,
    case_id_of,
    conversation_budget,
    expired_conversations,
    is_logged_key,
)
from eval_pipeline.core.hashing import content_hash
from eval_pipeline.core.lineage.staleness import case_tables
from eval_pipeline.core.models import ChatPayload
from eval_pipeline.core.preflight import chatbot_unreachable
from eval_pipeline.core.problems import InputError
from eval_pipeline.core.results_store import ResultsStore
from eval_pipeline.environment import Environment
from eval_pipeline.pipeline.case_assets import PER_CASE_ASSETS
from eval_pipeline.pipeline.case_checks import CURRENCY_CHECK, REPORTED_CHECKS, currency_results
from eval_pipeline.pipeline.partition_events import stored_check_evaluations
from eval_pipeline.pipeline.partitions import (
    CASES,
    RUN_CASE,
    RUNS,
    case_range_tags,
    check_key,
    contiguous_segments,
    range_tags,
)
from eval_pipeline.pipeline.resources import (
    EvalSettings,
    Results,
    Warehouse,
)
from eval_pipeline.pipeline.tags import DATA_VERSION_TAG, RANGE_END_TAG, RANGE_START_TAG

STAGE_TAG = "eval_pipeline/stage"
RUN_KEY_TAG = "eval_pipeline/run_key"
REFRESH_CONFIG = {"resources": {"settings": {"config": {"overrides": {"refresh": "true"}}}}}

golden_job = define_asset_job(
    "golden_sync", selection=AssetSelection.assets("golden_cases"), partitions_def=CASES
)
cases_job = define_asset_job(
    "evaluate_cases",
    selection=AssetSelection.assets(*PER_CASE_ASSETS) - REPORTED_CHECKS,
    partitions_def=RUN_CASE,
)
summary_job = define_asset_job(
    "summarize_run",
    selection=AssetSelection.assets("eval_run", "eval_report"),
    partitions_def=RUNS,
)


def case_batch_requests(
    run_key: str, ordered_cases: Sequence[str], wanted: Sequence[str], *, refresh: bool, reason: str
) -> list[RunRequest]:
    """One run per contiguous range of cases (a rectangle), all per-case assets in each."""
    requests = []
    for first, last in contiguous_segments(ordered_cases, wanted):
        requests.append(
            RunRequest(
                run_key=f"{run_key}:{first}:{last}:{reason}",
                run_config=REFRESH_CONFIG if refresh else {},
                tags={
                    **case_range_tags(run_key, first, last),
                    STAGE_TAG: "cases",
                    RUN_KEY_TAG: run_key,
                },
            )
        )
    return requests


def latest_tick(cron: str, timezone: str, now: datetime) -> datetime:
    """The last tick of ``cron`` in ``timezone`` at or before ``now``."""
    local = (now + timedelta(microseconds=1)).astimezone(ZoneInfo(timezone))
    tick: datetime = croniter(cron, local).get_prev(datetime)
    return tick


@sensor(job=cases_job, minimum_interval_seconds=60, default_status=DefaultSensorStatus.STOPPED)
def nightly_evaluation(
    context: SensorEvaluationContext, settings: EvalSettings
) -> SensorResult | SkipReason:
    """At each tick of ``EVAL_NIGHTLY_CRON``: a new run partition and one run over all cases.

    Stopped until someone starts it in the UI, so ``dagster dev`` evaluates nothing by itself;
    a tick whose chatbot does not answer is skipped with the reason (and tried again at the next
    evaluation of the sensor), so an unreachable bot never becomes a run of errors.
    """
    s = settings.settings
    tick = latest_tick(s.nightly_cron, s.nightly_timezone, datetime.now(UTC))
    if context.cursor and float(context.cursor) >= tick.timestamp():
        return SkipReason(f"no new tick since {datetime.fromtimestamp(float(context.cursor), UTC)}")
    if s.chatbot_kind != "callable":
        unreachable = chatbot_unreachable(s.chatbot_url)
        if unreachable:
            context.log.warning(
                f"nightly run of the {tick:%Y-%m-%d %H:%M} tick not started: {unreachable}"
            )
            return SkipReason(f"{unreachable}; the nightly run starts once it answers")
    run_key = check_key(f"{tick.astimezone(UTC):%Y-%m-%dT%H%M%SZ}-nightly", "run")
    cases = [c for c in context.instance.get_dynamic_partitions(CASES.name) if not is_logged_key(c)]
    if not cases:
        return SkipReason("no golden case partitions yet; the golden_dataset_sync sensor adds them")
    runs = list(context.instance.get_dynamic_partitions(RUNS.name))
    expired = expired_runs([*runs, run_key], s.retain_runs)
    partition_requests: list[AddDynamicPartitionsRequest | DeleteDynamicPartitionsRequest] = [
        AddDynamicPartitionsRequest(RUNS.name, [run_key])
    ]
    if expired:
        partition_requests.append(DeleteDynamicPartitionsRequest(RUNS.name, expired))
    return SensorResult(
        run_requests=case_batch_requests(run_key, cases, cases, refresh=False, reason="nightly"),
        dynamic_partitions_requests=partition_requests,
        cursor=str(tick.timestamp()),
    )


def conversation_requests(
    run_key: str, ordered: Sequence[str], keys: Sequence[str], cursor: str
) -> list[RunRequest]:
    """The golden_cases runs of a conversation batch, one per contiguous range of its keys (a
    conversation that went on is already in the case dimension), each tagged with the run key
    that ``evaluate_logged_conversations`` evaluates it under."""
    return [
        RunRequest(
            run_key=f"conversations:{run_key}:{first}:{last}:{cursor}",
            tags={**range_tags(first, last), STAGE_TAG: "conversations", RUN_KEY_TAG: run_key},
        )
        for first, last in contiguous_segments(ordered, keys)
    ]


@sensor(job=golden_job, minimum_interval_seconds=60, default_status=DefaultSensorStatus.RUNNING)
def logged_conversations(
    context: SensorEvaluationContext, settings: EvalSettings
) -> SensorResult | SkipReason:
    """Conversations whose latest message is newer than the cursor, at most
    ``EVAL_CONVERSATION_BATCH`` per tick: their case keys and a ``<time>-conversations`` run key
    are added and their cases read; the run-status sensor below evaluates them, never asking the
    bot. The oldest conversation keys and run keys beyond the retention limits leave Dagster."""
    env = settings.env
    s = env.settings
    if s.conversation_source is None:
        return SkipReason("no conversation source: EVAL_CONVERSATIONS_URL is not set")
    cursor = Cursor.from_json(context.cursor)
    found = env.conversations.newer_than(cursor, s.conversation_batch)
    if not found:
        return SkipReason(f"no conversation newer than {cursor.at if cursor else 'the start'}")
    next_cursor = Cursor(at=found[-1][1], conversation_id=found[-1][0]).to_json()
    cases = env.logged_cases([case_id_of(cid) for cid, _ in found])
    keys = [check_key(k, "case") for k in (case_id_of(cid) for cid, _ in found) if k in cases]
    if not keys:
        return SensorResult(cursor=next_cursor)
    run_key = check_key(f"{datetime.now(UTC):%Y-%m-%dT%H%M%SZ}-conversations", "run")
    known = list(context.instance.get_dynamic_partitions(CASES.name))
    added = [k for k in keys if k not in set(known)]
    ordered = [*known, *added]
    golden = sum(not is_logged_key(k) for k in ordered)
    keep = conversation_budget(s.retain_conversations, s.retain_runs, golden)
    expired = [k for k in expired_conversations(ordered, keep) if k not in set(keys)]
    runs = list(context.instance.get_dynamic_partitions(RUNS.name))
    partition_requests: list[AddDynamicPartitionsRequest | DeleteDynamicPartitionsRequest] = [
        AddDynamicPartitionsRequest(RUNS.name, [run_key])
    ]
    if added:
        partition_requests.append(AddDynamicPartitionsRequest(CASES.name, added))
    if expired:
        partition_requests.append(DeleteDynamicPartitionsRequest(CASES.name, expired))
    if old_runs := expired_runs([*runs, run_key], s.retain_runs):
        partition_requests.append(DeleteDynamicPartitionsRequest(RUNS.name, old_runs))
    kept = [k for k in ordered if k not in set(expired)]
    return SensorResult(
        run_requests=conversation_requests(run_key, kept, keys, next_cursor),
        dynamic_partitions_requests=partition_requests,
        cursor=next_cursor,
    )


def _after_success(monitored: Any, request: Any) -> Any:
    """The decorator of a sensor, on from the start, that may request a run of ``request`` each
    time a run of ``monitored`` succeeds."""
    return run_status_sensor(
        run_status=DagsterRunStatus.SUCCESS,
        monitored_jobs=[monitored],
        request_job=request,
        default_status=DefaultSensorStatus.RUNNING,
    )


@_after_success(golden_job, cases_job)
def evaluate_logged_conversations(context: RunStatusSensorContext) -> RunRequest | SkipReason:
    """Once a conversation batch's cases are read, evaluate that range of cases under its run
    key; ``summarize_after_cases`` then refreshes the run's summary and report."""
    tags = context.dagster_run.tags
    if tags.get(STAGE_TAG) != "conversations":
        return SkipReason("not a conversation batch")
    run_key = tags[RUN_KEY_TAG]
    first, last = tags[RANGE_START_TAG], tags[RANGE_END_TAG]
    return RunRequest(
        run_key=f"conversation-cases:{context.dagster_run.run_id}",
        tags={**case_range_tags(run_key, first, last), STAGE_TAG: "cases", RUN_KEY_TAG: run_key},
    )


def expired_runs(runs: Sequence[str], keep: int) -> list[str]:
    """The oldest run partitions beyond ``keep``; their results stay in the results store.

    Keeping the run dimension bounded keeps every asset well under the ~100k partitions the UI
    handles comfortably (runs × cases).
    """
    return list(runs[: max(0, len(runs) - keep)])


@sensor(job=golden_job, minimum_interval_seconds=30, default_status=DefaultSensorStatus.RUNNING)
def golden_dataset_sync(
    context: SensorEvaluationContext, settings: EvalSettings, results_store: ResourceParam[Results]
) -> SensorResult | SkipReason:
    """Mirror the golden dataset in the case partitions and rematerialize changed cases.

    A case removed from the dataset loses its partition, so new runs skip it; its results stay
    in the results store. Adding a case never back-fills old runs: only later runs include it.
    """
    env = Environment(settings.settings)
    try:
        cases = env.cases
    except InputError as exc:
        return SkipReason(f"golden dataset is invalid, nothing synced:\n{exc}")
    known = [c for c in context.instance.get_dynamic_partitions(CASES.name) if not is_logged_key(c)]
    added = [check_key(c, "case") for c in cases if c not in set(known)]
    removed = [c for c in known if c not in cases]
    ordered = [c for c in known if c in cases] + added
    stored = results_store.store.case_records("golden_cases", list(cases))
    changed = [c for c in ordered if stored.get(c) != cases[c].model_dump(mode="json")]
    if not (added or removed or changed):
        return SkipReason("golden dataset unchanged")
    requests = [
        RunRequest(
            run_key=f"golden:{first}:{last}:{context.cursor or ''}:{len(ordered)}",
            tags=range_tags(first, last),
        )
        for first, last in contiguous_segments(ordered, changed)
    ]
    partition_requests: list[AddDynamicPartitionsRequest | DeleteDynamicPartitionsRequest] = []
    if added:
        partition_requests.append(AddDynamicPartitionsRequest(CASES.name, added))
    if removed:
        partition_requests.append(DeleteDynamicPartitionsRequest(CASES.name, removed))
    return SensorResult(
        run_requests=requests,
        dynamic_partitions_requests=partition_requests,
        cursor=datetime.now(UTC).isoformat(),
    )


def table_readers(
    env: Environment, store: ResultsStore, run_key: str, tables: set[str]
) -> dict[str, list[str]]:
    """For each table, the cases of a run whose references or whose chatbot SQL read it."""
    readers: dict[str, list[str]] = {table: [] for table in sorted(tables)}
    for case_id, record in store.latest("chatbot_responses", run_key).items():
        case = env.cases.get(case_id)
        if case is None:
            continue
        sql = ChatPayload.model_validate(record).sql_statements
        for table in tables.intersection(case_tables(case, env.bkg, sql)):
            readers[table].append(case_id)
    return readers


def table_observation(
    table: str,
    fingerprint: str,
    case: str | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> AssetObservation:
    """The table's data version, for the whole table or for the case partition that reads it."""
    return AssetObservation(
        asset_key=AssetKey(["warehouse", table]),
        partition=case,
        metadata={"fingerprint": fingerprint, **(metadata or {})},
        tags={DATA_VERSION_TAG: fingerprint},
    )


def change_metadata(run_key: str, cases: Sequence[str]) -> dict[str, Any]:
    """What a table change invalidated, on its observation: the cases whose verdicts read it."""
    listed = "\n".join(f"- `{case}` (oracle_verdicts `{case}|{run_key}`)" for case in cases[:50])
    more = f"\n- … {len(cases) - 50} more" if len(cases) > 50 else ""
    return {
        "run": run_key,
        "cases_invalidated": len(cases),
        "invalidated_verdicts": MetadataValue.md(
            (listed + more) or "no case of the run reads this table"
        ),
    }


@sensor(job=cases_job, minimum_interval_seconds=60, default_status=DefaultSensorStatus.RUNNING)
def warehouse_refresh(
    context: SensorEvaluationContext,
    settings: EvalSettings,
    warehouse: ResourceParam[Warehouse],
    results_store: ResourceParam[Results],
) -> SensorResult | SkipReason:
    """Fingerprint every BKG table; when one changed, re-ask exactly the dependent cases.

    Each change is observed twice on the table's external asset: for the whole table, and for the
    case partition of every case of the latest run that reads it. Dagster's staleness reads only
    the latter for an external dependency, so exactly those cases' ``oracle_verdicts`` partitions
    show "warehouse/<table> has a new data version" until their rerun. The whole-table observation
    (every table on the first tick; ``evaluate()`` records one for a table never observed)
    gives each later materialization a pointer into the table's history, and lists the cases
    whose verdicts the change invalidated. Those cases' ``verdicts_current`` checks fail, naming
    the tables, so the check's partition view shows them all at once, and the tick's log names
    the tables and the cases it re-asked.
    """
    env = settings.env
    store = results_store.store
    current = warehouse.table_fingerprints()
    previous: dict[str, str] = json.loads(context.cursor) if context.cursor else {}
    changed = {t for t, fp in current.items() if previous and previous.get(t) != fp}
    runs = list(context.instance.get_dynamic_partitions(RUNS.name))
    requests: list[RunRequest] = []
    checks: list[AssetCheckEvaluation] = []
    if not (changed and runs):
        observations = [
            table_observation(table, current[table])
            for table in sorted(changed if previous else current)
        ]
    else:
        run_key = runs[-1]
        ordered = list(context.instance.get_dynamic_partitions(CASES.name))
        known = set(ordered)
        readers = {
            table: [c for c in cases if c in known]
            for table, cases in table_readers(env, store, run_key, changed).items()
        }
        # the whole table's last: the table's page shows its latest observation, this one
        observations = [
            table_observation(table, current[table], case)
            for table, cases in readers.items()
            for case in cases
        ]
        observations += [
            table_observation(table, current[table], metadata=change_metadata(run_key, cases))
            for table, cases in readers.items()
        ]
        wanted = {case for cases in readers.values() for case in cases}
        context.log.info(
            f"warehouse tables changed: {', '.join(sorted(changed))}; re-asking "
            f"{len(wanted)} case(s) of run {run_key}: {', '.join(sorted(wanted)) or 'none'}"
        )
        checks = stored_check_evaluations(
            context.instance,
            CURRENCY_CHECK.asset_key,
            CURRENCY_CHECK.name,
            currency_results(env, store, run_key, sorted(wanted), current),
        )
        requests = case_batch_requests(
            run_key,
            ordered,
            sorted(wanted),
            refresh=True,
            reason=f"refresh-{content_hash(current)[:12]}",
        )
    return SensorResult(
        run_requests=requests,
        asset_events=[*observations, *checks],
        cursor=json.dumps(current, sort_keys=True),
    )


@_after_success(cases_job, summary_job)
def summarize_after_cases(context: RunStatusSensorContext) -> RunRequest | SkipReason:
    """When a case batch succeeds, refresh its run's summary and report."""
    tags = context.dagster_run.tags
    if tags.get(STAGE_TAG) != "cases":
        return SkipReason("not a case batch")
    run_key = tags[RUN_KEY_TAG]
    return RunRequest(run_key=f"summary:{context.dagster_run.run_id}", partition_key=run_key)
