"""Run one evaluation through Dagster from Python: the CLI, tests and benchmarks use this.

An evaluation run is three kinds of Dagster run, never one per case: the golden cases that changed
(case partitions), then the cases of the run in a few overlapping waves (run × case-range
rectangles), then the run-level summary and report. A run only ever targets one partitioning, so
these cannot be fused.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator, Mapping, Sequence, Set
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, closing, contextmanager, nullcontext
from functools import partial
from typing import Any

from dagster import AssetKey, DagsterInstance

from eval_pipeline.core.adapters.base import ChatbotAdapter
from eval_pipeline.core.conversations import is_logged_key
from eval_pipeline.core.keys import check_key
from eval_pipeline.core.lineage.staleness import table_fingerprints
from eval_pipeline.core.lineage.up_to_date import up_to_date_cases
from eval_pipeline.core.models import GoldenCase, LoggedCase
from eval_pipeline.core.preflight import judge_problems
from eval_pipeline.core.problems import InputError, configured
from eval_pipeline.core.steps import prefetch_schema
from eval_pipeline.core.summary import RunSummary
from eval_pipeline.core.tracing.spans import Tracer
from eval_pipeline.environment import Environment, build_tracer
from eval_pipeline.pipeline.case_assets import PER_CASE_ASSETS
from eval_pipeline.pipeline.definitions import build_definitions
from eval_pipeline.pipeline.partitions import (
    CASES,
    RUNS,
    case_range_tags,
    contiguous_segments,
    covering_segments,
    range_tags,
    run_case_key,
    split_segments,
    with_short_ends,
)
from eval_pipeline.pipeline.sensors import (
    cases_job,
    expired_runs,
    golden_job,
    summary_job,
    table_observation,
)
from eval_pipeline.pipeline.tags import SINGLE_PARTITION_TAG
from eval_pipeline.runner.ask_ahead import AnswersAhead, WaveChatbot, first_questions
from eval_pipeline.runner.attempts import recorded_attempt, stop_if_unreachable
from eval_pipeline.runner.call_limit import CallLimit
from eval_pipeline.runner.distributed import run_job
from eval_pipeline.runner.heap import long_lived_objects_frozen
from eval_pipeline.runner.internals import (
    PreparedRun,
    fixed_partitions,
    instance_config_problem,
    prepare_materialization,
    runs_in_threads,
)
from eval_pipeline.settings import PROJECT_ROOT, Settings, load_settings

RUN_ASSETS = ("eval_run", "eval_report")
WAVES_AT_ONCE = 3  # one asking, one queued behind it, one being evaluated
# Rounds of questions asked before the Dagster instance is opened: the first is in flight while
# Dagster sets up, the second leaves the next wave's run a round of slack to set up in.
ROUNDS_AHEAD = 2
QUIET = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}
# The code location's job for each asset selection ``evaluate`` materializes.
JOB_OF_ASSETS = {
    frozenset(["golden_cases"]): golden_job.name,
    frozenset(PER_CASE_ASSETS): cases_job.name,
    frozenset(RUN_ASSETS): summary_job.name,
}


def dagster_instance(settings: Settings) -> DagsterInstance:
    """The persistent instance ``dagster dev`` also sees, under ``$DAGSTER_HOME``.

    Without DAGSTER_HOME, ``<EVAL_HOME>/dagster`` is used, seeded with the project's dagster.yaml.
    """
    home = os.environ.get("DAGSTER_HOME")
    if not home:
        home_path = settings.home / "dagster"
        with configured("EVAL_HOME", f"cannot create Dagster's home {home_path}"):
            home_path.mkdir(parents=True, exist_ok=True)
            if not (home_path / "dagster.yaml").exists():
                shutil.copy(PROJECT_ROOT / "dagster.yaml", home_path / "dagster.yaml")
        os.environ["DAGSTER_HOME"] = str(home_path)
    with configured(
        "DAGSTER_HOME", f"cannot open the Dagster instance in {os.environ['DAGSTER_HOME']}"
    ):
        return DagsterInstance.get()


def register_partitions(
    instance: DagsterInstance, run_key: str, case_ids: Sequence[str]
) -> list[str]:
    """Add missing case and run keys; returns the case dimension in Dagster's order."""
    known = set(instance.get_dynamic_partitions(CASES.name))
    new = [check_key(c, "case") for c in case_ids if c not in known]
    if new:
        instance.add_dynamic_partitions(CASES.name, new)
    if not instance.has_dynamic_partition(RUNS.name, run_key):
        instance.add_dynamic_partitions(RUNS.name, [check_key(run_key, "run")])
    return list(instance.get_dynamic_partitions(CASES.name))


