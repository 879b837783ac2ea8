"""What the references hold: every number of every recomputed reference as a fact, with the
labels of its row, the periods it is for, the meaning of its column and its unit.

A table row ``["Jane Smith", 3, 163100.0]`` under ``["rep", "sales", "total_revenue"]`` gives two
facts labelled "Jane Smith": a count of sales and an amount of revenue (the unit comes from the
declared ``column_units``, else from the column's name, else from the reference's unit). A
reference called with ``{"clinic": "Riverside Clinic", "year": 2024}`` scopes its facts to that
clinic and that year. Ids and years in a table are labels, not facts.
"""

from __future__ import annotations

import calendar
import datetime as dt
import functools
import itertools
import math
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import sqlglot

from eval_pipeline.core.measures import Measure, measures_named
from eval_pipeline.core.models import Evidence, ReferenceValue, Unit
from eval_pipeline.core.oracle.periods import (
    Grain,
    Period,
    as_period,
    param_periods,
    parse_label,
    period_mentions,
    series_periods,
)
from eval_pipeline.core.oracle.sql_reading import aggregated, counted
from eval_pipeline.core.oracle.units import RATES, unit_from_name

_ID_COLUMN = re.compile(
    r"^(?i:id|.*_id|.*_code|code|.*_no|no|rank|position|pos|#)$|^.*[a-z0-9]I[dD]$"
)
"""Columns of identifiers: snake_case ``claim_id``, camelCase ``claimId`` — not ``amount_paid``."""
_YEAR_COLUMN = re.compile(r"(?i)^(?:year|yr|fiscal_year|fy|.*_year)$")


def key(label: str) -> str:
    """The form labels are compared in: case and underscores do not matter."""
    return " ".join(str(label).replace("_", " ").split()).casefold()


_STOP = frozenset(
    (
        *("the", "and", "for", "with", "per", "by", "of", "in", "on", "at", "to", "from", "avg"),
        *("has", "had", "have", "is", "was", "are", "were", "its", "than", "total", "sum"),
        *("number", "count", "value", "amount", "get", "calc", "kpi", "all"),
    )
)


