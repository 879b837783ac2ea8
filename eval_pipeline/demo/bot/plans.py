"""What the demo bot decides to say before it is formatted, faulted and streamed.

An intent (see ``intents.py``) turns a question into an ``AnswerPlan``: the SQL the bot ran, the
rows it got, and the prose with one placeholder per stated number. Keeping numbers as ``Fact``s
lets fault injection and number formatting work on any intent without knowing the domain.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

FactUnit = Literal["percent", "count", "currency", "days", "number"]


@dataclass(frozen=True)
class Fact:
    """One number the answer states. ``label`` is the entity it belongs to (None: the headline)."""

    value: float
    unit: FactUnit
    decimals: int = 0
    label: str | None = None


@dataclass
class SqlCall:
    sql: str
    rows: list[dict[str, Any]]


@dataclass
class AnswerPlan:
    """``template`` holds ``{0}``, ``{1}`` … where ``facts[i]`` is rendered.

    ``alternatives`` maps a fault kind (``wrong_filter``, ``wrong_grain``) to the facts the same
    template would state had the bot run the faulty SQL in ``alternative_sql[kind]``; an intent
    offers only the faults that make sense for it.
    """

    intent: str
    template: str
    facts: list[Fact] = field(default_factory=list)
    sql_calls: list[SqlCall] = field(default_factory=list)
    alternatives: dict[str, list[Fact]] = field(default_factory=dict)
    alternative_sql: dict[str, list[SqlCall]] = field(default_factory=dict)
    reasoning: str = ""
    refusal: bool = False