def prune_runs(instance: DagsterInstance, keep: int) -> list[str]:
    """Remove the oldest run partitions beyond ``keep`` from Dagster (results stay stored)."""
    expired = expired_runs(list(instance.get_dynamic_partitions(RUNS.name)), keep)
    for run_key in expired:
        instance.delete_dynamic_partition(RUNS.name, run_key)
    return expired


def run_assets(
    instance: DagsterInstance,
    selection: Sequence[str],
    overrides: Mapping[str, str],
    *,
    tags: Mapping[str, str] | None = None,
    partition_key: str | None = None,
    chatbot: ChatbotAdapter | None = None,
    tracer: Tracer | None = None,
) -> None:
    """One Dagster run of ``selection`` on the executor ``EVAL_EXECUTOR`` names.

    In process this is ``materialize`` without keeping the run's events and outputs in memory,
    its steps asking ``chatbot`` and tracing to ``tracer`` if given; otherwise the run is the
    code location's job for the selection, which each step's process (a subprocess, a Celery
    worker) rebuilds from ``overrides`` and its environment, chatbot and tracer included.
    """
    executor = load_settings(**overrides).executor
    if executor == "in_process":
        defs = build_definitions(dict(overrides), chatbot=chatbot, tracer=tracer)
        run = prepare_materialization(
            defs, selection, instance, run_config=QUIET, tags=tags, partition_key=partition_key
        )
        run.execute()
        return
    run_tags = dict(tags or {})
    if partition_key is not None:
        run_tags[SINGLE_PARTITION_TAG] = partition_key
    job = JOB_OF_ASSETS[frozenset(selection)]
    run_job(instance, job, {**overrides, "executor": executor}, tags=run_tags, run_config=QUIET)


def asking_first_rounds(
    env: Environment,
    run_key: str,
    cases: Mapping[str, GoldenCase],
    limit: CallLimit,
    answers: AnswersAhead,
) -> AbstractContextManager[int]:
    """In process, the first ``ROUNDS_AHEAD`` rounds of questions go out now, while Dagster sets
    up the runs that will record the answers (see ``runner.ask_ahead``); yields how many. Logged
    conversations are never asked."""
    if env.settings.executor != "in_process":
        return nullcontext(0)
    asked = {c: case for c, case in cases.items() if not isinstance(case, LoggedCase)}
    stage = env.stage_fingerprints()
    stored = env.store.latest_rows("chatbot_responses", run_key, list(asked), with_payload=False)
    questions = first_questions(
        asked,
        stage.chatbot,
        {c: row.input_fingerprint for c, row in stored.items()},
        count=ROUNDS_AHEAD * limit.capacity,
        refresh=env.settings.refresh,
    )
    first = WaveChatbot(env.adapter, limit, priority=-1)  # before every wave
    return answers.asking(questions, first, lambda: stage.tables)


def observe_unseen_tables(instance: DagsterInstance, env: Environment) -> None:
    """A baseline data version for each warehouse table Dagster has never observed.

    Partitions materialized while a table has no observation record no pointer into its history,
    so a later change of the table could never show as their staleness in the UI.
    """
    unseen = [
        t.name
        for t in env.bkg.tables
        if not instance.fetch_observations(AssetKey(["warehouse", t.name]), limit=1).records
    ]
    if unseen:
        current = table_fingerprints(env.db, env.bkg)
        for table in unseen:
            instance.report_runless_asset_event(table_observation(table, current[table]))


def up_to_date(
    instance: DagsterInstance, env: Environment, run_key: str, case_ids: Sequence[str]
) -> set[str]:
    """Cases with every stage's result current in the results store and materialized in Dagster:
    launching them again would only reuse, so ``evaluate`` leaves them out."""
    current = up_to_date_cases(env.store, run_key, case_ids, env.stage_fingerprints())
    if not current:
        return current
    materialized = instance.get_materialized_partitions(AssetKey(PER_CASE_ASSETS[-1]))
    return {c for c in current if run_case_key(run_key, c) in materialized}


def run_waves(
    waves: Sequence[tuple[Sequence[str], int]],
    run_wave: Callable[[int, Sequence[str]], None],
    limit: CallLimit,
    granted: int,
    meanwhile: Callable[[], None] = lambda: None,
) -> None:
    """Case runs in overlapping waves: while one wave's answers are evaluated, the next wave's
    questions already fill the chatbot's slots, so evaluation hides behind the chatbot's latency.

    ``waves`` come in launch order, each with the number of calls its steps will make, and
    ``run_wave`` gets each wave's place in that order. Every wave's steps share ``limit``, served
    to the earliest wave first; ``granted`` is its count of grants before the first wave's calls.
    Each wave is launched once the one before it has a round of calls in flight (or all of its
    calls, if fewer), so no run sets up while a wave's first calls are opened. Once the last
    wave is launched, ``meanwhile`` runs in this thread.
    """
    before = granted
    with ThreadPoolExecutor(WAVES_AT_ONCE, thread_name_prefix="wave") as pool:
        launched = []
        for place, (wave, calls) in enumerate(waves):
            launched.append(pool.submit(run_wave, place, wave))
            limit.wait_for_grant(before + min(calls, limit.capacity) - 1, stop=launched[-1].done)
            before += calls
        meanwhile()
        for future in launched:
            future.result()