def tokens(text: str) -> frozenset[str]:
    """Meaningful words of a name or a phrase, singular, lower case: "noShowRate",
    "no_show_rate" and "no-show rates" give the same words."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", str(text))
    words = re.findall(r"[a-z0-9]+", spaced.lower())
    return frozenset(stem(w) for w in words if len(w) >= 2 and w not in _STOP)


def numbered(text: str) -> frozenset[str]:
    """A one-digit number after a word of a name, with the word: "menu3" of "set_menu_3_units"
    and of a header "Set Menu 3". Words alone leave the digit out, though it is what tells such
    columns apart."""
    words = re.findall(r"[a-z0-9]+", str(text).lower())
    return frozenset(
        f"{a}{b}"
        for a, b in itertools.pairwise(words)
        if a.isalpha() and len(b) == 1 and b.isdigit()
    )


_SUFFIXES = (
    "ations",
    "ation",
    "ions",
    "ion",
    "ings",
    "ing",
    "ers",
    "er",
    "ed",
    "es",
    "s",
    "ly",
    "e",
)


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A crude stem, so "collected", "collection" and "collections" meet."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4 and not word.endswith("ss"):
            return word[: -len(suffix)]
    return word


_PERIOD_WORD = re.compile(
    r"^(?:(?:19|20)\d{2}(?:q[1-4]|h[12]|m\d{1,2})?|fy\d{2}(?:\d{2})?|q[1-4]|h[12]|[ymq]td)$"
)
_MONTH_WORDS = frozenset(
    w
    for i in range(1, 13)
    for name in (calendar.month_name[i].lower(), calendar.month_abbr[i].lower())
    for w in (name, stem(name))
) | {"sept"}


def metric_words(words: frozenset[str]) -> frozenset[str]:
    """The words of a name that say what is measured, without those that say when ("2024",
    "q1", "fy25", "march", "ytd"): "2024 claims" and "large losses 2024" are two quantities of
    one year, not one quantity."""
    return frozenset(w for w in words if not (_PERIOD_WORD.match(w) or w in _MONTH_WORDS))


@dataclass(frozen=True)
class Fact:
    """One number a reference holds and what it is about."""

    value: float
    unit: Unit | None
    labels: frozenset[str]
    """Keys of the entity labels of its row or mapping key (not periods)."""
    names: tuple[str, ...]
    """The same labels as written in the reference."""
    shared: frozenset[str]
    """Those of its labels that other rows of its reference have too (a category, the region
    of monthly rows): naming one names several rows, not this one."""
    periods: tuple[Period, ...]
    """The periods of its row (a date label) and of its reference's params."""
    row_period: Period | None
    column: str | None
    meaning: frozenset[str]
    """Words of its column, its function and its reference's label."""
    own_meaning: frozenset[str]
    """Words of its column alone (of its function for a scalar)."""
    series: tuple[int, str | None]
    """(reference, column): the numbers a ranking or a total is over."""
    position: int
    source: ReferenceValue = field(compare=False, hash=False)

    @functools.cached_property
    def scope(self) -> frozenset[str]:
        return frozenset(key(label) for label in scope_labels(self.source))

    @functools.cached_property
    def filters(self) -> frozenset[str]:
        """Keys of its reference's entity params (not its own label, which names the reference
        without narrowing it): fewer of them, the same function, a wider whole."""
        params = self.source.reference.params.values()
        return frozenset(
            key(str(v)) for v in params if _is_label(v) and parse_label(v) == (None, None)
        )

    @property
    def quantity_name(self) -> str:
        """The raw names of its column, its reference's label and its function (an SQL
        reference's alias for its one cell): what says whether it is a change, a score or a
        figure where less is better."""
        ref = self.source.reference
        names = (
            self.column,
            ref.label,
            ref.target if ref.kind != "sql" else scalar_name(self.source),
        )
        return " ".join(n for n in names if n)

    @property
    def words(self) -> frozenset[str]:
        """Its meaning and every word of its names and scope: whatever a claim may name it by."""
        return self.meaning | tokens(" ".join([*self.names, *self.scope]))

    @property
    def measures(self) -> tuple[Measure | None, Measure | None]:
        """(the unit of measure its values are in, the one they are per), by its column's name
        (a table's other columns are not it: "loads" beside "top_members_by_tonnes" counts
        loads), else by its reference's names: "net_tonnes", "avg_price_per_tonne"."""
        return measures_named(self.column or self.quantity_name)

    def is_for(self, entity: str) -> bool:
        """Is the fact about this entity: its row's label, else its reference's scope?"""
        return entity in self.labels or (not self.labels and entity in self.scope)

    def describe(self) -> str:
        """How a reason names the fact: its row's labels, else its reference (an SQL reference
        by its alias, the query itself being in the evidence)."""
        ref = self.source.reference
        own = ref.target if ref.kind != "sql" else scalar_name(self.source) or "the SQL reference"
        parts = list(self.names) or list(scope_labels(self.source)) or [own]
        if self.row_period is not None and self.row_period.key() not in parts:
            parts.append(self.row_period.key())
        name = " / ".join(parts)
        return f"{name} [{self.column}]" if self.column else name

    def evidence(self) -> Evidence:
        ref = self.source.reference
        return Evidence(
            source=ref.target,
            kind=ref.kind,
            params=dict(ref.params),
            label=self.describe(),
            value=self.value,
            sql=ref.sql,
        )


def entity_scope(fact: Fact) -> frozenset[str]:
    """The entities a fact's reference is for, without the reference's own label: a label
    names the figure ("large losses 2024", "all orders", "2023-24"), so two references told
    apart only by their labels are for the same rows."""
    label = fact.source.reference.label
    return fact.scope - {key(label)} if label else fact.scope


def fmt_value(value: float) -> str:
    """A value as reasons show it: grouped digits, no float noise."""
    return f"{value:,.10g}" if abs(value) < 1e15 else f"{value:.6g}"


def by_series(facts: Sequence[Fact]) -> dict[tuple[int, str | None], list[Fact]]:
    """The facts of each series (one column of one reference), in order."""
    groups: dict[tuple[int, str | None], list[Fact]] = {}
    for fact in facts:
        groups.setdefault(fact.series, []).append(fact)
    return groups


