"""A claim's sentence in the report: the answer's sentences are found once, not per claim."""

from __future__ import annotations

import re
import time

from eval_pipeline.core.claims.layout import sentence_spans
from eval_pipeline.core.report.claim_text import SENTENCE_CHARS, ClaimSentences

ANSWER = (
    "Revenue rose 4.2% vs. March, e.g. in the West.\n\nSites: 12 open, 3 closed! "
    "Was it 7? Yes... about 7 " + "long " * 200 + "tail 9.\n- item 5\n"
)


def by_scanning_every_sentence(answer: str, start: int, end: int) -> list[str]:
    """The sentence of ``answer[start:end]`` found the slow way, sentence by sentence."""
    first, last = start, end
    for s, e in sentence_spans(answer):
        if s <= start < e or s < end <= e:
            first, last = min(first, s), max(last, e)
    first, last = max(first, start - SENTENCE_CHARS // 2), min(last, end + SENTENCE_CHARS // 2)
    return [answer[first:start].lstrip(), answer[start:end], answer[end:last].rstrip()]


def test_every_span_gets_the_sentence_a_scan_of_all_sentences_gives() -> None:
    sentences = ClaimSentences(ANSWER, show_pii=True)
    spans = [m.span() for m in re.finditer(r"\d+(?:\.\d+)?%?|\w+", ANSWER)]
    spans += [(0, len(ANSWER)), (10, 60), (len(ANSWER) - 3, len(ANSWER))]  # across sentences
    for start, end in spans:
        assert sentences.of([start, end]) == by_scanning_every_sentence(ANSWER, start, end)
    assert sentences.of(None) == [] and sentences.of([0, len(ANSWER) + 1]) == []
    assert ClaimSentences("").of([0, 0]) == []


def _cpu_per_claim(claims: int) -> float:
    answer = "".join(f"In week {i} the shop baked {i % 997} loaves. " for i in range(claims))
    spans = [m.span() for m in re.finditer(r"\d+ loaves", answer)]
    started = time.process_time()
    sentences = ClaimSentences(answer, show_pii=True)
    for span in spans:
        sentences.of(span)
    return (time.process_time() - started) / len(spans)


def test_time_per_claim_is_flat_from_1000_to_20000_claims() -> None:
    """Per claim the whole answer was split again: 20,000 claims cost 20x each what 1,000 did."""
    base = min(_cpu_per_claim(1000) for _ in range(3))
    assert _cpu_per_claim(20_000) / base < 3.0
