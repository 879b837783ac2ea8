"""The resources the assets use: the run's settings, and one narrow resource per thing a step
talks to — the chatbot, the warehouse, the judge LLM, the results store, the embedder and the
trace exporter — so the UI lists, on each asset, exactly what it uses.

The narrow resources are views of the one ``Environment`` the ``settings`` resource builds per
run: a step that uses several still opens one connection pool per database, and the fingerprints
that decide reuse see the very objects the step used.

No ``from __future__ import annotations`` here: Dagster inspects the real type hints.
"""

import os
from collections.abc import Iterator, Mapping
from typing import Any

from dagster import ConfigurableResource, EnvVar, InitResourceContext, resource
from pydantic import Field, PrivateAttr

from eval_pipeline.core.adapters.base import ChatbotAdapter
from eval_pipeline.core.embeddings.encoder import SentenceEmbedder, default_embedder
from eval_pipeline.core.llm.client import JudgeClient
from eval_pipeline.core.results_store import ResultsStore
from eval_pipeline.core.tracing.spans import Tracer
from eval_pipeline.core.warehouse.bkg_runtime import BKGRuntime
from eval_pipeline.core.warehouse.db import Database
from eval_pipeline.environment import Environment, build_tracer
from eval_pipeline.settings import Settings, load_settings

# Settings a deployment usually sets per machine, shown by name in the UI when set (EnvVar).
CONNECTION_FIELDS = (
    "database_url",
    "results_url",
    "chatbot_url",
    "llm_base_url",
    "llm_model",
    "llm_api_key",
    "conversations_url",
    "otel_endpoint",
)


def _variable(field: str) -> str:
    return f"EVAL_{field.upper()}"


def _connection(field: str, value: str | None) -> str | None:
    """A field's value, reading its variable where it still holds the ``EnvVar``'s name: outside
    a run Dagster has not resolved it, and a copy made by validation keeps only the name."""
    return os.environ.get(_variable(field)) if value == _variable(field) else value


class EvalSettings(ConfigurableResource):  # type: ignore[type-arg]
    """The ``EVAL_*`` settings (environment and ``.env``), parsed once per process.

    ``overrides`` wins over both; secrets never travel through it (it is run config, shown in
    the UI). A connection field holds an ``EnvVar`` when its variable is set, so the UI names the
    variable without showing its value; unset, the setting's own default applies.
    """

    overrides: dict[str, str] = {}  # noqa: RUF012 - pydantic copies field defaults
    database_url: str | None = Field(default=None, description="EVAL_DATABASE_URL: the warehouse")
    results_url: str | None = Field(default=None, description="EVAL_RESULTS_URL: results store")
    chatbot_url: str | None = Field(default=None, description="EVAL_CHATBOT_URL")
    llm_base_url: str | None = Field(default=None, description="EVAL_LLM_BASE_URL: judge LLM")
    llm_model: str | None = Field(default=None, description="EVAL_LLM_MODEL")
    llm_api_key: str | None = Field(default=None, description="EVAL_LLM_API_KEY")
    conversations_url: str | None = Field(default=None, description="EVAL_CONVERSATIONS_URL")
    otel_endpoint: str | None = Field(default=None, description="EVAL_OTEL_ENDPOINT: traces")

    _env: Environment | None = PrivateAttr(default=None)

    @classmethod
    def from_environment(cls, overrides: Mapping[str, str] | None = None) -> "EvalSettings":
        """The resource ``dagster dev`` shows: each connection variable that is set, by name."""
        names = {f: _variable(f) for f in CONNECTION_FIELDS}
        set_here = {f: EnvVar(name) for f, name in names.items() if name in os.environ}
        return cls(overrides=dict(overrides or {}), **set_here)

    @property
    def settings(self) -> Settings:
        connections = {
            f: v for f in CONNECTION_FIELDS if (v := _connection(f, getattr(self, f))) is not None
        }
        return load_settings(**{**connections, **self.overrides})

    def setup_for_execution(self, context: InitResourceContext) -> None:
        self._env = Environment(self.settings)

    def teardown_after_execution(self, context: InitResourceContext) -> None:
        if self._env is not None:
            self._env.close()

    @property
    def env(self) -> Environment:
        """The run's inputs, policy and connections; built on first use outside a run (sensors)."""
        if self._env is None:
            self._env = Environment(self.settings)
        return self._env