def launch_order(
    waves: Sequence[Sequence[str]], asked_ahead: int
) -> list[tuple[Sequence[str], int]]:
    """Each wave with the calls it will make (those asked ahead, from the first, make none), in
    launch order: the first wave that still asks goes first, since its calls must be ready when
    the answers asked ahead are in; the waves before it only record those answers."""
    order: list[tuple[Sequence[str], int]] = []
    for wave in waves:
        covered = min(asked_ahead, len(wave))
        asked_ahead -= covered
        order.append((wave, len(wave) - covered))
    first = next((i for i, (_, calls) in enumerate(order) if calls), 0)
    return order[first : first + 1] + order[:first] + order[first + 1 :]


def preflight(env: Environment, run_key: str, selected: Sequence[str]) -> None:
    """Stop before the first chatbot call when a setting points at something unusable (see
    ``Environment.configuration_problems``, plus Dagster's home) or the judge is misconfigured;
    the judge is probed only when some case will be evaluated, so a no-op re-run calls nothing.
    Otherwise warn when the warehouse role could write."""
    s = env.settings
    problems = env.rubric_problems() + env.configuration_problems(instance_config_problem)
    judge = env.judge
    if judge is not None and not problems:
        current = (
            set()
            if s.refresh
            else up_to_date_cases(env.store, run_key, selected, env.stage_fingerprints())
        )
        if set(selected) - current:
            problems += judge_problems(judge)
    if problems:
        raise InputError(problems)
    env.db.warn_if_writable("EVAL_DATABASE_URL")


def evaluate(
    run_key: str,
    *,
    overrides: Mapping[str, str] | None = None,
    case_ids: Sequence[str] | None = None,
    instance: DagsterInstance | None = None,
) -> RunSummary:
    """Materialize the whole graph for ``run_key`` and return the run summary.

    Cases already up to date (see ``up_to_date``) are not launched again unless ``refresh`` is
    set; the summary is always rebuilt, so it counts them as reused with no calls.

    Cases whose verdicts came out stale (a table they read changed after the bot answered) are
    re-queued once: asked again and re-verified before the run-level assets.

    In process, the first rounds of questions are asked before the Dagster instance is opened
    (``asking_first_rounds``); the case runs holding them record the answers.
    """
    check_key(run_key, "run")
    overrides = dict(overrides or {})
    settings = load_settings(**overrides)
    with long_lived_objects_frozen() as freeze_setup, closing(Environment(settings)) as env:
        selected = list(case_ids) if case_ids else list(env.cases)
        cases = env.cases_for(selected)
        unknown = [c for c in selected if c not in cases]
        if unknown:
            where = "the conversation source" if is_logged_key(unknown[0]) else "the golden set"
            raise ValueError(
                f"unknown case id(s) {unknown} in {where} ({env.settings.golden_path})"
            )
        preflight(env, run_key, selected)
        with recorded_attempt(env, run_key) as attempt:
            limit = CallLimit(env.settings.concurrency)
            answers = AnswersAhead()
            in_process = env.settings.executor == "in_process"
            # in process, one tracer for every run of the evaluation: one flush, in the summary,
            # and the spans sent from a child process (bench/trace_cpu.py)
            tracer = (
                build_tracer(env.settings, env.redactor, own_process=True) if in_process else None
            )
            with (
                closing_tracer(tracer),
                asking_first_rounds(
                    env, run_key, {c: cases[c] for c in selected}, limit, answers
                ) as asked_ahead,
            ):
                instance = instance or dagster_instance(env.settings)
                ordered = register_partitions(instance, run_key, list(cases))
                observe_unseen_tables(instance, env)
                with (
                    fixed_partitions(instance),
                    runs_in_threads(instance) if in_process else nullcontext(),
                ):
                    freeze_setup()  # the instance, definitions and cases live until the end
                    materialize_graph(
                        instance,
                        env,
                        cases,
                        overrides,
                        run_key,
                        ordered,
                        selected,
                        limit=limit,
                        asked_ahead=asked_ahead,
                        chatbot=partial(WaveChatbot, env.adapter, limit, answers=answers)
                        if in_process
                        else None,
                        tracer=tracer,
                        before_summary=partial(stop_if_unreachable, env, run_key, attempt),
                    )
        prune_runs(instance, env.settings.retain_runs)
        summary = env.store.run_summary(run_key)
        if summary is None:  # the summary run succeeded: it stored one
            raise RuntimeError(f"run {run_key!r}: no summary in the results store")
        return summary


