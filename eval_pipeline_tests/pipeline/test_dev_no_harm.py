"""``make dev`` does no harm: the nightly sensor starts stopped, and started with no chatbot
listening it skips with the reason instead of recording a run of connection errors."""

from __future__ import annotations

from pathlib import Path

from dagster import DefaultSensorStatus, SensorResult, SkipReason

from eval_pipeline.pipeline.resources import EvalSettings
from eval_pipeline.pipeline.sensors import nightly_evaluation
from eval_pipeline_tests.dagster_helpers import eval_instance
from eval_pipeline_tests.pipeline.test_graph import tiny_overrides
from eval_pipeline_tests.pipeline.test_sensors import CASES, tick
from eval_pipeline_tests.pipeline.test_ui_staleness import free_port


def test_the_nightly_sensor_is_stopped_until_someone_starts_it() -> None:
    assert nightly_evaluation.default_status == DefaultSensorStatus.STOPPED


def test_a_tick_whose_chatbot_does_not_answer_is_skipped_with_the_url(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/chat"  # nothing listens there
    secret = url.replace("http://", "http://bot:s3cret-pass@") + "?api_key=s3cret-key"
    overrides = {**tiny_overrides(tmp_path, "honest"), "chatbot_kind": "sse", "chatbot_url": secret}
    with eval_instance() as instance:
        instance.add_dynamic_partitions("golden_cases", CASES)
        skipped = tick(nightly_evaluation, instance, EvalSettings(overrides=overrides))
        assert isinstance(skipped, SkipReason)
        assert f"the chatbot at {url} did not answer" in (skipped.skip_message or "")
        assert "s3cret" not in (skipped.skip_message or ""), "the reason names no credential"
        assert instance.get_dynamic_partitions("eval_runs") == []
        listening = tick(
            nightly_evaluation,
            instance,
            EvalSettings(overrides=tiny_overrides(tmp_path, "honest")),
        )
        assert isinstance(listening, SensorResult) and listening.run_requests
