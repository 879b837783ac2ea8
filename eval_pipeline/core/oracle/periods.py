"""Periods: a year, half, quarter, month or day, read from references and from answers.

A reference ties its numbers to periods through its params (``year: 2024``, ``quarter:
"2024Q1"``, a ``start_date``/``end_date`` pair) and through date-labelled rows (a month start
``2023-02-01``, a week start). An answer names them as "2024", "Q1 2024", "the first half of
2025", "February 2023", "in February", "the week of 16 November", "2026-11-16". A number is tied
to a period when the period it names contains the number's period; a mention without a year
("in February") takes any year.
"""

from __future__ import annotations

import bisect
import calendar
import datetime as dt
import itertools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from eval_pipeline.core.claims.layout import Covered, search_before
from eval_pipeline.core.claims.ranking_phrases import ORDINALS
from eval_pipeline.core.oracle.sql_reading import date_bounds

Grain = str  # "year", "half", "quarter", "month", "day"


@dataclass(frozen=True)
class Period:
    """A calendar period; ``year`` None is "that period of any year" (a mention like "Q3")."""

    grain: Grain
    year: int | None
    index: int = 1
    """Half (1–2), quarter (1–4) or month (1–12) of the year; a day's month × 100 + day."""

    def bounds(self, year: int) -> tuple[dt.date, dt.date]:
        if self.grain == "year":
            return dt.date(year, 1, 1), dt.date(year, 12, 31)
        if self.grain in ("half", "quarter", "month"):
            months = {"half": 6, "quarter": 3, "month": 1}[self.grain]
            first = (self.index - 1) * months + 1
            last = first + months - 1
            return dt.date(year, first, 1), dt.date(year, last, calendar.monthrange(year, last)[1])
        month, day_of_month = divmod(self.index, 100)
        if month == 2 and day_of_month == 29 and not calendar.isleap(year):
            day_of_month = 28
        day = dt.date(year, month, day_of_month)
        return day, day

    @property
    def start(self) -> dt.date:
        """Its first day (in 2000, a leap year, when it names no year)."""
        return self.bounds(self.year or 2000)[0]

    def within(self, other: Period) -> bool:
        """Is this period inside ``other`` (the same year when either leaves it open)? A period
        named only relative to another ("a year earlier") is inside none the references hold."""
        if "other" in (self.grain, other.grain):
            return False
        years = [y for y in (self.year, other.year) if y is not None]
        if len(set(years)) > 1:
            return False
        year = years[0] if years else 2000  # a leap year, so any day of a year exists
        if self.grain == "day" and self.year is None and other.year is not None:
            year = other.year
        start, end = self.bounds(year)
        other_start, other_end = other.bounds(year)
        return other_start <= start and end <= other_end

    def key(self) -> str:
        if self.grain == "other":
            return "another period"
        year = "*" if self.year is None else str(self.year)
        if self.grain == "year":
            return year
        if self.grain == "day":
            day = self.start
            return f"{year}-{day:%m-%d}"
        letter = {"half": "H", "quarter": "Q", "month": "M"}[self.grain]
        return f"{year}-{letter}{self.index}"


def day(date: dt.date) -> Period:
    return Period("day", date.year, date.month * 100 + date.day)


def _day_of(year: int | None, month: int, day_of_month: int) -> Period | None:
    try:
        dt.date(year or 2000, month, day_of_month)
    except ValueError:
        return None
    return Period("day", year, month * 100 + day_of_month)