def materialize_graph(
    instance: DagsterInstance,
    env: Environment,
    cases: Mapping[str, GoldenCase],
    overrides: Mapping[str, str],
    run_key: str,
    ordered: Sequence[str],
    selected: Sequence[str],
    *,
    limit: CallLimit,
    asked_ahead: int,
    chatbot: Callable[[float], ChatbotAdapter] | None,
    tracer: Tracer | None = None,
    before_summary: Callable[[], None] = lambda: None,
) -> None:
    """The Dagster runs of ``evaluate``: changed golden cases, the cases not up to date in
    overlapping waves (stale ones once more), then the run-level assets, unless
    ``before_summary`` raises.

    In process, a wave's steps ask ``chatbot(priority)`` (waves launched earlier get a lower
    one), all under ``limit``; ``asked_ahead`` calls were made (or are waiting) before the
    first wave, each taking one of its slots.
    """

    def run(selection: Sequence[str], extra: Mapping[str, str], **kwargs: Any) -> None:
        run_assets(instance, selection, {**overrides, **extra}, tracer=tracer, **kwargs)

    position = {key: i for i, key in enumerate(ordered)}

    def run_cases(
        segments: Sequence[tuple[str, str]],
        extra: Mapping[str, str],
        golden: Set[str] = frozenset(),
        priority: float = 0,
    ) -> None:
        """Each segment's case run, after a run of the cases of ``golden`` it holds."""
        for first, last in segments:
            keys = ordered[position[first] : position[last] + 1]
            for g_first, g_last in contiguous_segments(keys, golden.intersection(keys)):
                run(["golden_cases"], {}, tags=range_tags(g_first, g_last))
            run(
                PER_CASE_ASSETS,
                extra,
                tags=case_range_tags(run_key, first, last),
                chatbot=chatbot(priority) if chatbot else None,
            )

    stored = env.store.case_records("golden_cases", selected)
    changed = {c for c in selected if stored.get(c) != cases[c].model_dump(mode="json")}
    current = set() if env.settings.refresh else up_to_date(instance, env, run_key, selected)
    segments = covering_segments(ordered, selected, set(selected) - current)
    if segments and chatbot:  # in process: the steps encode in this process
        prefetch_schema(env.bkg)  # the encoder loads on another core while Dagster sets up
    size = env.settings.cases_per_wave(len(selected) - len(current))
    waves = with_short_ends(split_segments(ordered, segments, size), env.settings.concurrency)
    # a wave's changed golden cases run just before it, so no run sets up more than its own
    # wave's; changed cases outside every wave run now
    for first, last in contiguous_segments(ordered, changed - {k for w in waves for k in w}):
        run(["golden_cases"], {}, tags=range_tags(first, last))
    # the summary's run is created while the last wave is asked, not after its evaluation
    prepared: list[PreparedRun] = []

    def prepare_summary() -> None:
        defs = build_definitions(dict(overrides), tracer=tracer)
        summary = prepare_materialization(
            defs, RUN_ASSETS, instance, run_config=QUIET, partition_key=run_key
        )
        prepared.append(summary)

    try:
        if chatbot and len(waves) > 1:
            run_waves(
                launch_order(waves, asked_ahead),
                lambda place, w: run_cases([(w[0], w[-1])], {}, changed, priority=place),
                limit,
                asked_ahead,
                meanwhile=prepare_summary,
            )
        else:  # steps in other processes cannot share the chatbot's limit: one at a time
            run_cases(segments, {}, changed)
        verdicts = env.store.latest("oracle_verdicts", run_key, selected)
        stale = [c for c in selected if verdicts.get(c, {}).get("stale_tables")]
        if stale:
            run_cases(contiguous_segments(ordered, stale), {"refresh": "true"})
        before_summary()
        if prepared:
            prepared.pop().execute()
        else:
            run(RUN_ASSETS, {}, partition_key=run_key)
    finally:
        for unused in prepared:  # a wave failed: the summary never starts
            unused.discard()


@contextmanager
def closing_tracer(tracer: Tracer | None) -> Iterator[None]:
    """Close the evaluation's tracer however it ends; its spans were counted by the summary's
    flush, so what is left here (an evaluation that failed before its summary) is dropped."""
    try:
        yield
    finally:
        if tracer is not None:
            tracer.close()
