"""Claim extraction: every stated figure becomes a claim; qualifiers, ids and contacts never do."""

from __future__ import annotations

import pytest

from eval_pipeline.core.claims.extract import extract_claims, non_claim_spans, sentence_spans

EXTRACTIONS: list[tuple[str, str, list[str]]] = [
    # question, answer, claim texts in order
    ("q", "West: 92.5%, East: 88.1%", ["92.5%", "88.1%"]),
    ("q", "West has 42 completed sites and East 37.", ["42", "37"]),
    ("q", "In 2026-03, 55 milestones were completed.", ["55"]),
    ("q", "In March 2026, 55 milestones were completed.", ["55"]),
    ("q", "On 2026-03-01 we had 55; on 03/15/2026 we had 60.", ["55", "60"]),
    ("q", "On March 1, 2026 we had 55 and on 15 March 61.", ["55", "61"]),
    ("q", "In Q3 2025 and FY2026 the rate was about 92%.", ["about 92%"]),
    ("q", "In 2025, 300 milestones were completed.", ["300"]),
    ("q", "Since 2019 the programme has finished 1,234 sites.", ["1,234"]),
    ("q", "2000 sites are completed.", ["2000"]),
    ("q", "1968 HSE audits were carried out; 2025 was a good year.", ["1968"]),
    ("q", "North shipped the most 2025 orders (412).", ["North shipped the most", "412"]),
    ("q", "Plan 3 is the bigger seller. Plan 5 costs $79.", ["$79"]),
    (
        "q",
        "West ranked 1st with 42, East came 2nd with 37.",
        ["West ranked 1st", "42", "East came 2nd", "37"],
    ),
    (
        "q",
        "West is #1 with 42; East is in second place with 37.",
        ["West is #1", "42", "East is in second place", "37"],
    ),
    ("q", "West is rank 1 and has 42 sites.", ["42"]),
    ("q", "Site S-00042 (case TC_001) has 12 open findings.", ["12"]),
    ("q", "Site S42 and item 00042 have 12 open findings.", ["12"]),
    ("q", "Call +1-555-123-4567 or (555) 123-4567 about the 12 findings.", ["12"]),
    ("q", "Write to ops42@example.com about the 12 findings.", ["12"]),
    ("q", "See https://example.com/r/42 for the 12 findings.", ["12"]),
    ("q", "At 10:30 the rate was 92.5%.", ["92.5%"]),
    ("q", "The 30-day average is 12.5 days.", ["12.5 days"]),
    ("q", "Over the last 6 months, 55 milestones were completed.", ["55"]),
    ("q", "The top 5 regions completed 1,234 sites.", ["1,234"]),
    ("Which 3 regions lead?", "The 3 regions that lead are West (42) and East (37).", ["42", "37"]),
    ("What happened in the last 6 months?", "In 6 months we finished 55.", ["55"]),
    # "of the N" after a part is the whole of a share, not the size of a ranking's field
    ("q", "59 of the 89 accounts stayed.", ["59", "89"]),
    ("q", "West did 21 of those 92.", ["21"]),
    ("q", "One of the regions, West, has forty-two sites.", ["forty-two"]),
    (
        "q",
        "The revenue was $1.2M, about 1.2 million dollars.",
        ["$1.2M", "about 1.2 million dollars"],
    ),
    ("q", "It fell by -5.2% to 0.925.", ["-5.2%", "0.925"]),
    ("q", "Approx. 1,200 sites. Nearly 90% are done!", ["Approx. 1,200", "Nearly 90%"]),
    ("q", "More than 1,600 sites, up to 12 days late.", ["More than 1,600", "up to 12 days"]),
    ("q", "No numbers here at all.", []),
]


@pytest.mark.parametrize(("question", "answer", "expected"), EXTRACTIONS)
def test_extraction(question: str, answer: str, expected: list[str]) -> None:
    contract = extract_claims("TC_001", question, answer)
    assert [c.text for c in contract.claims] == expected
    assert [c.id for c in contract.claims] == [f"C{i}" for i in range(1, len(expected) + 1)]
    for claim in contract.claims:
        assert answer[claim.span[0] : claim.span[1]] == claim.text