def _exact(start: dt.date, end: dt.date) -> Period | None:
    """The calendar period ``start``–``end`` is exactly, if it is one."""
    if start == end:
        return day(start)
    last_day = calendar.monthrange(end.year, end.month)[1]
    if start.day != 1 or end.day != last_day or start.year != end.year:
        return None
    months = end.month - start.month + 1
    for grain, size in (("year", 12), ("half", 6), ("quarter", 3), ("month", 1)):
        if months == size and (start.month - 1) % size == 0:
            return Period(grain, start.year, (start.month - 1) // size + 1)
    return None


_ISO = re.compile(r"^(\d{4})-(\d{2})(?:-(\d{2}))?(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$")
_QUARTER = re.compile(r"^(?:(\d{4})[-\s]?(?:Q|q)([1-4])|(?:Q|q)([1-4])[-\s]?(\d{4}))$")
_HALF = re.compile(r"^(?:(\d{4})[-\s]?(?:H|h)([12])|(?:H|h)([12])[-\s]?(\d{4}))$")


def parse_label(value: Any) -> tuple[Period | None, dt.date | None]:
    """A period a reference value names ("2024", "2024Q1", "2024-02"), or the date it holds."""
    if isinstance(value, bool):
        return None, None
    if isinstance(value, int) and 1900 <= value <= 2100:
        return Period("year", value), None
    if not isinstance(value, str):
        return None, None
    text = value.strip()
    if re.fullmatch(r"\d{4}", text) and 1900 <= int(text) <= 2100:
        return Period("year", int(text)), None
    for grain, pattern in (("quarter", _QUARTER), ("half", _HALF)):
        found = pattern.match(text)
        if found:  # "2024Q1" or "Q1 2024"
            year, index = found.group(1) or found.group(4), found.group(2) or found.group(3)
            return Period(grain, int(year), int(index)), None
    iso = _ISO.match(text)
    if iso:
        year, month = int(iso.group(1)), int(iso.group(2))
        if not 1 <= month <= 12:
            return None, None
        if iso.group(3) is None:
            return Period("month", year, month), None
        try:
            return None, dt.date(year, month, int(iso.group(3)))
        except ValueError:
            return None, None
    return None, None


def series_periods(dates: Iterable[dt.date]) -> Grain:
    """The grain of a column of dates: month starts three months apart are quarters, month
    starts are months, anything else is days (a week start is the day it starts)."""
    ordered = sorted(set(dates))
    if ordered and all(d.day == 1 for d in ordered):
        gaps = {(b.year - a.year) * 12 + b.month - a.month for a, b in itertools.pairwise(ordered)}
        if all(d.month in (1, 4, 7, 10) for d in ordered) and gaps and gaps <= {3, 6, 9, 12}:
            return "quarter"
        return "month"
    return "day"


def as_period(date: dt.date, grain: Grain) -> Period:
    if grain == "year":
        return Period("year", date.year)
    if grain == "quarter":
        return Period("quarter", date.year, (date.month - 1) // 3 + 1)
    if grain == "month":
        return Period("month", date.year, date.month)
    return day(date)


_START = re.compile(
    r"(?i)^(?:start|from|begin|since|first|min)[_\s-]*(?:date|day|period|month)?$|.*_(?:start|from)$"
)
_END = re.compile(
    r"(?i)^(?:end|to|until|through|last|max)[_\s-]*(?:date|day|period|month)?$|.*_(?:end|to)$"
)


def param_periods(params: Mapping[str, Any], sql: str | None = None) -> list[Period]:
    """The periods a reference's params name: a year, a quarter string, an exact date range
    (its ends named so, or compared so by the query)."""
    found: list[Period] = []
    start = end = None
    bounds = date_bounds(sql)
    for name, value in params.items():
        period, date = parse_label(value)
        is_start = bool(_START.match(name)) or (bounds is not None and name == bounds[0])
        is_end = bool(_END.match(name)) or (bounds is not None and name == bounds[1])
        if period is not None and (is_start or is_end):
            first, last = period.bounds(period.year or 2000)  # a range given by periods
            start, end = (first, end) if is_start else (start, last)
        elif period is not None:
            found.append(period)
        elif date is not None:
            if is_start:
                start = date
            elif is_end:
                end = date
            else:
                found.append(day(date))
    if start is not None and end is not None:
        exact = _exact(start, end) or _exact(start, end - dt.timedelta(days=1))
        if exact is not None:
            found.append(exact)
    return _of_the_year(found, params)


_PART_OF_YEAR = {"half": ("half", 2), "quarter": ("quarter", 4), "qtr": ("quarter", 4)}
_PART_OF_YEAR |= {"month": ("month", 12)}


def _of_the_year(found: list[Period], params: Mapping[str, Any]) -> list[Period]:
    """A year param and a part of it given as a number (``year: 2024, quarter: 1``) name that
    part of that year, not the whole year: the five scalar references of "Q1 2024 … Q1 2025"
    are each for their quarter."""
    years = [p for p in found if p.grain == "year"]
    parts = [
        Period(grain, years[0].year if len(years) == 1 else None, value)
        for name, value in params.items()
        for grain, top in [_PART_OF_YEAR.get(name.lower(), ("", 0))]
        if grain and isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= top
    ]
    if len(parts) != 1:
        return found
    return [p for p in found if p.grain != "year" or parts[0].year is None] + parts


# --------------------------------------------------------------------------- in answers

_MONTH_NAMES = {
    name.lower(): i
    for i in range(1, 13)
    for name in (calendar.month_name[i], calendar.month_abbr[i], "Sept" if i == 9 else "")
    if name
}
_MONTH = (
    r"(?P<month>" + "|".join(sorted((m for m in _MONTH_NAMES), key=len, reverse=True)) + r")\.?"
)
_YEAR = r"(?P<year>(?:19|20)\d{2})"
_QUARTER_ORDINALS = {word: i for word, i in ORDINALS.items() if i <= 4}
_ORD = rf"(?P<ord>{'|'.join(_QUARTER_ORDINALS)})"
_MENTIONS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern, re.IGNORECASE))
    for kind, pattern in (
        ("iso_day", r"\b(?P<year>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})\b"),
        ("iso_month", r"\b(?P<year>\d{4})-(?P<m>\d{2})\b(?!-\d)"),
        (
            "day_month",
            rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}(?:,?\s+{_YEAR})?\b",
        ),
        ("month_day", rf"\b{_MONTH}\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+{_YEAR})?(?!\d)"),
        ("quarter", rf"\b(?:Q(?P<q>[1-4])|{_ORD}\s+quarter)(?:\s+(?:of\s+)?{_YEAR})?\b"),
        ("quarter", rf"\b{_YEAR}\s*Q(?P<q>[1-4])\b"),
        ("half", rf"\b(?:H(?P<h>[12])|(?P<hw>first|second)\s+half)(?:\s+(?:of\s+)?{_YEAR})?\b"),
        ("month", rf"\b{_MONTH}(?:\s+(?:of\s+)?{_YEAR})?\b"),
        ("year", rf"(?<![\w.-]){_YEAR}(?![\w%-]|[.,]\d)"),
        (
            "other",
            r"\b(?:a|one|the)\s+(?:year|quarter|month|week)\s+(?:earlier|before|ago|prior)\b"
            r"|\b(?:the\s+)?(?:prior|previous|preceding|last)\s+(?:year|quarter|month|week|period)\b"
            r"|\byear[-\s]on[-\s]year\b",
        ),
    )
)
_MAY_VERB = re.compile(r"(?i)\bmay\s+(?:be|have|not|also|well|want|need|see|help)\b")


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    period: Period