def _number(item: Any) -> float | None:
    if isinstance(item, bool):
        return None
    if isinstance(item, int | float):
        return float(item) if math.isfinite(item) else None
    if isinstance(item, str) and re.fullmatch(r"-?\d+\.\d+", item.strip()):
        return float(item)
    return None


def _is_label(item: Any) -> bool:
    if not isinstance(item, str) or _number(item) is not None:
        return False
    text = item.strip()
    return len(text) >= 2 and not text.isdigit()


def is_code(item: Any) -> bool:
    """A number written as text ("99213", a party size "1"): the query kept it a label, a code
    or a band, not a quantity. A row of an answer's table may name it, prose cannot."""
    return isinstance(item, str) and item.strip().isdigit()


def scope_labels(rv: ReferenceValue) -> tuple[str, ...]:
    """Entity labels of a whole reference: its string params that are not periods
    ("clinic": "Riverside Clinic") and its own label, unless that names a period ("Q3 2024"
    beside ``year: 2024, quarter: 3`` is when, not whom)."""
    named = [*rv.reference.params.values(), rv.reference.label]
    labels = [str(v) for v in named if _is_label(v) and parse_label(v) == (None, None)]
    return tuple(dict.fromkeys(labels))


@dataclass
class _Row:
    names: list[str]
    period: Period | None
    numbers: list[tuple[str | None, float]]


def _records(value: Any) -> list[dict[str, Any]] | None:
    if isinstance(value, Mapping) and "rows" in value and "columns" in value:
        columns = [str(c) for c in value["columns"]]
        return [
            dict(row) if isinstance(row, Mapping) else dict(zip(columns, row, strict=False))
            for row in value["rows"] or []
        ]
    if isinstance(value, list) and value and all(isinstance(r, Mapping) for r in value):
        return [dict(r) for r in value]
    return None


def _date_columns(records: Sequence[Mapping[str, Any]]) -> dict[str, Grain]:
    """Columns holding dates, with the grain of their series."""
    dated: dict[str, list[dt.date]] = {}
    for record in records:
        for column, cell in record.items():
            _, date = parse_label(cell)
            if date is not None:
                dated.setdefault(str(column), []).append(date)
    return {c: _grain_of(c, dates) for c, dates in dated.items()}


_YEAR_WORD = re.compile(r"(?i)(?:^|_|\b)(?:year|yr)(?:s|ly)?(?:$|_|\b)")


def _grain_of(column: str, dates: Sequence[dt.date]) -> Grain:
    """The grain of a column of dates; first days of the year under a name that says year
    ("year_start") are years, not the first quarter of each."""
    if _YEAR_WORD.search(column) and all((d.month, d.day) == (1, 1) for d in dates):
        return "year"
    return series_periods(dates)


def _key_column(records: Sequence[Mapping[str, Any]]) -> str | None:
    """A first column of distinct small integers ("score" 1–5, a code) keys the rows."""
    if not records or len(records[0]) < 2:
        return None
    first = next(iter(records[0]))
    values = [r.get(first) for r in records]
    small = all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 100 for v in values)
    if small and len(set(values)) == len(values) >= 2:
        return str(first)
    return None


def _table_rows(
    records: Sequence[Mapping[str, Any]], prefix: Sequence[str], measured: frozenset[str]
) -> Iterator[_Row]:
    """The rows of a table; ``measured`` are the columns its query aggregates, never ids."""
    grains = _date_columns(records)
    keyed = _key_column(records)
    for record in records:
        names = list(prefix)
        period = None
        numbers: list[tuple[str | None, float]] = []
        for column, cell in record.items():
            column = str(column)
            labelled, date = parse_label(cell)
            if column in grains and date is not None:
                period = as_period(date, grains[column])
            elif labelled is not None and (
                _YEAR_COLUMN.match(column) or not isinstance(cell, int | float)
            ):
                period = labelled
            elif (
                (_ID_COLUMN.match(column) and column not in measured) or column == keyed
            ) and _number(cell) is not None:
                names.append(f"{column} {cell}")
            elif _is_label(cell) or is_code(cell):
                names.append(str(cell))
            else:
                number = _number(cell)
                if number is not None:
                    numbers.append((column, number))
        yield _Row(names, period, numbers)