def test_claim_fields_carry_value_unit_precision_and_hedge() -> None:
    answer = "About 1,200 sites (92.5%) took 12.5 days; over $1.2M was spent."
    contract = extract_claims("TC_009", "q", answer)
    assert contract.case_id == "TC_009" and contract.method == "deterministic"
    got = [(c.value, c.unit, c.precision, c.place, c.hedged, c.bound) for c in contract.claims]
    assert got == [
        (1200.0, "count", 0.5, 100.0, True, None),
        (92.5, "percent", pytest.approx(0.05), pytest.approx(0.1), False, None),
        (12.5, "days", pytest.approx(0.05), pytest.approx(0.1), False, None),
        (1_200_000.0, "currency", pytest.approx(50_000.0), pytest.approx(1e5), False, "at_least"),
    ]
    assert all(c.kind == "numeric" and c.source == "deterministic" for c in contract.claims)


def test_caller_masked_spans_are_not_claims() -> None:
    answer = "Reach Ana on 4477 12 or via code 9981; the rate is 92.5%."
    start = answer.index("4477")
    masked = [(start, start + len("4477 12")), (answer.index("9981"), answer.index("9981") + 4)]
    contract = extract_claims("TC_001", "q", answer, masked_spans=masked)
    assert [c.text for c in contract.claims] == ["92.5%"]
    unmasked = extract_claims("TC_001", "q", answer)
    assert [c.text for c in unmasked.claims] == ["4477", "12", "92.5%"]  # "code 9981" is an id


def test_question_echo_is_by_value() -> None:
    contract = extract_claims("TC_001", "Which five regions?", "The 5 regions total 1,234.")
    assert [c.text for c in contract.claims] == ["1,234"]


def test_non_claim_spans_cover_contacts_and_dates() -> None:
    text = "Mail a.b@example.com, call +44 20 7946 0958, due 2026-03-01."
    covered = [text[s:e] for s, e in non_claim_spans(text)]
    assert "a.b@example.com" in covered
    assert "+44 20 7946 0958" in covered
    assert "2026-03-01" in covered


def test_short_digit_groups_are_not_taken_for_phone_numbers() -> None:
    assert non_claim_spans("West 42 37 then 55") == []


def test_sentence_spans_ignore_decimals_and_abbreviations() -> None:
    text = "Approx. 1,200 sites are done. West is at 92.5%! East? Yes\nNext line"
    assert [text[s:e].strip() for s, e in sentence_spans(text)] == [
        "Approx. 1,200 sites are done.",
        "West is at 92.5%!",
        "East?",
        "Yes",
        "Next line",
    ]


def test_a_sentence_ends_before_its_closing_bracket() -> None:
    text = '(Peers often target 10.) North is at 4. He said "done." Then 5.'
    assert [text[s:e].strip() for s, e in sentence_spans(text)] == [
        "(Peers often target 10.)",
        "North is at 4.",
        'He said "done."',
        "Then 5.",
    ]


def claims_of(answer: str, question: str = "q") -> list[tuple[str, str, float | None]]:
    contract = extract_claims("TC_001", question, answer)
    return [(c.text, c.kind, c.value) for c in contract.claims]


@pytest.mark.parametrize(
    ("answer", "text", "value", "unit", "precision"),
    [
        ("The rate is between 40 and 45%.", "between 40 and 45%", 42.5, "percent", 3.0),
        ("The rate is 40-45%.", "40-45%", 42.5, "percent", 3.0),
        ("It takes 3 to 5 days.", "3 to 5 days", 4.0, "days", 1.5),
        ("It costs $1.2–1.5M.", "$1.2–1.5M", 1_350_000.0, "currency", 200_000.0),
        ("It takes 2-3 weeks.", "2-3 weeks", 2.5, "weeks", 1.0),
    ],
)
def test_a_range_is_one_claim_whose_precision_spans_it(
    answer: str, text: str, value: float, unit: str, precision: float
) -> None:
    (claim,) = extract_claims("TC_001", "q", answer).claims
    assert (claim.text, claim.unit, claim.kind) == (text, unit, "numeric")
    assert claim.value == pytest.approx(value) and claim.precision == pytest.approx(precision)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # a unit written after the first number only: a change and the level it reached
        (
            "Parcels rose 8.5% to 41,200.",
            [("8.5%", "comparison", 8.5), ("41,200", "numeric", 41_200.0)],
        ),
        (
            "We shipped 3.2 million kWh to 1,450 sites.",
            [("3.2 million kWh", "numeric", 3_200_000.0), ("1,450", "numeric", 1_450.0)],
        ),
        # near misses: the unit after the second number, or both inside "between … and …"
        ("Waits ran 12 to 15 minutes.", [("12 to 15 minutes", "numeric", 13.5)]),
        ("Waits ran between 2 hours and 3.", [("between 2 hours and 3", "numeric", 2.5)]),
    ],
)
def test_a_unit_after_the_first_number_alone_ends_no_range(
    answer: str, expected: list[tuple[str, str, float]]
) -> None:
    assert claims_of(answer) == expected


