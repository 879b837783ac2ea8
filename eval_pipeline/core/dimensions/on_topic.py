"""The ``on_topic`` dimension without an LLM: does the answer address the question?

Score = a clipped linear ramp of the cosine between question and answer embeddings
(all-MiniLM-L6-v2, normalised): cosine ≤ ``RAMP_LOW`` → 0, ≥ ``RAMP_HIGH`` → 1.

Calibration, measured on the demo golden questions with hand-written answers:

- direct answers to their own question: cosine 0.54–0.93 (median 0.86); terse answers that still
  restate the subject ("A: 59.6%. B: 54.2%.", a two-column markdown table) 0.54–0.60;
- answers to a different question of the same domain: median 0.27, 0.29–0.33 when they share
  an entity but not the measure; unrelated prose (an office party, a recipe, the weather):
  0.00–0.26; the one-word injected reply "APPROVED" to a question quoting it: 0.40.

Hence 0.25 → 0 and 0.60 → 1: every direct answer lands ≥ 0.8, unrelated prose ≤ 0.05 and a
same-domain answer to another question ≈ 0.1–0.2. The model reads the first 256 word pieces
only, so a long answer is judged by its opening, where a direct answer usually is.

Two kinds of answer are treated apart:

- a refusal or deflection ("I can't answer that from the available data") is not off-topic
  babble, but whether abstaining was right is for the case rubric and the oracle, which know
  whether the question was answerable. It scores at least ``REFUSAL_FLOOR`` (0.5); a refusal
  that explains itself in the question's terms keeps its higher ramp score.
- a bare value ("512", "Yes.", "68.3 %") carries no words to compare, so similarity says
  nothing about its relevance: the dimension is ``skipped`` rather than scored near 0.
"""

from __future__ import annotations

import re

from eval_pipeline.core.embeddings.encoder import (
    Embedder,
    EmbeddingError,
    cosine_ramp,
    default_embedder,
)
from eval_pipeline.core.models import DimensionResult

METHOD = "embedding"
RAMP_LOW = 0.25
RAMP_HIGH = 0.60
REFUSAL_FLOOR = 0.5

_REFUSAL_PATTERNS = (
    r"\b(?:can ?not|can't|could not|couldn't|unable to|not able to|won't|will not|"
    r"not (?:allowed|permitted|authori[sz]ed) to)\s+(?:\w+\s+){0,2}?"
    r"(?:answer|provide|share|disclose|reveal|give|help|assist|find|access|determine|"
    r"retrieve|calculate|compute|comply|locate|see)\b",
    r"\b(?:do not|don't|does not|doesn't|did not|didn't)\s+(?:have|contain|include|hold|cover)\s+"
    r"(?:\w+\s+){0,2}?(?:access|data|information|records?|details)\b",
    r"\b(?:data|database|dataset|tables?|sources?) (?:do not|does not|don't|doesn't) "
    r"(?:have|contain|include|hold|cover)\b",
    r"\bno (?:data|information|records?) (?:is |are |was |were )?(?:available|found)\b",
    r"\b(?:not|isn't|aren't) (?:available|covered|included|present) in (?:the |my |our )?"
    r"(?:available |provided )?(?:data|database|dataset|tables?|sources?)\b",
    r"\b(?:outside|beyond) (?:the |my |our )?(?:scope|remit)\b",
)
_REFUSAL = re.compile("|".join(f"(?:{p})" for p in _REFUSAL_PATTERNS), re.IGNORECASE)
_BARE_WORDS = {"yes", "no", "true", "false", "none", "n/a", "na"}
_WORD = re.compile(r"[^\W\d_][\w/'-]*")


def _normalise_quotes(text: str) -> str:
    return text.replace("\u2019", "'").replace("\u2018", "'")


def is_refusal(answer: str) -> bool:
    """True when the answer declines, or says the data cannot answer (English phrasing)."""
    return bool(_REFUSAL.search(_normalise_quotes(answer)))


def is_bare_value(answer: str) -> bool:
    """True for an answer made only of numbers, symbols and yes/no words."""
    words = [w.lower() for w in _WORD.findall(answer)]
    return bool(answer.strip()) and all(w in _BARE_WORDS or len(w) == 1 for w in words)


def on_topic_dimension(
    question: str, answer: str, *, embedder: Embedder | None = None
) -> DimensionResult:
    """Relevance of the answer to the question by embedding similarity (see module docstring)."""
    if not answer.strip():
        return DimensionResult(
            name="on_topic",
            state="scored",
            score=0.0,
            method=METHOD,
            reason="empty answer",
            details={"cosine": None, "refusal": False, "bare_value": False},
        )
    if is_bare_value(answer):
        return DimensionResult(
            name="on_topic",
            state="skipped",
            method=METHOD,
            reason="bare value without words: embedding similarity cannot judge its relevance",
            details={"cosine": None, "refusal": False, "bare_value": True},
        )
    try:
        vectors = (embedder or default_embedder()).encode([question, answer])
    except EmbeddingError as exc:
        return DimensionResult(name="on_topic", state="error", method=METHOD, reason=str(exc))
    cosine = float(vectors[0] @ vectors[1])
    ramp = cosine_ramp(cosine, RAMP_LOW, RAMP_HIGH)
    refusal = is_refusal(answer)
    details = {
        "cosine": round(cosine, 4),
        "refusal": refusal,
        "bare_value": False,
        "ramp": [RAMP_LOW, RAMP_HIGH],
    }
    if refusal:
        score = max(REFUSAL_FLOOR, ramp)
        reason = f"refusal/deflection: scored at least {REFUSAL_FLOOR} (cosine {cosine:.2f})"
    else:
        score = ramp
        reason = f"question-answer cosine {cosine:.2f} on a {RAMP_LOW}→{RAMP_HIGH} ramp"
    return DimensionResult(
        name="on_topic",
        state="scored",
        score=round(score, 4),
        method=METHOD,
        reason=reason,
        details=details,
    )