def period_mentions(text: str) -> list[Mention]:
    """Non-overlapping period mentions, the most specific first."""
    found: list[Mention] = []
    covered = Covered(len(text))
    for kind, pattern in _MENTIONS:
        for m in pattern.finditer(text):
            if covered.overlaps(m.span()):
                continue
            period = _period_of(kind, m)
            if period is None:
                continue
            if (
                kind == "month"
                and m.group("month").lower() == "may"
                and _MAY_VERB.match(text, m.start())
            ):
                continue
            if kind == "month" and m.group()[:1].islower():
                continue  # "march", "may" as words
            found.append(Mention(m.start(), m.end(), period))
            covered.add(m.span())
    capitals = [x for x in found if _acronym_like(text, x)]
    if len(capitals) == 1:  # "Avg APR": an acronym, unless months are written so ("JAN, FEB")
        found.remove(capitals[0])
    return _ranges(text, sorted(found, key=lambda x: x.start))


def _acronym_like(text: str, mention: Mention) -> bool:
    """Is the mention a month's short name in capitals with no year ("APR", "MAR")?"""
    written = text[mention.start : mention.end]
    return mention.period.grain == "month" and mention.period.year is None and written.isupper()


_MONTH_FIRST = re.compile(_MONTH, re.IGNORECASE)