def test_from_to_is_two_levels_not_a_range() -> None:
    assert claims_of("It went down from 80 to 75.") == [
        ("80", "numeric", 80.0),
        ("75", "numeric", 75.0),
    ]


@pytest.mark.parametrize(
    ("answer", "text", "value", "unit", "direction"),
    [
        ("Completions were up 3 points.", "3 points", 3.0, "points", "up"),
        ("That is a 12% increase.", "12%", 12.0, "percent", "up"),
        ("It fell 5.2% this month.", "5.2%", -5.2, "percent", "down"),
        ("It saw a 3-point drop.", "3-point", -3.0, "points", "down"),
        ("It changed by -38.", "-38", -38.0, "count", "down"),
        ("It rose by twenty one.", "twenty one", 21.0, "count", "up"),
        ("A decline of 4 points followed.", "4 points", -4.0, "points", "down"),
        ("West has 66 more sites than East.", "66 more", 66.0, "count", "up"),
        ("East has 66 fewer sites than West.", "66 fewer", -66.0, "count", "down"),
        ("West is 8.4 points ahead of East.", "8.4 points ahead of", 8.4, "points", None),
        ("West topped East by 11.", "11", 11.0, "count", "up"),
        ("Revenue in Q2 (+12.6%)", "+12.6%", 12.6, "percent", "up"),
        (
            "It trails the group by -0.3 points against the overall rate.",
            "-0.3 points",
            -0.3,
            "points",
            "down",
        ),
    ],
)
def test_changes_are_comparison_claims_signed_by_direction(
    answer: str, text: str, value: float, unit: str, direction: str | None
) -> None:
    (claim,) = extract_claims("TC_001", "q", answer).claims
    assert (claim.text, claim.kind, claim.unit, claim.direction) == (
        text,
        "comparison",
        unit,
        direction,
    )
    assert claim.value == pytest.approx(value)


@pytest.mark.parametrize(
    "answer",
    [
        "Audits made up 37.2% of all inspections.",
        "Small sites make up 41% of the total.",
        "The regions add up 100% between them.",
        "Incidents, broken down 60% by site, were rare.",
        "The depots add up to 4,310 parcels.",
        "Depot B lost 2.4% of its parcels in transit.",
        "Depot B runs a 6.1% loss rate.",
    ],
)
def test_a_phrasal_up_or_down_is_no_change(answer: str) -> None:
    (claim,) = extract_claims("TC_001", "q", answer).claims
    assert (claim.kind, claim.direction, claim.bound) == ("numeric", None, None)
    assert (claim.value or 0) > 0


@pytest.mark.parametrize(
    ("answer", "text", "direction"),
    [
        ("Depot B lost 2.4% this year.", "2.4%", "down"),  # no "of": a change of its own
        ("Depot B saw a 6.1% loss on last year.", "6.1%", "down"),
    ],
)
def test_near_misses_of_a_phrasal_up_or_down_are_changes(
    answer: str, text: str, direction: str
) -> None:
    claims = [c for c in extract_claims("TC_001", "q", answer).claims if c.value is not None]
    assert [(c.text.endswith(text), c.kind, c.direction) for c in claims] == [
        (True, "comparison", direction)
    ]


def test_up_to_after_no_verb_that_sums_is_a_bound() -> None:
    (claim,) = extract_claims("TC_001", "q", "Each van holds up to 40 parcels.").claims
    assert (claim.text, claim.bound) == ("up to 40", "at_most")


def test_a_change_word_on_the_next_paragraph_is_not_the_claims() -> None:
    answer = "- vs 2024 (61.4%): +10.4 pts\n\nBetter than planned."
    assert claims_of(answer)[-1] == ("+10.4 pts", "comparison", 10.4)


def test_levels_around_a_change_stay_levels() -> None:
    answer = "In 2026-03, 292 were completed, up 21 from 271, then rose to 300."
    assert [(t, k) for t, k, _ in claims_of(answer)] == [
        ("292", "numeric"),
        ("21", "comparison"),
        ("271", "numeric"),
        ("300", "numeric"),
    ]


