"""Version of each evaluation step: Dagster's ``code_version`` and part of every input fingerprint.

Bump a step's version when its logic changes the results: its outputs (and only those downstream
of it) are recomputed at the next materialization, and nothing upstream — a new judge version
re-scores without re-asking the chatbot.
"""

STAGE_VERSIONS: dict[str, str] = {
    "golden_cases": "1",
    "chatbot_responses": "1",
    "extracted_claims": "2",
    "oracle_verdicts": "2",
    "judge_scores": "2",
    "eval_run": "1",
    "eval_report": "1",
}