_METRIC_KEY = re.compile(
    r"(?i)rate|count|total|avg|average|score|pct|percent|sum|mean|median|ratio|share|days|hours|"
    r"minutes|amount|revenue|cost|value|number|num_|_num|^n_|_n$"
)


def _metric_key(key: Any) -> bool:
    """A mapping key naming a quantity ("site_count", "completion_rate"), not an entity."""
    text = str(key)
    return unit_from_name(text) is not None or bool(_METRIC_KEY.search(text))


def _mapping_rows(
    mapping: Mapping[Any, Any], prefix: Sequence[str], outer: Period | None = None
) -> Iterator[_Row]:
    values = list(mapping.values())
    metric_keys = sum(map(_metric_key, mapping))
    if values and all(_number(v) is not None for v in values) and 2 * metric_keys >= len(values):
        numbers: list[tuple[str | None, float]] = [
            (str(k), n) for k, v in mapping.items() if (n := _number(v)) is not None
        ]
        yield _Row(list(prefix), outer, numbers)  # a record of named quantities: a scorecard
        return
    for name, item in mapping.items():
        period, date = parse_label(name)
        if date is not None:
            period = as_period(date, "day")
        names = [*prefix] if period is not None else [*prefix, str(name)]
        period = period or outer
        number = _number(item)
        records = _records(item)
        if number is not None:
            yield _Row(names, period, [(None, number)])
        elif records is not None:
            yield from _table_rows(records, names, frozenset())
        elif isinstance(item, Mapping) and all(_number(v) is not None for v in item.values()):
            row_numbers: list[tuple[str | None, float]] = [
                (str(column), value)
                for column, cell in item.items()
                if (value := _number(cell)) is not None and not _ID_COLUMN.match(str(column))
            ]
            yield _Row(names, period, row_numbers)
        elif isinstance(item, Mapping):
            yield from _mapping_rows(item, names, period)


def _rows(value: Any, measured: frozenset[str] = frozenset()) -> list[_Row]:
    records = _records(value)
    if records is not None:
        return list(_table_rows(records, (), measured))
    if isinstance(value, Mapping):
        return list(_mapping_rows(value, ()))
    if isinstance(value, list):
        return [_Row([], None, [(None, n)]) for n in map(_number, value) if n is not None]
    number = _number(value)
    return [] if number is None else [_Row([], None, [(None, number)])]


_PLURAL = re.compile(
    r"(?i)(?:^|_|\b)[a-z]{3,}[^sui_\W]s$|(?:^|_)[a-z]{2,}[^sui_\W]s"
    r"_(?!(?:paid|spent|earned|charged|refunded|invoiced|collected)$)[a-z]+(?:ed|en|wn|ld|de|nt|ing)$"
)
"""A plural noun ending the name, alone or before the participle that says what befell the
things counted ("active_accounts", "legs_flown", "claims_filed"); never a money participle
("fares_collected" may be an amount)."""


def _unit_of(
    rv: ReferenceValue,
    column: str | None,
    values: list[float],
    numeric: int,
    *,
    beside_rates: bool = False,
) -> Unit | None:
    """The unit of a column: declared, else its name, else the reference's when it is the only
    numeric column (or for a mapping); in a rate reference, whole numbers above 100 or beside a
    column of fractional rates are counts; a rate column holding values up to 1 is a fraction;
    a name read as a count ("sales") over values with fractions holds no count."""
    if column is not None and column in rv.column_units:
        return rv.column_units[column]
    whole = bool(values) and all(v.is_integer() for v in values)
    largest = max((abs(v) for v in values), default=0.0)
    unit: Unit | None = None
    if column is not None:
        unit = unit_from_name(column)
        if unit == "count" and values and not whole:
            unit = None  # "net_sales" holding cents is an amount, not a number of sales
        if unit is None and whole and _PLURAL.search(column):
            unit = "count"  # whole numbers under a plural noun: "active_accounts", "seats"
    if unit is None and column is None and scalar_name(rv):
        unit = unit_from_name(scalar_name(rv))
        if unit is None and whole:
            unit = "count" if _PLURAL.search(scalar_name(rv)) else None
    if rv.shape != "mapping" and (column or scalar_name(rv)) in counted(rv.reference.sql):
        unit = "count"  # a bare COUNT, whatever its name says: "late_fee_invoices"
    if unit is None and (column is None or numeric == 1):
        if rv.unit in RATES and whole:
            return "count" if largest > 100 else None  # counts in a rate KPI
        unit = rv.unit
    if unit is None and rv.unit in RATES and whole:
        return "count" if largest > 100 or beside_rates else None
    if unit is None and rv.unit in RATES and values and not whole:
        unit = rv.unit if largest <= 100 else None
    if unit == "percent" and values and largest <= 1.0 and rv.unit != "percent":
        unit = "fraction"
    return unit


