"""The code location: ``dagster dev`` and ``dagster definitions validate`` load ``defs``."""

from __future__ import annotations

import json

from dagster import Definitions, ExecutorDefinition

from eval_pipeline.core.adapters.base import ChatbotAdapter
from eval_pipeline.core.tracing.spans import Tracer
from eval_pipeline.pipeline.case_assets import (
    build_oracle_verdicts,
    chatbot_responses,
    extracted_claims,
    golden_cases,
    judge_scores,
    warehouse_specs,
)
from eval_pipeline.pipeline.case_checks import case_passed, verdicts_current
from eval_pipeline.pipeline.executors import build_executor
from eval_pipeline.pipeline.io_manager import results_io_manager
from eval_pipeline.pipeline.resources import EvalSettings, narrow_resources
from eval_pipeline.pipeline.run_assets import build_eval_run, eval_report
from eval_pipeline.pipeline.sensors import (
    cases_job,
    evaluate_logged_conversations,
    golden_dataset_sync,
    golden_job,
    logged_conversations,
    nightly_evaluation,
    summarize_after_cases,
    summary_job,
    warehouse_refresh,
)
from eval_pipeline.pipeline.tags import enable_event_batching
from eval_pipeline.settings import Settings


def bkg_table_names(settings: Settings) -> list[str]:
    """Table names for the external warehouse assets; an unreadable BKG is reported at run time."""
    try:
        return [t["name"] for t in json.loads(settings.bkg_path.read_text())["tables"]]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def build_definitions(
    overrides: dict[str, str] | None = None,
    executor: ExecutorDefinition | None = None,
    chatbot: ChatbotAdapter | None = None,
    tracer: Tracer | None = None,
) -> Definitions:
    """Every job runs its steps with ``executor``, by default the one ``EVAL_EXECUTOR`` names,
    asks ``chatbot``, by default the one ``EVAL_CHATBOT_*`` describe, and traces to ``tracer``,
    by default one per run as ``EVAL_OTEL_*`` describe."""
    eval_settings = EvalSettings.from_environment(overrides)
    settings = eval_settings.settings
    tables = bkg_table_names(settings)
    return Definitions(
        assets=[
            *warehouse_specs(tables),
            golden_cases,
            chatbot_responses,
            extracted_claims,
            build_oracle_verdicts(tables),
            judge_scores,
            build_eval_run(settings.checks_block_report),
            eval_report,
        ],
        asset_checks=[case_passed, verdicts_current],
        jobs=[golden_job, cases_job, summary_job],
        sensors=[
            nightly_evaluation,
            golden_dataset_sync,
            warehouse_refresh,
            summarize_after_cases,
            logged_conversations,
            evaluate_logged_conversations,
        ],
        resources={
            **narrow_resources(eval_settings),
            **({"chatbot": chatbot} if chatbot is not None else {}),
            **({"tracer": tracer} if tracer is not None else {}),
            "results_io_manager": results_io_manager,
        },
        executor=executor or build_executor(settings.executor),
    )


enable_event_batching()  # any storage, PostgreSQL's too, then gets a step's events at once
defs = build_definitions()
