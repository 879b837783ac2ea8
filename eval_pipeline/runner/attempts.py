"""An evaluation of a run key as one recorded attempt that cannot destroy the run it re-runs.

Three guards, all before or instead of writing a summary: a run key evaluated against one chatbot
is not silently re-run against another (``--refresh`` or a new key says so); the key is locked
while the attempt runs; and an attempt whose every chatbot call failed to connect stops without a
summary and puts the run key's per-case records back as they were, so its summary, report,
history and comparison baseline stay those of the last good attempt.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from eval_pipeline.configuration import chatbot_target
from eval_pipeline.core.attempts import Attempt, chatbot_id, failed_to_connect
from eval_pipeline.core.problems import SETTINGS, InputError, Problem, first_line
from eval_pipeline.core.results_store import RUN_WIDE, ResultsStore
from eval_pipeline.environment import Environment
from eval_pipeline.pipeline.case_assets import PER_CASE_ASSETS
from eval_pipeline.runner.locks import run_key_lock


class ChatbotUnreachable(InputError):
    """Every chatbot call of an attempt failed to connect."""


def target_change(env: Environment, run_key: str) -> Problem | None:
    """The run key's last completed attempt asked another chatbot, and ``refresh`` is off."""
    if env.settings.refresh:
        return None
    last = env.ledger.last_completed(run_key)
    variable, shown, identity = chatbot_target(env.settings)
    if last is None or last.chatbot_id == chatbot_id(identity):
        return None
    if last.chatbot.split(" ", 1)[0] != shown.split(" ", 1)[0]:
        variable = "EVAL_CHATBOT_KIND"
    return Problem(
        SETTINGS,
        variable,
        f"run key {run_key!r} was evaluated against {last.chatbot}, not {shown}: pass --refresh "
        "to ask all its cases again against this chatbot, or use another run key",
    )


def calls_failed_to_connect(store: ResultsStore, run_key: str, after_id: int) -> int:
    """How many chatbot calls the attempt made when every one failed to connect, else 0 (also
    when it made none). Reads the store, whichever executor made the calls; stops at the first
    call that got through."""
    failed = 0
    for _, payload, reused in store.rows_after("chatbot_responses", run_key, after_id):
        if reused or not payload.get("question"):  # reused, or a removed case: not asked
            continue
        if not failed_to_connect(payload.get("errors") or []):
            return 0
        failed += 1
    return failed


def stop_if_unreachable(env: Environment, run_key: str, attempt: Attempt) -> None:
    """Before the summary: when no call of the attempt reached the chatbot, restore the run
    key's records and stop with one line naming the chatbot (without credentials)."""
    failed = calls_failed_to_connect(env.store, run_key, attempt.records_before)
    if not failed:
        return
    env.store.restore(run_key, PER_CASE_ASSETS, attempt.records_before, f"restored-{attempt.id}")
    variable, shown, _ = chatbot_target(env.settings)
    kept = (
        "its previous summary and report are unchanged"
        if env.store.run_summary(run_key) is not None
        else "no summary was written"
    )
    raise ChatbotUnreachable(
        [
            Problem(
                SETTINGS,
                variable,
                f"chatbot unreachable at {shown.split(' ', 1)[1]}: all {failed} call(s) failed "
                f"to connect; run {run_key!r} stopped, {kept}",
            )
        ]
    )


@contextmanager
def recorded_attempt(env: Environment, run_key: str) -> Iterator[Attempt]:
    """The block as one attempt of ``run_key``, under its lock: refused when another chatbot
    evaluated the key (without ``refresh``), recorded as completed (with the summary it wrote),
    unreachable or stopped."""
    with run_key_lock(env.ledger, run_key):
        change = target_change(env, run_key)
        if change is not None:
            raise InputError([change])
        _, shown, identity = chatbot_target(env.settings)
        attempt = env.ledger.start(run_key, shown, identity, env.store.last_id())
        try:
            yield attempt
        except ChatbotUnreachable as exc:
            message = "; ".join(p.message for p in exc.problems)
            env.ledger.finish(attempt, "unreachable", message=message)
            raise
        except BaseException as exc:
            env.ledger.finish(attempt, "stopped", message=first_line(exc))
            raise
        rows = env.store.latest_rows("eval_run", run_key, [RUN_WIDE], with_payload=False)
        summary = rows.get(RUN_WIDE)
        env.ledger.finish(attempt, "completed", summary_id=summary.id if summary else None)
