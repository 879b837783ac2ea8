"""The layout's bounded lookups answer exactly what the whole-text scans they replace answered.

Linear extraction (#17) reads a window before each number instead of the whole text before it,
skips anchored searches that a cheap word test rules out, bisects instead of scanning, and marks
covered characters instead of comparing spans pairwise. Each test here checks one of those
against the plain computation on text that exercises it.
"""

from __future__ import annotations

import random
import re

import pytest

from eval_pipeline.core.claims.extract import _CHANGE_BEFORE, _CHANGE_WORDS
from eval_pipeline.core.claims.layout import (
    MAX_CELLS,
    MAX_SENTENCE,
    Covered,
    Layout,
    overlaps,
    search_before,
    sentence_spans,
)
from eval_pipeline.core.claims.numbers import (
    _AT_LEAST_BEFORE,
    _AT_MOST_BEFORE,
    HEDGE_BEFORE,
    _may_qualify,
)

_PHRASES = (
    "about roughly nearly approx. ca. est. ~ ≈ < <= ≥ > more than less than no more than at most "
    "at least over above below under up to shy of in excess of upwards of north of close to "
    "just about more or less some circa the rose fell up down by a further gap of difference "
    "increase of topped East by trailed West by led the region by (about) —about visits 12.5% "
    "made up and in was is clinic Clinic 7 x-about aboutness overall rose-by"
)
_WORDS = _PHRASES.split()


def _texts(count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return [
        " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 12))) + rng.choice(("", " "))
        for _ in range(count)
    ]


def test_search_before_finds_what_a_search_of_the_whole_text_before_finds() -> None:
    pattern = re.compile(r"\b(?i:rose|fell|up|down)\s+(?i:by\s+)?$")
    for text in _texts(3000):
        for end in range(len(text) + 1):
            whole = pattern.search(text[:end])
            bounded = search_before(pattern, text, end, 40)
            assert (whole and whole.span()) == (bounded and bounded.span()), (text, end)


def test_the_change_words_hold_every_word_a_change_pattern_starts_with() -> None:
    for text in _texts(1000):
        for end in range(len(text) + 1):
            whole = _CHANGE_BEFORE.search(text[:end])
            fast = search_before(_CHANGE_BEFORE, text, end, 120, _CHANGE_WORDS)
            assert (whole and whole.span()) == (fast and fast.span()), (text, end)


@pytest.mark.parametrize("pattern", [HEDGE_BEFORE, _AT_MOST_BEFORE, _AT_LEAST_BEFORE])
def test_a_head_the_quick_test_rules_out_holds_no_hedge_or_bound(pattern: re.Pattern[str]) -> None:
    for text in _texts(5000):
        if pattern.search(text):
            assert _may_qualify(text), text


def test_covered_answers_as_pairwise_overlap_does() -> None:
    rng = random.Random(3)
    spans = [(a, a + rng.randint(1, 9)) for a in (rng.randrange(200) for _ in range(40))]
    covered = Covered(220, spans)
    for start in range(215):
        for width in (1, 2, 5):
            assert covered.overlaps((start, start + width)) == overlaps(
                (start, start + width), spans
            )


def test_a_sentence_without_an_end_is_cut_after_a_space_below_the_limit() -> None:
    text = "word " * (MAX_SENTENCE // 2)
    spans = sentence_spans(text)
    assert len(spans) >= 3
    assert all(end - start <= MAX_SENTENCE for start, end in spans)
    assert all(text[end - 1] == " " for _, end in spans[:-1])
    assert [s for _, s in spans[:-1]] == [s for s, _ in spans[1:]]  # contiguous, nothing lost
    assert sentence_spans("The rate rose vs. last year. It fell.") == [(0, 28), (28, 37)]


def test_a_line_with_more_cells_than_a_table_has_is_no_table_row() -> None:
    wide = "| " + " | ".join(str(i) for i in range(MAX_CELLS + 1)) + " |"
    text = f"| Group | Rate |\n|---|---|\n| West | 92.5% |\n{wide}\n| East | 88.1% |"
    layout = Layout(text)
    assert [len(t.rows) for t in layout.tables] == [1]
    assert layout.cell_of(text.index("92.5")) is not None
    assert layout.cell_of(text.index("88.1")) is None


def test_each_list_line_finds_the_line_that_introduces_its_list() -> None:
    text = "Intro.\nBy region:\n- West: 42\n- East: 37\n| a | b |\n|---|---|\n| 1 | 2 |\nEnd 9"
    layout = Layout(text)
    lead = (text.index("By region:"), text.index("By region:") + len("By region:"))
    assert layout.lead_in(text.index("42")) == lead
    assert layout.lead_in(text.index("37")) == lead
    assert layout.lead_in(text.index("| 1")) == lead  # a table right under the list
    assert layout.lead_in(text.index("9")) == lead  # the caller asks only inside a block
    assert layout.item_of(text.index("37")) is not None
    assert layout.item_of(text.index("9")) is None
