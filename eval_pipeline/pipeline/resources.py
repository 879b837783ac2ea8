"""The one resource every asset uses: a thin Dagster wrapper around ``Environment``."""

from dagster import ConfigurableResource, InitResourceContext
from pydantic import PrivateAttr

from eval_pipeline.environment import Environment
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