def test_a_year_is_a_claim_only_when_the_question_asks_for_one() -> None:
    answer = "Most sites were integrated in 2025."
    assert claims_of(answer, "How many sites were integrated?") == []
    assert claims_of(answer, "In which year were most sites integrated?") == [
        ("2025", "numeric", 2025.0)
    ]
    assert claims_of("The 2025 total was 1,234.") == [("1,234", "numeric", 1234.0)]
    assert claims_of("In week 12 we did 55.") == [("55", "numeric", 55.0)]


@pytest.mark.parametrize(
    ("answer", "entity", "rank", "direction", "bound"),
    [
        ("West has the most completed sites.", "West", 1, "highest", None),
        ("East ranks second.", "East", 2, "highest", None),
        ("North has the lowest compliance rate.", "North", 1, "lowest", None),
        ("The West region has the fewest overdue items.", "West", 1, "lowest", None),
        ("South has the second-highest rate.", "South", 2, "highest", None),
        ("Central comes last.", "Central", 1, "lowest", None),
        ("North is second to last.", "North", 2, "lowest", None),
        ("West leads the programme.", "West", 1, "highest", None),
        ("The region with the highest rate is West.", "West", 1, "highest", None),
        ("The highest compliance rate is in Central.", "Central", 1, "highest", None),
        ("Route 9 Motors grew fastest.", "Route 9 Motors", 1, None, None),
        ("Carlos closed his fastest.", "Carlos", 1, None, None),
        ("July was the group's busiest month.", "July", 1, "highest", None),
        ("West still brings in the most revenue.", "West", 1, "highest", None),
        ("Liability is a distant second.", "Liability", 2, "highest", None),
        ("West is #3 this year.", "West", 3, "highest", None),
        ("West leads March 2026 sales.", "West", 1, "highest", None),
        ("Salt & Pepper Bistro has the most covers.", "Salt & Pepper Bistro", 1, "highest", None),
        ("The week of 9 June had the fewest visits.", "week of 9 June", 1, "lowest", None),
        ("The second quarter had the fewest sign-ups.", "second quarter", 1, "lowest", None),
        ("Fees rose; courier had the most parcels.", "courier", 1, "highest", None),
        (
            "The network's busiest week was the week of 13 January.",
            "week of 13 January",
            1,
            "highest",
            None,
        ),
    ],
)
def test_ranking_statements_become_ranking_claims(
    answer: str, entity: str, rank: int, direction: str, bound: str | None
) -> None:
    (claim,) = extract_claims("TC_001", "q", answer).claims
    assert (claim.kind, claim.entity, claim.value, claim.direction, claim.bound) == (
        "ranking",
        entity,
        rank,
        direction,
        bound,
    )
    assert answer[claim.span[0] : claim.span[1]] == claim.text


def test_the_items_of_a_list_under_a_ranking_lead_in_are_ranked() -> None:
    numbered = "Top two depots by parcels:\n\n1. **Kestrel Yard**: 410\n2. Orchard Gate — 388"
    claims = extract_claims("T", "q", numbered).claims
    assert [(c.text, c.kind, c.value, c.direction, c.bound) for c in claims] == [
        ("Kestrel Yard", "ranking", 1, "highest", None),
        ("410", "numeric", 410, None, None),
        ("Orchard Gate", "ranking", 2, "highest", None),
        ("388", "numeric", 388, None, None),
    ]
    bulleted = "The 3 quietest depots:\n- Orchard Gate: 88\n- Kestrel Yard: 90\n- Fen Row: 97"
    rankings = [c for c in extract_claims("T", "q", bulleted).claims if c.kind == "ranking"]
    assert {(c.entity, c.value, c.direction, c.bound) for c in rankings} == {
        (name, 3, "lowest", "at_most") for name in ("Orchard Gate", "Kestrel Yard", "Fen Row")
    }
    assert "3" not in [c.text for c in extract_claims("T", "q", bulleted).claims]
    first = "Slowest lanes this week:\n- Fen Row: 9.1 min\n- Kestrel Yard: 8.7 min"
    rankings = [c for c in extract_claims("T", "q", first).claims if c.kind == "ranking"]
    assert [(c.entity, c.value, c.direction) for c in rankings] == [("Fen Row", 1, None)]


@pytest.mark.parametrize(
    "lead",
    [
        "Parcels by depot:",  # no superlative: a list, not a ranking
        "Most of the growth came from:",
        "Top-line figures for the year:",
        "Most recent depots to open:",
        "Highest and lowest depots:",  # two ends: the order is not one ranking
        "The top two were close",  # no colon: the list is not what it introduces
    ],
)
def test_a_list_is_ranked_only_under_one_superlative_that_introduces_it(lead: str) -> None:
    answer = f"{lead}\n1. Kestrel Yard: 410\n2. Orchard Gate: 388"
    assert not [c for c in extract_claims("T", "q", answer).claims if c.kind == "ranking"]


