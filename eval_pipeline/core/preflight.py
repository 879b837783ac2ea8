"""Checks made before the first chatbot call.

A wrong judge key or an unreachable warehouse would otherwise turn every case into an error after
the chatbot was asked; found first, it stops the run with one line naming the variable to fix.
"""

from __future__ import annotations

from eval_pipeline.core.llm.client import JudgeClient, JudgeUnavailableError
from eval_pipeline.core.llm.settings import LLMSettings
from eval_pipeline.core.problems import Problem


def judge_variable(status: int | None, settings: LLMSettings) -> str:
    """The setting most likely wrong when the judge answers the probe with ``status``."""
    if status in (401, 403):
        return "EVAL_LLM_API_KEY"
    if status == 404:
        return "EVAL_LLM_AZURE_DEPLOYMENT" if settings.is_azure else "EVAL_LLM_MODEL"
    if status is not None and 400 <= status < 500:
        return "EVAL_LLM_MODEL"
    return "EVAL_LLM_BASE_URL"


def judge_problems(judge: JudgeClient) -> list[Problem]:
    """One probe request to the judge endpoint; a refusal is a problem naming the variable."""
    try:
        judge.probe()
    except JudgeUnavailableError as exc:
        settings = judge.settings
        where = f"the judge at {settings.base_url} (model {settings.model})"
        return [
            Problem("settings", judge_variable(exc.status, settings), f"{where}: {exc}"),
        ]
    return []


def chatbot_unreachable(url: str, timeout_s: float = 5.0) -> str | None:
    """Why nothing answers at the chatbot's URL (refused, timed out), or None when something does.

    Any HTTP reply counts as answering, an error status included: the probe asks no question, so
    it costs the chatbot nothing and never needs its credentials. The reason names the URL without
    its user info or query, which may hold a key.
    """
    import requests

    from eval_pipeline.core.tracing.config import shown_url

    try:
        requests.get(url, timeout=timeout_s, allow_redirects=False).close()
    except requests.RequestException as exc:
        return f"the chatbot at {shown_url(url)} did not answer: {type(exc).__name__}"
    return None