def _key_unit(rv: ReferenceValue, row: _Row, number: float) -> Unit | None:
    """A mapping's value: the unit ``column_units`` declares for its key, else the reference's."""
    declared = [rv.column_units[n] for n in row.names if n in rv.column_units]
    return declared[0] if declared else _unit_of(rv, None, [number], 1)


def scalar_name(rv: ReferenceValue) -> str:
    """The alias of an SQL reference's single column ("SELECT COUNT(*) AS audits" → audits):
    a one-cell result is stored as a scalar, and its name still says what it counts."""
    if rv.reference.kind != "sql" or rv.shape != "scalar" or not rv.reference.sql:
        return ""
    try:
        tree = sqlglot.parse_one(rv.reference.sql)
    except sqlglot.errors.ParseError:
        return ""
    selects = getattr(tree, "selects", [])
    return str(selects[0].alias) if len(selects) == 1 and selects[0].alias else ""


_CHANGE_NAME = re.compile(
    r"(?i)change|delta|diff|growth|increase|decrease|variation|variance|yoy|qoq|gain(?!ed)"
    r"|drop(?!ped|_?rate)"
    r"|(?<![a-z])(?:mom|wow|vs)(?![a-z])"  # not "moment", "vswitch"
)


@functools.cache
def _named_period(column: str) -> Period | None:
    """The one period a column's name holds, read as words ("q4_2025_units" is "Q4 2025")."""
    words = " ".join(w.capitalize() for w in re.split(r"[\W_]+", column) if w)
    found = [m.period for m in period_mentions(words) if m.period.grain != "other"]
    return found[0] if len(found) == 1 else None


def column_period(fact: Fact) -> Period | None:
    """The one period its column's name holds ("orders_2024", "q4_2025_units")."""
    return _named_period(fact.column) if fact.column else None


def _period_columns(words: Mapping[str | None, frozenset[str]]) -> dict[str | None, Period]:
    """The period of each column that is one quantity in one of several periods: columns whose
    names differ only by the period each holds ("orders_2024", "orders_2025")."""
    named = {c: p for c in words if c is not None and (p := _named_period(c)) is not None}
    quantities: dict[frozenset[str], list[str]] = {}
    for column in named:
        quantities.setdefault(metric_words(words[column]), []).append(column)
    return {
        c: named[c]
        for columns in quantities.values()
        if len({named[c] for c in columns}) > 1
        for c in columns
    }


def is_change(fact: Fact) -> bool:
    """A fact that is itself a change (so named by its column, function, alias or label),
    which a change claim is compared with directly."""
    return bool(_CHANGE_NAME.search(f"{fact.quantity_name} {scalar_name(fact.source)}"))


_TOTAL_LABEL = re.compile(
    r"(?i)^\W*(?:all|total|overall|combined|grand\s+total)\b|\b(?:total|overall)\W*$|-wide\W*$"
)
"""A label naming every row together: "All regions", "Total", "Company-wide"."""


def names_every_row(label: str) -> bool:
    """Does the label name every row together ("All regions", "Network total")?"""
    return _TOTAL_LABEL.search(label) is not None


def is_total_row(fact: Fact) -> bool:
    """A row whose label names every row together: its column's total or overall figure."""
    return any(map(names_every_row, fact.names))


