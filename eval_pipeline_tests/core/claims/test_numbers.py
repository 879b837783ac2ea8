"""The demo bot's number formats: each is true to the fact within the precision it states."""

from __future__ import annotations

import random
import re

import pytest

from eval_pipeline.demo.bot.numbers import (
    format_fact,
    is_tie,
    number_words,
    render,
    significant,
    true_formats,
)
from eval_pipeline.demo.bot.plans import Fact

_ONES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
         "eighteen", "nineteen")  # fmt: skip
_WORDS = {word: value for value, word in enumerate(_ONES)}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}  # fmt: skip


def _words_value(text: str) -> int | None:
    tens, _, ones = text.partition("-")
    if tens in _WORDS and not ones:
        return _WORDS[tens]
    if tens in _TENS and (not ones or (ones in _WORDS and 0 < _WORDS[ones] < 10)):
        return _TENS[tens] + (_WORDS[ones] if ones else 0)
    return None


def read_back(text: str, unit: str) -> tuple[float, float]:
    """An independent reader: the value a display states and the tolerance its precision implies."""
    hedged = text.startswith(("about ", "~"))
    body = text.removeprefix("about ").removeprefix("~")
    worded = _words_value(body)
    if worded is not None:
        return worded, 0.5
    match = re.fullmatch(
        r"(-?)(\$?)([\d,]+)(?:\.(\d+))?(%| percent|k| thousand|M| million| days?)?", body
    )
    assert match, f"unreadable display {text!r}"
    sign, dollar, whole, frac, suffix = match.groups()
    assert bool(dollar) == (unit == "currency"), text
    number = float(whole.replace(",", "") + ("." + frac if frac else ""))
    if frac:
        tolerance = 0.5 * 10 ** -len(frac)
    elif hedged:
        digits = whole.replace(",", "")
        tolerance = 0.5 * 10 ** (len(digits) - len(digits.rstrip("0")))
    else:
        tolerance = 0.5
    scale = {"k": 1e3, " thousand": 1e3, "M": 1e6, " million": 1e6}.get(suffix or "", 1.0)
    if unit == "percent" and suffix not in ("%", " percent"):
        scale = 100.0  # a bare fraction stands for a percentage
    if unit == "days":
        assert suffix in (" day", " days"), text
    value = -number if sign else number
    return value * scale, tolerance * scale


def _random_fact(rng: random.Random) -> Fact:
    unit = rng.choice(["percent", "count", "currency", "days", "number"])
    if unit == "percent":
        return Fact(round(rng.uniform(0, 100), 2), unit, rng.choice([0, 1, 2]))
    if unit == "count":
        return Fact(float(int(10 ** rng.uniform(0, 7.5))), unit)
    if unit == "currency":
        return Fact(round(10 ** rng.uniform(0, 8), 2), unit, rng.choice([0, 2]))
    return Fact(round(rng.uniform(-50, 500), 3), unit, rng.choice([0, 1, 2]))


def test_every_offered_format_is_true_within_its_stated_precision() -> None:
    rng = random.Random(1)
    checked = 0
    for _ in range(600):
        fact = _random_fact(rng)
        for text in true_formats(fact):
            value, tolerance = read_back(text, fact.unit)
            assert abs(value - fact.value) <= tolerance + 1e-9, (fact, text, value, tolerance)
            checked += 1
    assert checked > 1500


