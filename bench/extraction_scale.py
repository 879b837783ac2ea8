"""Claim extraction and verification time against the size of the answer (#17).

The blind set's answers, concatenated and repeated, make answers from 1 KB to 10 MB; each is
extracted and its CPU time per KB printed, then the ratio of each size's per-KB time to the
10 KB one. Verification is timed per claim on answers of one blind domain repeated, against that
domain's live references (claims past the oracle's cap are not verified, so the largest size
stays under it).

    .venv/bin/python bench/extraction_scale.py            # 1 KB … 10 MB
    .venv/bin/python bench/extraction_scale.py --max-kb 1024
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.labelled_answers import load_domain, load_set, warehouse
from eval_pipeline.core.claims.extract import extract_claims
from eval_pipeline.core.oracle import verify_claims
from eval_pipeline.core.oracle.verify import MAX_VERIFIED_CLAIMS

BLIND = Path(__file__).with_name("blind")


def _corpus() -> str:
    return "\n\n".join(case.answer for domain in load_set(BLIND) for case in domain.cases)


def _sized(corpus: str, kb: int) -> str:
    size = kb * 1024
    return (corpus * (size // len(corpus) + 1))[:size]


def extraction(max_kb: int) -> list[str]:
    corpus = _corpus()
    rows, per_kb = [], {}
    for kb in (k for k in (1, 10, 100, 1024, 10240) if k <= max_kb):
        text = _sized(corpus, kb)
        start = time.process_time()
        claims = len(extract_claims("scale", "q?", text).claims)
        per_kb[kb] = (time.process_time() - start) / kb
        rows.append(f"extract {kb} KB: {claims} claims, {1000 * per_kb[kb]:.2f} ms/KB")
    base = per_kb.get(10) or next(iter(per_kb.values()))
    ratios = " ".join(f"{kb}KB={t / base:.2f}" for kb, t in per_kb.items())
    return [*rows, f"extraction: per-KB time against 10 KB: {ratios}"]


def verification() -> list[str]:
    domain = load_domain(BLIND / "hotels")
    case = max(domain.cases, key=lambda c: len(c.labels))
    rows, per_claim = [], {}
    with warehouse(domain) as (runtime, db, _):
        references = [runtime.evaluate(r, db) for r in case.references]
        for copies in (5, 50):
            answer = "\n\n".join([case.answer] * copies)
            contract = extract_claims(case.id, case.question, answer)
            assert len(contract.claims) <= MAX_VERIFIED_CLAIMS
            start = time.process_time()
            verify_claims(contract, references, answer=answer, question=case.question)
            per_claim[copies] = (time.process_time() - start) / len(contract.claims)
            claims = len(contract.claims)
            rows.append(f"verify {claims} claims: {1000 * per_claim[copies]:.2f} ms/claim")
    return [
        *rows,
        f"verification: per-claim time 10x claims / 1x: {per_claim[50] / per_claim[5]:.2f}",
    ]


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-kb", type=int, default=10240)
    args = parser.parse_args(argv)
    print("\n".join([*extraction(args.max_kb), *verification()]))


if __name__ == "__main__":
    main(sys.argv[1:])