def test_a_lower_case_word_is_a_ranked_entity_only_as_a_clause_subject() -> None:
    answer = "Fees rose and courier volumes had the most growth. The courier had the most parcels."
    assert not [c for c in extract_claims("T", "q", answer).claims if c.kind == "ranking"]


def test_a_ranked_list_item_headed_by_a_code_is_no_ranking() -> None:
    answer = "The oldest open jobs:\n1. J-2031-0007: 40 days\n2. J-2031-0019: 38 days"
    assert not [c for c in extract_claims("T", "q", answer).claims if c.kind == "ranking"]


def test_a_ranked_list_item_headed_by_a_superlative_keeps_its_own_ranking() -> None:
    answer = "Top depots this quarter:\n- Fastest: Kestrel Yard.\n- Busiest: Orchard Gate."
    claims = extract_claims("T", "q", answer).claims
    assert [(c.entity, c.direction) for c in claims] == [
        ("Kestrel Yard", None),
        ("Orchard Gate", "highest"),
    ]


def test_a_superlative_joined_to_a_ranking_or_naming_its_entity_in_brackets() -> None:
    joined = "West has the longest waits but the lowest rate."
    assert [(c.text, c.entity, c.direction) for c in extract_claims("T", "q", joined).claims] == [
        ("West has the longest waits", "West", "highest"),
        ("but the lowest rate", "West", "lowest"),
    ]
    apart = "West has the most sites. Reports rose and the lowest rate held."
    assert [c.entity for c in extract_claims("T", "q", apart).claims] == ["West"]
    bracketed = "The gap between the fastest (LATAM) and the slowest (North America) is small."
    assert [(c.text, c.entity) for c in extract_claims("T", "q", bracketed).claims] == [
        ("the fastest (LATAM)", "LATAM"),
        ("the slowest (North America)", "North America"),
    ]


def test_a_peak_at_a_grouped_figure_is_a_ranking_and_a_figure() -> None:
    claims = extract_claims("T", "q", "Logins peaked at 32,979 in March 2026.").claims
    assert [(c.text, c.kind, c.entity) for c in claims] == [
        ("peaked", "ranking", "March 2026"),
        ("32,979", "numeric", None),
    ]


def test_a_top_n_list_is_one_membership_claim_per_entity() -> None:
    answer = "The top three regions are West, East and Central."
    claims = extract_claims("TC_001", "q", answer).claims
    assert [(c.text, c.entity, c.value, c.bound, c.direction) for c in claims] == [
        (name, name, 3.0, "at_most", "highest") for name in ("West", "East", "Central")
    ]
    listed = "The three regions with the most sites are West, East and South."
    assert [c.kind for c in extract_claims("TC_001", "q", listed).claims] == ["ranking"] * 3


def test_a_ranking_beside_figures_is_a_claim_of_its_own_and_a_negated_one_none() -> None:
    answer = "West leads at 92.5%. North has the lowest rate. North does not have the most."
    assert claims_of(answer) == [
        ("West leads", "ranking", 1.0),
        ("92.5%", "numeric", 92.5),
        ("North has the lowest rate", "ranking", 1.0),
    ]


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        (
            "Did we sell more than 2,400 units?",
            "Yes, just over the 2,400 mark: 2,408.",
            ["just over the 2,400", "2,408"],
        ),
        ("Is it under 5%?", "Yes, it's under 5% (4.9%).", ["under 5%", "4.9%"]),
        # a filter in the question's words, or in the answer's, is no threshold asked about
        (
            "Did customers with more than 3 orders churn?",
            "Yes, 12 with more than 3 orders.",
            ["12"],
        ),
        ("Did we sell more than 2,400?", "Yes: 12 stores with more than 2,400 each.", ["12"]),
        ("Did we sell more than 2,400?", "No, we are not above 2,400: 2,380.", ["2,380"]),
        ("Which groups sold more than 40?", "West sold more than 40: 42.", ["42"]),
    ],
)
def test_threshold_of_a_yes_no_question_is_a_bound(
    question: str, answer: str, expected: list[str]
) -> None:
    assert [c.text for c in extract_claims("TC_001", question, answer).claims] == expected