def values_not_days(text: str, mentions: list[Mention], values: Iterable[int]) -> list[Mention]:
    """``mentions`` with a "month day" whose day is a stated value ("January 8, February 10":
    8 move-outs in January, not 8 January) read as its month, which the value is for."""
    starts = sorted(values)
    out = []
    for mention in mentions:
        i = bisect.bisect_right(starts, mention.start)
        month = _MONTH_FIRST.match(text, mention.start)
        if mention.period.grain != "day" or i == len(starts) or starts[i] >= mention.end:
            out.append(mention)
        elif month is not None:
            period = Period("month", mention.period.year, mention.period.index // 100)
            out.append(Mention(month.start(), month.end(), period))
    return out


_THE_GRAIN = re.compile(
    r"\b(?i:for|in|over|across|during|throughout|of)\s+(?P<the>(?i:the)\s+"
    r"(?:(?i:whole|full|entire)\s+)?(?P<grain>year|half|quarter|month)\b)"
)
"""A period named by its grain alone ("about 828 hours for the quarter", "over the year")."""


def grain_mentions(text: str, named: Iterable[Period]) -> list[Mention]:
    """ "the quarter", "the year" in ``text``, each the one period of its grain that ``named``
    holds (the periods the question names): none when it names none or several of them."""
    found = []
    for m in _THE_GRAIN.finditer(text):
        grain = m.group("grain").lower()
        of_grain = {p for p in named if p.grain == grain and p.year is not None}
        if len(of_grain) == 1:
            found.append(Mention(m.start("the"), m.end("the"), of_grain.pop()))
    return found


_DASH = re.compile(r"\s*[-–—]\s*")
_DAYS_JOINT = re.compile(r"\s*(?:[-–—]|(?i:to|through|thru|until|till))\s*")
_FROM_BEFORE = re.compile(r"\b(?i:from)\s+$")


def _ranges(text: str, mentions: list[Mention]) -> list[Mention]:
    """Two mentions written as the ends of a range that is one calendar period ("Oct 1 – Dec
    31", "1 January to 30 June", "Jan–Jun", "April to June 2024") are that period, not its first
    and last day or month. Months joined by "to" after "from" stay apart: "from January to
    March" may be a change."""
    out: list[Mention] = []
    for mention in mentions:
        last = out[-1] if out else None
        merged = _range_of(text, last, mention) if last is not None else None
        if merged is not None:
            out[-1] = merged
        else:
            out.append(mention)
    return out


def _range_of(text: str, first: Mention, second: Mention) -> Mention | None:
    a, b = first.period, second.period
    days = a.grain == b.grain == "day"
    from_ = search_before(_FROM_BEFORE, text, first.start, 12) is not None
    joint = _DASH if a.grain == b.grain == "month" and from_ else _DAYS_JOINT
    if not (days or a.grain == b.grain == "month") or not joint.fullmatch(
        text, first.end, second.start
    ):
        return None
    if a.year is not None and b.year is not None and a.year != b.year:
        return None
    year = b.year or a.year
    start, end = a.bounds(year or 2000)[0], b.bounds(year or 2000)[1]
    exact = _exact(start, end) if start <= end else None
    if exact is None or exact.grain == "day":
        return None
    return Mention(first.start, second.end, replace(exact, year=year))


def _period_of(kind: str, m: re.Match[str]) -> Period | None:
    groups = m.groupdict()
    year = int(groups["year"]) if groups.get("year") else None
    if kind == "iso_day":
        return _day_of(year, int(m.group("m")), int(m.group("d")))
    if kind == "iso_month":
        month = int(m.group("m"))
        return Period("month", year, month) if 1 <= month <= 12 else None
    if kind in ("day_month", "month_day"):
        return _day_of(year, _MONTH_NAMES[m.group("month").lower().rstrip(".")], int(m.group("d")))
    if kind == "quarter":
        q = groups.get("q") or str(_QUARTER_ORDINALS[m.group("ord").lower()])
        return Period("quarter", year, int(q))
    if kind == "half":
        h = groups.get("h") or ("1" if m.group("hw").lower() == "first" else "2")
        return Period("half", year, int(h))
    if kind == "month":
        return Period("month", year, _MONTH_NAMES[m.group("month").lower().rstrip(".")])
    if kind == "other":
        return Period("other", None)
    return Period("year", year) if year else None


def earliest(periods: Iterable[Period]) -> Period | None:
    """The period that starts first ("over the period" runs from it)."""
    return min(periods, key=lambda p: p.start, default=None)


def is_adjacent(earlier: Period, later: Period) -> bool:
    """Is ``earlier`` the period just before ``later`` (December 2024 before January 2025)?"""
    if earlier.grain != later.grain or earlier.grain in ("day", "other"):
        return False
    if earlier.grain == "year":
        return is_year_before(earlier, later)
    per_year = {"half": 2, "quarter": 4, "month": 12}[earlier.grain]
    year = later.year or earlier.year or 2000
    step = (later.index - 2) % per_year + 1
    return earlier.index == step and (earlier.year or year) == year - (later.index == 1)


def is_year_before(earlier: Period, later: Period) -> bool:
    """The same part of the year before ("Q3 2024" for "Q3 2025")."""
    return (
        earlier.grain == later.grain
        and earlier.index == later.index
        and earlier.year is not None
        and later.year is not None
        and earlier.year == later.year - 1
    )


def is_later(a: Period, b: Period) -> bool:
    """Is ``a`` later than ``b``? A period named without a year takes the other's year."""
    if "other" in (a.grain, b.grain):
        return False
    year = a.year or b.year or 2000
    return a.bounds(a.year or year)[0] > b.bounds(b.year or year)[0]
