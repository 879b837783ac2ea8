"""Which cases of a run an evaluation can leave alone: every stage already has a result stored
for exactly its current inputs, so materializing the case again would only reuse all four.

Skipping them is Dagster's "materialize stale and missing": a re-run with nothing changed costs
one summary, not a pass over every case.
"""

from __future__ import annotations

from collections.abc import Sequence

from eval_pipeline.core.fingerprints import StageFingerprints
from eval_pipeline.core.results_store import ResultsStore

STAGES = ("chatbot_responses", "extracted_claims", "oracle_verdicts", "judge_scores")


def up_to_date_cases(
    store: ResultsStore, run_key: str, case_ids: Sequence[str], stage: StageFingerprints
) -> set[str]:
    """Cases whose four stored stage results match their current input fingerprints.

    A case whose stored verdicts are stale (its tables changed after the answer) is never up to
    date: it must be asked again.
    """
    golden = store.latest("golden_cases", "", case_ids)
    rows = [store.latest_rows(name, run_key, case_ids) for name in STAGES]
    out = set()
    for case_id in case_ids:
        record = golden.get(case_id)
        response, claims, verdicts, scores = (r.get(case_id) for r in rows)
        if record is None or response is None or claims is None:
            continue
        if verdicts is None or scores is None or verdicts.payload.get("stale_tables"):
            continue
        if (
            response.input_fingerprint == stage.chatbot(record)
            and claims.input_fingerprint == stage.claims(record, response.payload)
            and verdicts.input_fingerprint == stage.oracle(record, response.payload, claims.payload)
            and scores.input_fingerprint == stage.scores(record, response.payload, verdicts.payload)
        ):
            out.add(case_id)
    return out