_BALANCE_NAME = re.compile(r"(?i)(?<![a-z])net(?![a-z])")


def balances(facts: Sequence[Fact]) -> set[str]:
    """Quantities that are net balances ("net_ports", "net adds"): named net, and below zero
    somewhere, so one flow less another and signed whichever way it went; a signed figure
    ("+5", "-44") states such a value as it is. Net sales, never negative, is a level."""
    named = [f for f in facts if _BALANCE_NAME.search(f"{f.quantity_name} {scalar_name(f.source)}")]
    return {f.quantity_name for f in named if f.value < 0}


def reference_facts(rv: ReferenceValue, index: int) -> list[Fact]:
    """Every number of a recomputed reference; nothing for an errored one."""
    if rv.error is not None:
        return []
    rows = _rows(rv.value, aggregated(rv.reference.sql))
    by_column: dict[str | None, list[float]] = {}
    for row in rows:
        for column, number in row.numbers:
            by_column.setdefault(column, []).append(number)
    numeric = len(by_column)
    fractional = {c for c, values in by_column.items() if not all(v.is_integer() for v in values)}
    units = {
        c: _unit_of(rv, c, values, numeric, beside_rates=bool(fractional - {c}))
        for c, values in by_column.items()
    }
    ref = rv.reference
    meaning_base = tokens(ref.label or "") | tokens(scalar_name(rv))
    meaning_base |= tokens(ref.target) if ref.kind != "sql" else frozenset()
    params = tuple(param_periods(ref.params, ref.sql))
    column_words = {c: tokens(c or "") | numbered(c or "") for c in by_column}
    pivot = _period_columns(column_words)
    rows_naming = Counter(key(n) for row in rows for n in set(row.names))
    facts = []
    for position, row in enumerate(rows):
        labels = frozenset(key(n) for n in row.names)
        periods = params + ((row.period,) if row.period is not None else ())
        for column, number in row.numbers:
            pivoted = (pivot[column],) if column in pivot and row.period is None else ()
            facts.append(
                Fact(
                    value=number,
                    unit=units[column] if column is not None else _key_unit(rv, row, number),
                    labels=labels,
                    names=tuple(row.names),
                    shared=frozenset(n for n in labels if rows_naming[n] > 1),
                    periods=periods + pivoted,
                    row_period=row.period,
                    column=column,
                    meaning=meaning_base | column_words[column],
                    own_meaning=column_words[column] if column else meaning_base,
                    series=(index, column),
                    position=position,
                    source=rv,
                )
            )
    return facts


def cut_short(series: Sequence[Fact]) -> bool:
    """Does the series' reference list only N rows, N one of its params ("top_customers"
    with n=10)? Its rows are the first N of an ordering, and their total is theirs alone."""
    params = series[0].source.reference.params.values() if series else ()
    return any(isinstance(v, int) and not isinstance(v, bool) and v == len(series) for v in params)


def all_facts(references: Sequence[ReferenceValue]) -> list[Fact]:
    facts = [f for i, rv in enumerate(references) for f in reference_facts(rv, i)]
    return _rates_across_calls(facts)


def _quantity(fact: Fact) -> tuple[str, str | None, frozenset[str]]:
    """What a fact is a value of, whatever the params: a column of its function or query, or a
    key of its mapping."""
    labels = fact.labels if fact.column is None else frozenset()
    return fact.source.reference.target, fact.column, labels


def _rates_across_calls(facts: list[Fact]) -> list[Fact]:
    """A whole number a rate reference returns is left of no unit, since it may count things;
    when the same function or query, called with other params, returns that column (or that
    key of its mapping) as a rate with a fraction, the whole number is that rate too
    ("churn_rate" 24.0 beside 14.21)."""
    rated: dict[tuple[str, str | None, frozenset[str]], set[Unit]] = {}
    for fact in facts:
        if fact.unit in RATES:
            rated.setdefault(_quantity(fact), set()).add(fact.unit)
    out = []
    for fact in facts:
        units = rated.get(_quantity(fact), set())
        if fact.unit is None and fact.source.unit in units and len(units) == 1:
            fact = replace(fact, unit=fact.source.unit)
        out.append(fact)
    return out
