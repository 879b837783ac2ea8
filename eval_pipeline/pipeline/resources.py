"""The resources the assets use: the environment shared by a run's steps, and the chatbot."""

from collections.abc import Iterator

from dagster import ConfigurableResource, Field, InitResourceContext, resource
from pydantic import PrivateAttr

from eval_pipeline.core.adapters.base import ChatbotAdapter
from eval_pipeline.core.results_store import ResultsStore
from eval_pipeline.core.tracing.spans import Tracer
from eval_pipeline.environment import Environment, build_adapter, build_tracer
from eval_pipeline.settings import load_settings


class EvalEnvironment(ConfigurableResource):  # type: ignore[type-arg]
    """Settings come from ``EVAL_*`` variables and ``.env``; ``overrides`` wins over both.

    Secrets never travel through ``overrides`` (it is run config, visible in the UI).
    """

    overrides: dict[str, str] = {}  # noqa: RUF012 - pydantic copies field defaults

    _env: Environment | None = PrivateAttr(default=None)

    def setup_for_execution(self, context: InitResourceContext) -> None:
        self._env = Environment(load_settings(**self.overrides))

    def teardown_after_execution(self, context: InitResourceContext) -> None:
        if self._env is not None:
            self._env.close()

    @property
    def env(self) -> Environment:
        if self._env is None:
            self._env = Environment(load_settings(**self.overrides))
        return self._env


@resource(
    config_schema={"overrides": Field(dict, default_value={})},
    description="The chatbot under evaluation, as the EVAL_CHATBOT_* settings describe it.",
)
def chatbot_resource(context: InitResourceContext) -> Iterator[ChatbotAdapter]:
    """Built from settings and closed after the run. Assets take it as
    ``ResourceParam[ChatbotAdapter]``, so a runner may install any adapter in its place
    (``runner.ask_ahead.WaveChatbot``)."""
    adapter = build_adapter(load_settings(**context.resource_config["overrides"]))
    try:
        yield adapter
    finally:
        adapter.close()


@resource(
    config_schema={"overrides": Field(dict, default_value={})},
    description="Where the cases' traces go (EVAL_OTEL_*); records nothing without an endpoint.",
)
def tracer_resource(context: InitResourceContext) -> Iterator[Tracer]:
    """Built from settings; when the run ends, what is still unsent gets the bounded flush and
    the export counts go to the results store for the run summary. A runner may install one
    tracer for all the runs of an evaluation instead (``runner.evaluate``)."""
    settings = load_settings(**context.resource_config["overrides"])
    tracer = build_tracer(settings)
    try:
        yield tracer
    finally:
        counts = tracer.close()
        if counts:
            ResultsStore(settings.results_store_url).record_trace_exports(context.run_id, counts)