NOT_CLAIMS_IN_CONTEXT: list[tuple[str, str, list[str]]] = [
    # question, answer, claim texts in order
    # a year the answer or question writes as one elsewhere is that year, before a noun too
    ("What happened in 2031?", "Closed 2031 tickets took 4.5 days on average.", ["4.5 days"]),
    ("q", "In 2031 we paid $3.1M; 2031 payouts were the highest.", ["$3.1M"]),
    ("q", "We closed 2031 tickets.", ["2031"]),
    ("q", "In 2030 refunds were $7K; in 2031 they reached $9K, well above 2030.", ["$7K", "$9K"]),
    # a table's header names columns; its first column names rows when it holds bands,
    # levels, or integers counting up one by one
    (
        "q",
        "| Seats | Accounts | Score (/10) |\n|---|---|---|\n| 1-9 | 40 | 7.1 |\n| 10+ | 12 | 6.4 |",
        ["40", "7.1", "12", "6.4"],
    ),
    (
        "q",
        "| Guests | Bookings |\n|---|---|\n| 1 | 310 |\n| 2 | 522 |\n| 3 | 97 |",
        ["310", "522", "97"],
    ),
    (
        "q",
        "| Visits | Share |\n|---|---|\n| 412 | 12% |\n| 398 | 11% |\n| 77 | 2% |",
        ["412", "12%", "398", "11%", "77", "2%"],
    ),
    ("q", "| Grade | Reviews |\n|---|---|\n| 4 stars | 81 |\n| 3 stars | 17 |", ["81", "17"]),
    # a scale or base written on its own, beside no value
    ("q", "Unit A reached 71.8 (out of 100).", ["71.8"]),
    ("q", "Complaints per 1,000 orders:\n- North: 4.1\n- South: 3.6", ["4.1", "3.6"]),
    ("q", "North logged 4.1 complaints per 1,000 orders.", ["4.1 complaints per 1,000"]),
    # a share of a large whole is no score on a scale
    ("q", "The shop got 84 top-rated reviews out of 198 in all.", ["84", "198"]),
    # points of a rating scale that pick the responses counted
    ("q", "61% scored us 4 or better; 9% rated it 2 or lower.", ["61%", "9%"]),
    ("q", "Only 43 replies were a 1 or 2 — one in 10.", ["43", "one in 10"]),
    ("q", "Of 900 ratings, 410 are 5 stars.", ["900", "410"]),
    ("q", "1,212 attempts reached the 60-point pass mark.", ["1,212"]),
]


@pytest.mark.parametrize(("question", "answer", "expected"), NOT_CLAIMS_IN_CONTEXT)
def test_numbers_that_only_qualify_in_their_context(
    question: str, answer: str, expected: list[str]
) -> None:
    assert [c.text for c in extract_claims("TC_001", question, answer).claims] == expected


def test_a_run_of_months_answering_a_question_by_month_holds_values() -> None:
    answer = "Sign-ups (H2): July 14, August 19, September 11 and October 30."
    by_month = extract_claims("TC_001", "Sign-ups by month in H2?", answer).claims
    assert [c.text for c in by_month] == ["14", "19", "11", "30"]
    # the same run read as dates when the question asks for none by month, and two months
    # are no run
    assert extract_claims("TC_001", "When were the renewals?", answer).claims == []
    two = extract_claims("TC_001", "Sign-ups by month?", "Paid on July 14 and August 19.")
    assert two.claims == []


def test_a_count_of_the_rows_leads_no_ranking() -> None:
    """ "All 5 topped 90 loans": five rows together, no entity named "5"; a year may still
    open the clause of a ranking its subject follows ("In 2025 chat had the longest …")."""
    texts = [c.text for c in extract_claims("TC_001", "q?", "All 5 topped 90 loans.").claims]
    assert texts == ["5", "90"]
    claims = extract_claims("TC_001", "q?", "In 2025 chat had the longest handle time at 9.4 min.")
    assert [c.kind for c in claims.claims] == ["ranking", "numeric"]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Spend per head was 68p below the chain.", [("68p below", "currency", -0.68)]),
        ("A coffee costs 45 cents more.", [("45 cents more", "currency", 0.45)]),
        # near misses: a resolution and a time of day are no money
        ("Every screen streams in 1080p.", []),
        ("At 3pm we had 12 visits.", [("12", "count", 12.0)]),
    ],
)
def test_pence_and_cents_are_money(answer: str, expected: list[tuple[str, str, float]]) -> None:
    claims = extract_claims("TC_001", "q?", answer).claims
    assert [(c.text, c.unit, c.value) for c in claims] == expected
