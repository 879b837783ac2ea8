"""The kind of figure a number's own phrase states, and the gate that accuses a claim only when
that kind is the held value's: each row in its own words, with a near miss."""

from __future__ import annotations

import pytest

from eval_pipeline.core.claims.extract import extract_claims
from eval_pipeline.core.oracle.figure_kind import Kind, Reading, read
from eval_pipeline_tests.core.oracle.answers import C, U, assert_verdicts, ref


def _kinds(sentence: str, figure: str) -> frozenset[Kind]:
    """The kinds read for the claim whose text starts with ``figure``, its clause the sentence."""
    claims = extract_claims("T", "How are we doing?", sentence).claims
    claim = next(c for c in claims if c.text.startswith(figure))
    whole = (0, len(sentence))
    return read(sentence, claim, whole, whole, lambda start, end: False).kinds


@pytest.mark.parametrize(
    ("sentence", "figure", "kinds"),
    [
        # a capital "A" names a site; only the article "a" makes a value per item
        ("Site A revenue was $15.0K.", "$15.0K", {"level"}),
        ("At Site A, a visit earned $15.0K.", "$15.0K", {"per_item"}),
        # the size of a change, not a level; "rose to" names the level it reached
        ("Depot pickups saw an increase of 871 this spring.", "871", {"change"}),
        ("Depot pickups rose to 871 this spring.", "871", {"level"}),
        # one part of a duration written in two units
        ("The longest delay was 1 h 43 m.", "1 h", {"part"}),
        ("The longest delay was 1 h, with 43 vans late.", "1 h", {"level"}),
        # a time limit, unless the figure is what the fixes took on average
        ("Faults were fixed within 48 hours.", "48 hours", {"limit"}),
        ("Faults were fixed within 48 hours on average.", "48 hours", {"level"}),
        # an increment added to another amount
        ("Tips add roughly $9 to each bill.", "roughly $9", {"part"}),
        ("Tips came to roughly $9 on each bill.", "roughly $9", {"level"}),
        # "ahead of schedule" says when, not a gap: "1 in N" is a share
        ("Roughly 8 in 100 vans left ahead of schedule.", "Roughly 8 in 100", {"share"}),
        # a value per item beside a difference says what it is between
        ("Fares were 7.7% below the market per seat.", "7.7% below", {"difference"}),
        ("Fares were 7.7% behind the market per seat.", "7.7% behind", {"gap"}),
        # a sign alone names no other side; "vs" does
        ("Revenue reached $2.26M (+$194K).", "+$194K", {"step"}),
        ("Revenue reached $2.26M (+$194K vs spring).", "+$194K", {"difference"}),
        # a figure written before "under/above the …" is its gap to that; a count of things
        # below a bar is a level
        ("Harbor: $41.20, about $6 under the chain average.", "about $6", {"gap"}),
        ("That leaves 212 orders below the bar.", "212", {"level"}),
        # a multiple of another entity's value, written with its possessive
        ("Ridge took 4.6 days, about half Valley's time.", "about half", {"ratio"}),
        ("Ridge took about 4.6 days.", "about 4.6", {"level"}),
        # a rate per unit of time, with the noun it counts between
        ("Packers managed under 40 cartons an hour on Friday.", "under 40", {"per_item"}),
        ("Packers managed under 40 cartons on Friday.", "under 40", {"level"}),
        # one item's amount is a part of any total
        ("Most of May's refunds were one $3.4K order.", "$3.4K", {"part"}),
        ("May's refunds came to $3.4K.", "$3.4K", {"level"}),
        # a bound set on a figure ("cap … at", "a … ceiling", "a … minimum"), not one observed
        ("Regulators cap late fees at $35.", "$35", {"limit"}),
        ("Late fees came to $35 in May.", "$35", {"level"}),
        ("Discounts carry a 40% ceiling.", "40%", {"limit"}),
        ("Discounts averaged 40% in May.", "40%", {"level"}),
        ("Lenders require a 620 minimum for approval.", "620", {"limit"}),
        ("Limited stock left 620 orders open.", "620", {"level"}),
        # two kinds of figure at once: no kind is sure
        ("Uncollected fees came to $9 per member.", "$9", {"part", "per_item"}),
    ],
)
def test_the_kind_its_phrase_reads(sentence: str, figure: str, kinds: set[str]) -> None:
    assert _kinds(sentence, figure) == kinds


@pytest.mark.parametrize(
    ("kinds", "held", "fits"),
    [
        ({"difference"}, {"gap"}, True),  # a signed "+0.4 vs X" is a gap or a change
        ({"step"}, {"change", "gap"}, False),  # a bare sign may be a bridge's step
        ({"step"}, {"level", "change", "step"}, True),  # a change a reference names
        ({"part", "per_item"}, {"part", "per_item", "level"}, False),  # in doubt, never
        ({"level"}, {"change"}, False),
    ],
)
def test_a_reading_fits_only_one_held_kind(kinds: set[Kind], held: set[Kind], fits: bool) -> None:
    assert Reading(frozenset(kinds)).fits(frozenset(held)) is fits


BY_SITE = ref({"Site A": 12_000.0, "Site B": 9_500.0}, "currency", name="revenue")
FEES = ref({"North": 22.5, "South": 18.0}, "currency", name="avg_fee")
FEE_CAPS = ref({"North": 30.0, "South": 25.0}, "currency", name="fee_cap")
PICKUPS = ref({"North": 42, "South": 37}, "count", name="pickups", params={"year": 2025})


@pytest.mark.parametrize(
    ("answer", "refs", "expected"),
    [
        # "Site A" is a name, not "a" item: its wrong revenue is accused
        ("Site A revenue was $15.0K.", [BY_SITE], [C]),
        ("At Site A, a visit earned $15.0K.", [BY_SITE], [U]),
        # a line headed by a change's name states the change, which no level is
        ("North pickup growth: 12.", [PICKUPS], [U]),
        ("North pickups: 12.", [PICKUPS], [C]),
        # a cap is no level of the fees; a column named for a cap is stated as one
        ("Rules cap North's fee at $35.", [FEES], [U]),
        ("North's fee was $35.", [FEES], [C]),
        ("Rules cap North's fee at $35.", [FEE_CAPS], [C]),
    ],
)
def test_accused_only_as_the_kind_it_is_held_against(
    answer: str, refs: list, expected: list[str]
) -> None:
    assert_verdicts("", answer, refs, expected)
