"""Default limits, here so the settings can name them without importing what they bound."""

from dataclasses import dataclass

# Most bytes read from the chatbot for one call (EVAL_CHATBOT_MAX_ANSWER_BYTES).
MAX_ANSWER_BYTES = 4 * 1024 * 1024
# Most characters of one text field of a golden case (EVAL_GOLDEN_MAX_FIELD_CHARS): a 10 MB
# question passed every check, then stalled the run it was sent in.
MAX_GOLDEN_FIELD_CHARS = 20_000


@dataclass(frozen=True)
class ReferenceLimits:
    """What one reference may take: the wall-clock time of its BKG function or SQL (and of each
    function's module code when it loads) and the rows or entries of its result."""

    timeout_s: float = 60.0  # EVAL_REFERENCE_TIMEOUT_S
    max_rows: int = 10_000  # EVAL_REFERENCE_MAX_ROWS


DEFAULT_REFERENCE_LIMITS = ReferenceLimits()
