"""Units: which are the same quantity in another scale, and what a column's name says it holds.

Percent, fraction and points are one family (45.5 % = 0.455; a difference of rates is in
points); durations convert through seconds; a bare number compares with anything. A reference
without a declared unit is read from its column name or SQL alias ("total_revenue" is money,
"avg_wait_minutes" a duration in minutes, "no_show_rate" a rate).
"""

from __future__ import annotations

import re

from eval_pipeline.core.measures import measures_named
from eval_pipeline.core.models import DURATION_UNITS, Unit

RATES = frozenset({"percent", "fraction", "points"})
AMOUNTS = frozenset({"count", "currency", *DURATION_UNITS})


def family(unit: Unit | None) -> str | None:
    """The quantity a unit measures: ``rate``, ``duration``, ``money``, ``count``, ``ratio``,
    or None for a bare number."""
    if unit in RATES:
        return "rate"
    if unit in DURATION_UNITS:
        return "duration"
    if unit == "currency":
        return "money"
    if unit in ("count", "ratio"):
        return unit
    return None


def scale(claim_unit: Unit | None, truth_unit: Unit | None) -> float | None:
    """The factor that puts a value stated in ``claim_unit`` in ``truth_unit``, or None when
    they are different quantities. Percent and fraction are 100 apart; a bare number or a count
    stated for a rate is read in the rate's own scale."""
    if claim_unit == truth_unit or claim_unit is None or truth_unit is None:
        return 1.0
    if claim_unit in DURATION_UNITS and truth_unit in DURATION_UNITS:
        return DURATION_UNITS[claim_unit] / DURATION_UNITS[truth_unit]
    if claim_unit in ("percent", "points") and truth_unit == "fraction":
        return 0.01
    if claim_unit == "fraction" and truth_unit in ("percent", "points"):
        return 100.0
    if {claim_unit, truth_unit} <= {"percent", "points"}:
        return 1.0
    if claim_unit == "number" or truth_unit == "number":
        return 1.0
    if claim_unit == "count" and truth_unit == "ratio":
        return 1.0  # "2.3 to 1"
    return None


_NAMES: tuple[tuple[str, Unit], ...] = (
    (r"pct|percent|percentage|pc|share|rate|ratio_pct|perc", "percent"),
    (r"secs?|seconds?", "seconds"),
    (r"mins?|minutes?", "minutes"),
    (r"hrs?|hours?", "hours"),
    (r"days?", "days"),
    (r"wks?|weeks?", "weeks"),
    (
        r"usd|eur|gbp|revenue|revenues|sales_amount|amounts?|price|prices|cost|costs|spend|"
        r"charges?|billed|paid|collected|collections|income|profit|margin_usd|fees?|value|"
        r"allowance|dollars?|euros?|budget",
        "currency",
    ),
    (r"count|cnt|num|n|number|qty|quantity|sales|volume|units", "count"),
)
_UNIT_WORDS: tuple[tuple[re.Pattern[str], Unit], ...] = tuple(
    (re.compile(rf"(?:^|_|\b)(?:{words})(?:$|_|\b)", re.IGNORECASE), unit) for words, unit in _NAMES
)


_PARTICIPLE_NOUN = re.compile(
    r"(?:^|_)(?:paid|billed|collected|charged|refunded|invoiced)_(?P<noun>[a-z]{3,}[^sui_\W]s)$"
)
"""A money participle before a plural noun: "paid_claims" counts claims, it is no amount."""


_MONEY_PARTICIPLE = re.compile(r"(?:^|_)(?:paid|billed|collected|charged|refunded|invoiced)(?:$|_)")
_CURRENCY_SUFFIX = re.compile(r"(?:^|_|\b)(?:usd|eur|gbp)$", re.IGNORECASE)
"""A currency code ending a name is its unit, whatever it measures ("avg_nightly_rate_usd")."""
_WINDOW = re.compile(
    r"(?:^|(?<=[_\s<>]))\d+[_\s]*(?:secs?|seconds?|mins?|minutes?|hrs?|hours?|days?|wks?|weeks?|"
    r"months?|years?)(?=$|[_\s])"
)
"""A number of a time unit in a name is a window or a threshold of what is counted
("pos_over_21_days", "revenue_last_30_days"), not the unit of its values."""


