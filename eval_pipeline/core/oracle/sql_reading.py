"""What a gold SQL reference's own text says about its numbers: which params bound its date
range, and whether one query counts a subset of what another counts.

A query's author names its params as they like (``:a``/``:b``, ``:s``/``:e``, ``:d1``/``:d2``);
its comparisons say which is the start and which the end. Two queries over the same tables with
the same aggregate, one adding conditions to the other's, are a part and its whole ("flights
over an hour late" of "completed flights"), whatever their labels say.
"""

from __future__ import annotations

import functools

import sqlglot
from sqlglot import exp

from eval_pipeline.core.models import Reference

_STARTS = (exp.GT, exp.GTE)
_ENDS = (exp.LT, exp.LTE)


@functools.lru_cache(maxsize=1024)
def _parsed(sql: str) -> exp.Select | None:
    try:
        tree = sqlglot.parse_one(sql)
    except sqlglot.errors.SqlglotError:
        return None
    return tree if isinstance(tree, exp.Select) else None


def _param_side(node: exp.Binary) -> tuple[str, bool] | None:
    """For a comparison with a param on one side: the param, and whether the column is
    bounded from below by it (``col >= :s``, ``:s <= col``)."""
    left, right = node.this, node.expression
    if isinstance(right, exp.Placeholder) and not isinstance(left, exp.Placeholder):
        return right.name, isinstance(node, _STARTS)
    if isinstance(left, exp.Placeholder) and not isinstance(right, exp.Placeholder):
        return left.name, isinstance(node, _ENDS)
    return None


def date_bounds(sql: str | None) -> tuple[str, str] | None:
    """The params a query compares as its range's start and end (``BETWEEN :a AND :b``,
    ``>= :s … < :e``): one param on each side and none on both, since ``joined <= :d AND
    closed > :d`` is one day, not a range."""
    tree = _parsed(sql) if sql else None
    if tree is None:
        return None
    starts, ends = set(), set()
    for between in tree.find_all(exp.Between):
        low, high = between.args.get("low"), between.args.get("high")
        if isinstance(low, exp.Placeholder) and isinstance(high, exp.Placeholder):
            starts.add(low.name)
            ends.add(high.name)
    for node in tree.find_all(*_STARTS, *_ENDS):
        side = _param_side(node)
        if side is not None:
            (starts if side[1] else ends).add(side[0])
    if len(starts) != 1 or len(ends) != 1 or starts & ends:
        return None
    return next(iter(starts)), next(iter(ends))


def aggregated(sql: str | None) -> frozenset[str]:
    """The output columns a query computes with an aggregate ("COUNT(*) AS pos"): quantities,
    whatever their names look like ("pos" may read as a position)."""
    tree = _parsed(sql) if sql else None
    if tree is None:
        return frozenset()
    return frozenset(e.alias_or_name for e in tree.expressions if e.find(exp.AggFunc))


def counted(sql: str | None) -> frozenset[str]:
    """The output columns that are a bare ``COUNT(...)``: counts, whatever their names say
    ("claims_over_100" counts claims; it holds no money)."""
    tree = _parsed(sql) if sql else None
    if tree is None:
        return frozenset()
    bare = (e for e in tree.expressions if isinstance(e.unalias(), exp.Count))
    return frozenset(e.alias_or_name for e in bare)


def _conditions(tree: exp.Select) -> frozenset[str]:
    where = tree.args.get("where")
    if where is None:
        return frozenset()
    condition = where.this
    parts = condition.flatten() if isinstance(condition, exp.And) else [condition]
    return frozenset(part.sql() for part in parts)


def _body(tree: exp.Select) -> tuple[str, ...]:
    """Everything but the conditions and the aliases: what is aggregated, over which rows
    grouped how."""
    selected = tuple(e.unalias().sql() for e in tree.expressions)
    rest = (tree.args.get(k) for k in ("from_", "joins", "group", "having"))
    return selected + tuple(
        "" if r is None else ",".join(x.sql() for x in r) if isinstance(r, list) else r.sql()
        for r in rest
    )


def narrows(part: Reference, whole: Reference) -> bool:
    """Does query ``part`` compute the same aggregate as query ``whole`` over the same tables,
    called with the same values, with all of its conditions and more, so that what it counts
    is a subset of what the whole counts?"""
    if not whole.params.items() <= part.params.items():
        return False
    part_tree = _parsed(part.sql) if part.sql else None
    whole_tree = _parsed(whole.sql) if whole.sql else None
    if part_tree is None or whole_tree is None or _body(part_tree) != _body(whole_tree):
        return False
    return _conditions(whole_tree) < _conditions(part_tree)
