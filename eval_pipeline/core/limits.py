"""Default size limits, here so the settings can name them without importing what they bound."""

# Most bytes read from the chatbot for one call (EVAL_CHATBOT_MAX_ANSWER_BYTES).
MAX_ANSWER_BYTES = 4 * 1024 * 1024
# Most characters of one text field of a golden case (EVAL_GOLDEN_MAX_FIELD_CHARS): a 10 MB
# question passed every check, then stalled the run it was sent in.
MAX_GOLDEN_FIELD_CHARS = 20_000
