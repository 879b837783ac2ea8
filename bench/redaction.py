"""Cost of redaction per case: every stored record of a results store redacted as the store does.

Reads the records of the newest run of ``EVAL_RESULTS_URL`` (default: the demo results store in
``EVAL_HOME``; run ``make demo`` first), redacts each case's records with the settings' secrets
(plus a chatbot token, as the SSE adapter adds one) and prints the time per case and per KB, with
the answer redacted once more at ingestion counted apart.
"""

from __future__ import annotations

import json
import time

import sqlalchemy as sa

from eval_pipeline.core.redaction import Redactor
from eval_pipeline.settings import load_settings


def main() -> None:
    settings = load_settings()
    redactor = Redactor.from_settings(settings)
    redactor.add("chatbot_token", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkZW1vIn0.c2lnbmF0dXJlLXNpZw")
    engine = sa.create_engine(settings.results_store_url)
    with engine.connect() as conn:
        run_key = conn.execute(
            sa.text("SELECT run_key FROM records WHERE asset = 'eval_run' ORDER BY id DESC LIMIT 1")
        ).scalar_one()
        rows = conn.execute(
            sa.text(
                "SELECT asset, case_id, payload FROM records WHERE run_key = :r AND case_id != ''"
            ),
            {"r": run_key},
        ).all()
    cases: dict[str, list[tuple[str, object]]] = {}
    for asset, case_id, payload in rows:
        cases.setdefault(case_id, []).append((asset, json.loads(payload)))
    size = sum(len(p) for _, _, p in rows)
    best = float("inf")
    for _ in range(5):
        started = time.perf_counter()
        for records in cases.values():
            for asset, payload in records:
                redactor.value(payload)
                if asset == "chatbot_responses":
                    redactor.value(payload)  # once more at ingestion, by the adapter
        best = min(best, time.perf_counter() - started)
    print(
        f"redaction: {len(cases)} cases of run {run_key}, {len(rows)} records,"
        f" {size / 1024:.0f} KB;"
        f" {best / len(cases) * 1e3:.2f} ms per case, {best / (size / 1024) * 1e6:.0f} us per KB"
        f" ({len(redactor.names)} known secrets)"
    )


if __name__ == "__main__":
    main()