@pytest.mark.parametrize(
    ("fact", "expected"),
    [
        (Fact(92.47, "percent", 2), ["92.47%", "92.47 percent", "92.5%", "about 92%", "0.925"]),
        (Fact(1.5, "percent", 1), ["1.5%", "1.5 percent"]),
        (
            Fact(1234, "count"),
            ["1,234", "1234", "1.2k", "1.23 thousand", "about 1,200", "~1,230"],
        ),
        (Fact(42, "count"), ["42", "forty-two"]),
        (
            Fact(2_345_678, "count"),
            [
                "2,345,678",
                "2345678",
                "2.3 million",
                "2.35 million",
                "about 2,300,000",
                "~2,350,000",
            ],
        ),
        (Fact(1_234_567, "currency"), ["$1,234,567", "$1.2M", "$1.23M"]),
        (Fact(45_678.9, "currency", 2), ["$45,678.90", "$45.7k"]),
        (Fact(12.46, "days", 2), ["12.46 days", "12.5 days", "about 12 days"]),
        (Fact(1, "days"), ["1 day"]),
        (Fact(3.14159, "number", 3), ["3.142"]),
        (Fact(-1234.5, "number", 1), ["-1,234.5", "-1234.5"]),
    ],
)
def test_formats_offered_for_typical_facts(fact: Fact, expected: list[str]) -> None:
    assert true_formats(fact) == expected


def test_scaled_forms_round_correctly_and_skip_ties() -> None:
    assert "1.3k" in true_formats(Fact(1260, "count"))
    assert "1.2k" not in true_formats(Fact(1260, "count"))
    # 1,250 is exactly between 1.2k and 1.3k: neither is offered, the exact forms still are.
    assert not {"1.2k", "1.3k"} & set(true_formats(Fact(1250, "count")))
    assert "1.25 thousand" in true_formats(Fact(1250, "count"))
    # 999,960 would read "1000.0k": the k form is dropped rather than shown at the wrong scale.
    assert not any(text.endswith("k") for text in true_formats(Fact(999_960, "count")))


def test_hedged_forms_round_to_two_and_three_significant_digits() -> None:
    assert "about 9,900" in true_formats(Fact(9_876, "count"))
    assert "~9,880" in true_formats(Fact(9_876, "count"))
    assert "about 10,000" in true_formats(Fact(9_960, "count"))
    assert significant(1_250, 2) is None  # a tie: no hedged form
    assert significant(0, 2) is None
    assert not any(t.startswith("about") for t in true_formats(Fact(1_250, "count")))
    assert "about 2%" not in true_formats(Fact(2.5, "percent", 1))  # a tie at whole percents


def test_number_words_cover_zero_to_ninety_nine() -> None:
    words = [number_words(n) for n in range(100)]
    assert len(set(words)) == 100
    assert words[0] == "zero"
    assert words[13] == "thirteen"
    assert words[20] == "twenty"
    assert words[42] == "forty-two"
    assert words[99] == "ninety-nine"
    assert all(_words_value(word) == n for n, word in enumerate(words))
    assert all(("-" in word) == (n > 20 and n % 10 != 0) for n, word in enumerate(words))
    with pytest.raises(ValueError):
        number_words(100)


def test_words_only_for_whole_counts_below_one_hundred() -> None:
    assert "ninety-nine" in true_formats(Fact(99, "count"))
    assert not any(_words_value(t) for t in true_formats(Fact(100, "count")))
    assert not any(_words_value(t) for t in true_formats(Fact(42, "number")))


def test_fraction_form_only_for_percentages_of_at_least_two() -> None:
    assert "0.025" in true_formats(Fact(2.5, "percent", 1))
    assert all("%" in t or "percent" in t for t in true_formats(Fact(1.9, "percent", 1)))


def test_render_is_the_canonical_display() -> None:
    assert render(92.0, "percent", 1) == "92.0%"
    assert render(-1234.5, "currency", 0) == "-$1,235"
    assert render(1, "days", 0) == "1 day"
    assert render(-0.01, "number", 1) == "0.0"
    assert is_tie(1.25, 1) and not is_tie(1.26, 1)


def test_format_choice_is_reproducible_and_varied() -> None:
    fact = Fact(1234, "count")
    first = [format_fact(fact, random.Random(seed)) for seed in range(40)]
    again = [format_fact(fact, random.Random(seed)) for seed in range(40)]
    assert first == again
    assert set(first) == set(true_formats(fact))