class Warehouse:
    """The live database the references are recomputed on (read-only), and its BKG functions."""

    def __init__(self, env: Environment) -> None:
        self._env = env

    @property
    def db(self) -> Database:
        return self._env.db

    @property
    def runtime(self) -> BKGRuntime:
        return self._env.runtime

    @property
    def live_catalog(self) -> dict[str, list[str]]:
        return self._env.live_catalog

    def table_fingerprints(self) -> dict[str, str]:
        """The data version of every BKG table, as it is now."""
        return self._env.table_fingerprints()


class JudgeLLM:
    """The OpenAI-compatible judge (``EVAL_LLM_*``); ``client`` is None when none is set."""

    def __init__(self, env: Environment) -> None:
        self.client: JudgeClient | None = env.judge

    def requests(self) -> int:
        """Requests really sent so far (cache hits excluded), to count a step's calls."""
        if self.client is None:
            return 0
        spent = self.client.ledger.total()
        return spent.calls - spent.cached_calls


class Results:
    """Where every record, call count and run summary is kept (``EVAL_RESULTS_URL``)."""

    def __init__(self, env: Environment) -> None:
        self.store: ResultsStore = env.store


def _env(context: InitResourceContext) -> Environment:
    env: Environment = context.resources.settings.env
    return env


@resource(required_resource_keys={"settings"}, description=Warehouse.__doc__)
def warehouse_resource(context: InitResourceContext) -> Warehouse:
    return Warehouse(_env(context))


@resource(required_resource_keys={"settings"}, description=JudgeLLM.__doc__)
def judge_llm_resource(context: InitResourceContext) -> JudgeLLM:
    return JudgeLLM(_env(context))


@resource(required_resource_keys={"settings"}, description=Results.__doc__)
def results_store_resource(context: InitResourceContext) -> Results:
    return Results(_env(context))


@resource(
    description="The sentence encoder of the embedding-scored dimensions, one per process: its "
    "model loads on first use, in its own worker process."
)
def embedder_resource(context: InitResourceContext) -> SentenceEmbedder:
    return default_embedder()


@resource(
    required_resource_keys={"settings"},
    description="The chatbot under evaluation, as the EVAL_CHATBOT_* settings describe it.",
)
def chatbot_resource(context: InitResourceContext) -> ChatbotAdapter:
    """The run environment's adapter, closed with it. Assets take it as
    ``ResourceParam[ChatbotAdapter]``, so a runner may install any adapter in its place
    (``runner.ask_ahead.WaveChatbot``)."""
    return _env(context).adapter


@resource(
    required_resource_keys={"settings"},
    description="Where the cases' traces go (EVAL_OTEL_*); records nothing without an endpoint.",
)
def tracer_resource(context: InitResourceContext) -> Iterator[Tracer]:
    """When the run ends, what is still unsent gets the bounded flush and the export counts go
    to the results store for the run summary. A runner may install one tracer for all the runs
    of an evaluation instead (``runner.evaluate``)."""
    env = _env(context)
    tracer = build_tracer(env.settings, env.redactor)
    try:
        yield tracer
    finally:
        counts = tracer.close()
        if counts:
            env.store.record_trace_exports(context.run_id or "", counts)


def narrow_resources(settings: EvalSettings) -> dict[str, Any]:
    """Every resource the assets, checks and sensors name, all views of ``settings``."""
    return {
        "settings": settings,
        "warehouse": warehouse_resource,
        "judge_llm": judge_llm_resource,
        "results_store": results_store_resource,
        "embedder": embedder_resource,
        "chatbot": chatbot_resource,
        "tracer": tracer_resource,
    }
