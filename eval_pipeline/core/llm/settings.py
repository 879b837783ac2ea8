"""Where the judge model is and how to call it: plain settings, importable without the SDK."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr

SEVEN_DAYS_S = 7 * 24 * 3600.0


class LLMSettings(BaseModel):
    """Where the judge model is and how to call it; ``api_version`` set means Azure OpenAI."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    base_url: str = Field(description="OpenAI-compatible base URL, or the Azure endpoint.")
    api_key: SecretStr
    model: str
    api_version: str | None = Field(default=None, description="Azure api-version.")
    azure_deployment: str | None = None
    structured_output: Literal["response_format", "tool"] = "response_format"
    timeout_s: float = Field(default=60.0, gt=0)
    max_retries: int = Field(default=4, ge=0, le=20)
    backoff_initial_s: float = Field(default=0.5, ge=0)
    backoff_max_s: float = Field(default=8.0, ge=0)
    max_retry_after_s: float = Field(
        default=120.0, ge=0, description="A longer Retry-After gives up instead of waiting."
    )
    concurrency: int = Field(default=4, ge=1, le=256, description="Calls in flight per endpoint.")
    price_input_per_1k: float = Field(default=0.0, ge=0, description="USD per 1k input tokens.")
    price_output_per_1k: float = Field(default=0.0, ge=0, description="USD per 1k output tokens.")
    cache_ttl_s: float = Field(default=SEVEN_DAYS_S, ge=0)
    requests_per_minute: float = Field(
        default=0, ge=0, description="Most request starts per minute on the endpoint; 0: any."
    )
    pacing_dir: Path | None = Field(
        default=None,
        description="Folder whose slot files share the pacing with other processes on the machine.",
    )

    @property
    def is_azure(self) -> bool:
        return self.api_version is not None

    def cost_usd(self, input_tokens: int, output_tokens: int) -> float:
        return (
            input_tokens / 1000 * self.price_input_per_1k
            + output_tokens / 1000 * self.price_output_per_1k
        )