def unit_from_name(name: str) -> Unit | None:
    """What a column or alias name says its numbers are, when it says it clearly."""
    text = _WINDOW.sub(" ", name.strip().lower()).strip()
    if not text:
        return None
    if _CURRENCY_SUFFIX.search(text):
        return "currency"
    if _MONEY_PARTICIPLE.search(text) and measures_named(text)[0] is not None:
        return None  # "tonnes_collected": tonnes that were collected, a measure, not money
    counted = _PARTICIPLE_NOUN.search(text)
    if counted and not any(p.search(counted.group("noun")) for p, _ in _UNIT_WORDS):
        return None  # the caller reads whole numbers under a plural noun as a count
    found = [unit for pattern, unit in _UNIT_WORDS if pattern.search(text)]
    if "percent" in found and "rate" in text and not re.search(r"pct|percent", text):
        return "percent"  # a rate stored as 0.12 is told apart by its values
    return found[0] if found else None


def names_a_unit(word: str) -> bool:
    """Is a word of a name (a token: lower case, maybe stemmed) the unit its values are in
    ("mwh", "km", "hour", "minut", "usd"), which says in what a quantity is, not what it is?"""
    return measures_named(word)[0] is not None or word in _UNIT_TOKENS


_UNIT_TOKENS = frozenset(
    (
        *("hour", "hours", "hrs", "hr", "minut", "min", "mins", "second", "secs", "sec", "day"),
        *("days", "week", "weeks", "wks", "usd", "eur", "gbp", "pct", "percent"),
    )
)


_LESS_IS_BETTER = re.compile(
    r"(?i)no.?show|cancel|late|delay|wait|turnaround|lead.?time|discount|churn|error|defect|"
    r"complaint|cost|day|hour|minute|second|time|duration|arrear|overdue|outage|backlog|loss|"
    r"expense|contaminat|waste|landfill|missed|fail|reject|refund|incident|accident|injur|"
    r"breakdown|fault|violation|penalt|spoil|fraud|dispute|chargeback|abandon|bounce|vacan|"
    r"scrap|rework|emission|curtail|stockout|backorder|absen|attrition|delinquen"
)


_PUNCTUAL = re.compile(r"(?i)on.?time|in.?time|up.?time")
"""Names where "time" is what is good: the share on time, the uptime."""


_MORE_IS_BETTER = re.compile(
    r"(?i)revenue|sales|sold|sell|profit|margin|income|earn|gross|net|mrr|arr|arpu|aov|value|"
    r"spend|order|booking|visit|ride|trip|unit|volume|count|customer|member|user|subscriber|"
    r"account|lead|deal|win|conversion|convert|retention|retain|renewal|renew|rating|score|"
    r"csat|nps|satisf|recommend|review|occupan|utili[sz]|yield|output|throughput|productiv|"
    r"efficien|oee|uptime|on.?time|in.?time|attendance|attend|enrol|complet|resolv|pass|"
    r"collect|growth|active|load.?factor|fill|capacity|coverage"
)


def polarity_known(name: str) -> bool:
    """Do the quantity's words say which way is better, so that "best" or "worst" has one
    reading? Of an unknown quantity ("lwbs_rate") either end may be the worst."""
    return less_is_better(name) or bool(_MORE_IS_BETTER.search(name))


def less_is_better(name: str) -> bool:
    """Is a lower value of the quantity so named the better one (waits, delays, no-shows,
    costs)? What "best", "improved" or "faster" mean depends on it."""
    return bool(_LESS_IS_BETTER.search(_PUNCTUAL.sub(" ", name)))
