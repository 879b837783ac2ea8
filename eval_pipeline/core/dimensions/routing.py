"""Intent routing and the structural golden test, as dimensions of their own.

``routing`` is the seed's regression test of the orchestrator: the bot must route each golden
question to its expected intent (and call the expected tools); it scores the exact match, so a
misroute is visible on its own axis and can gate a release. ``answered`` is the seed's structural
test — the call completed without an exception and returned a non-empty answer — kept apart from
every quality dimension (it carries no weight in the overall, only its gate).
"""

from __future__ import annotations

from eval_pipeline.core.models import ChatPayload, DimensionResult, DimensionState, GoldenCase


def routing_dimension(case: GoldenCase, payload: ChatPayload) -> DimensionResult:
    """1 when the routed intent is the expected one and every expected tool was called, else 0;
    ``skipped`` when the case expects neither, ``error`` when the bot reported no intent."""
    called = [c.name for c in payload.tool_calls]
    details = {
        "expected_intent": case.expected_intent,
        "intent": payload.intent,
        "expected_tools": list(case.expected_tools),
        "tools": called,
    }

    def result(state: DimensionState, reason: str, score: float | None = None) -> DimensionResult:
        return DimensionResult(
            name="routing",
            state=state,
            score=score,
            method="exact_match",
            reason=reason,
            details=details,
        )

    if not case.expected_intent and not case.expected_tools:
        return result("skipped", "the case expects no intent or tool")
    if payload.status == "error":
        return result("error", "no complete answer: the route is unknown")
    problems = []
    if case.expected_intent:
        if payload.intent is None:
            return result("error", "the chatbot reported no intent (EVAL_CHATBOT_INTENT_PATH)")
        if payload.intent != case.expected_intent:
            problems.append(f"routed to {payload.intent}, expected {case.expected_intent}")
    missing = [t for t in case.expected_tools if t not in called]
    if missing:
        problems.append(f"did not call {', '.join(missing)}")
    if problems:
        return result("scored", "; ".join(problems), 0.0)
    parts = [f"routed to {payload.intent}"] if case.expected_intent else []
    parts += [f"called {', '.join(case.expected_tools)}"] if case.expected_tools else []
    return result("scored", " and ".join(parts), 1.0)


def answered_dimension(payload: ChatPayload) -> DimensionResult:
    """The call ended without an exception and with a non-empty answer."""
    if payload.status == "error":
        score, reason = 0.0, f"the call failed: {'; '.join(payload.errors) or 'no answer'}"
    elif not payload.answer.strip():
        score, reason = 0.0, "the answer is empty"
    else:
        score, reason = 1.0, "a complete, non-empty answer"
    return DimensionResult(
        name="answered", state="scored", score=score, method="structural", reason=reason
    )
