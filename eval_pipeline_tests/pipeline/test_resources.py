"""The narrow resources: what each asset declares, one environment behind them, EnvVar config."""

from pathlib import Path

import pytest
from dagster import EnvVar, ResourceParam, asset, materialize

from eval_pipeline.core.embeddings.encoder import SentenceEmbedder
from eval_pipeline.pipeline.definitions import build_definitions
from eval_pipeline.pipeline.resources import (
    EvalSettings,
    JudgeLLM,
    Results,
    Warehouse,
    narrow_resources,
)
from eval_pipeline.settings import load_settings
from eval_pipeline_tests.pipeline.test_graph import tiny_overrides

IO = {"results_io_manager"}


def test_each_asset_declares_only_what_it_talks_to(tmp_path: Path) -> None:
    defs = build_definitions(tiny_overrides(tmp_path, "honest"))
    uses = {
        name: set(defs.get_assets_def(name).required_resource_keys) - IO
        for name in (
            "golden_cases",
            "chatbot_responses",
            "extracted_claims",
            "oracle_verdicts",
            "judge_scores",
            "eval_report",
        )
    }
    assert uses == {
        "golden_cases": {"settings"},
        "chatbot_responses": {
            "settings",
            "results_store",
            "warehouse",
            "embedder",
            "chatbot",
            "tracer",
        },
        "extracted_claims": {"settings", "results_store", "judge_llm", "tracer"},
        "oracle_verdicts": {"settings", "results_store", "warehouse", "judge_llm", "tracer"},
        "judge_scores": {
            "settings",
            "results_store",
            "warehouse",
            "judge_llm",
            "embedder",
            "tracer",
        },
        "eval_report": {"settings", "results_store"},
    }


def test_the_views_share_the_run_environment(tmp_path: Path) -> None:
    """A nested ConfigurableResource would be a copy with its own connections."""
    seen: dict[str, bool] = {}

    @asset
    def probe(
        settings: EvalSettings,
        warehouse: ResourceParam[Warehouse],
        judge_llm: ResourceParam[JudgeLLM],
        results_store: ResourceParam[Results],
        embedder: ResourceParam[SentenceEmbedder],
    ) -> None:
        env = settings.env
        seen["store"] = results_store.store is env.store
        seen["db"] = warehouse.db is env.db
        seen["judge"] = judge_llm.client is env.judge
        seen["embedder"] = isinstance(embedder, SentenceEmbedder)

    settings = EvalSettings(overrides=tiny_overrides(tmp_path, "honest"))
    assert materialize([probe], resources=narrow_resources(settings)).success
    assert seen == {"store": True, "db": True, "judge": True, "embedder": True}


def test_connection_settings_are_env_vars_when_set(monkeypatch: pytest.MonkeyPatch) -> None:
    """The UI names the variable and never shows a DSN's password."""
    dsn = "postgresql://eval:s3cret@127.0.0.1:5432/test"
    monkeypatch.setenv("EVAL_DATABASE_URL", dsn)
    monkeypatch.delenv("EVAL_LLM_API_KEY", raising=False)
    resource = EvalSettings.from_environment({"concurrency": "3"})
    assert isinstance(resource.database_url, EnvVar)
    assert resource.database_url == "EVAL_DATABASE_URL"
    assert resource.llm_api_key is None
    assert "s3cret" not in repr(resource)
    assert resource.settings.database_url == dsn
    copied = EvalSettings(database_url="EVAL_DATABASE_URL")  # validated copies keep the name
    assert copied.settings.database_url == dsn
    assert resource.settings.concurrency == 3


def test_settings_are_parsed_once_per_process_until_a_variable_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("EVAL_CONCURRENCY", "5")
    first = load_settings(wave_cases="7")
    assert load_settings(wave_cases="7") is first
    assert load_settings(wave_cases="8") is not first
    monkeypatch.setenv("EVAL_CONCURRENCY", "6")
    changed = load_settings(wave_cases="7")
    assert changed is not first
    assert changed.concurrency == 6
