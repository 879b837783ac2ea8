"""Which cases of a run an evaluation can leave alone: every stage already has a result stored
for exactly its current inputs, so materializing the case again would only reuse all four.

Skipping them is Dagster's "materialize stale and missing": a re-run with nothing changed costs
one summary, not a pass over every case.
"""

from __future__ import annotations

from collections.abc import Sequence

from eval_pipeline.core.lineage.fingerprints import StageFingerprints
from eval_pipeline.core.results_store import ResultsStore


def up_to_date_cases(
    store: ResultsStore, run_key: str, case_ids: Sequence[str], stage: StageFingerprints
) -> set[str]:
    """Cases whose four stored stage results match their current input fingerprints.

    A case whose stored verdicts are stale (its tables changed after the answer) is never up to
    date: it must be asked again.
    """
    golden = store.case_records("golden_cases", case_ids)
    responses, claims, scores = (
        store.latest_rows(name, run_key, case_ids, with_payload=False)
        for name in ("chatbot_responses", "extracted_claims", "judge_scores")
    )
    verdicts = store.latest_rows("oracle_verdicts", run_key, case_ids)
    out = set()
    for case_id in case_ids:
        record = golden.get(case_id)
        rows = [r.get(case_id) for r in (responses, claims, verdicts, scores)]
        if record is None or any(row is None for row in rows):
            continue
        response, claim, verdict, score = (row for row in rows if row is not None)
        if verdict.payload.get("stale_tables"):
            continue
        if (
            response.input_fingerprint == stage.chatbot(record)
            and claim.input_fingerprint == stage.claims(record, response.content_hash)
            and verdict.input_fingerprint
            == stage.oracle(record, response.content_hash, claim.content_hash)
            and score.input_fingerprint
            == stage.scores(record, response.content_hash, verdict.content_hash)
        ):
            out.add(case_id)
    return out
