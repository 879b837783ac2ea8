"""Numbers that name a band of the things counted, not a value: "4 that are 30+ days past due",
"12 loans were 90 days or more late", "customers aged 65+", "242 orders over $200". The count
of the clause states the figure; the band only says which things it counts, as a bucket label
does. A bound that counts nothing else ("over 500 customers", "500+ customers", "revenue was
over $1M") stays a claim."""

from __future__ import annotations

import re
from collections.abc import Sequence

from eval_pipeline.core.claims.numbers import ParsedNumber

__all__ = ["band_numbers"]

_OPEN_END = re.compile(
    r"[^\S\n]+(?:[A-Za-z%]+[^\S\n]+)?(?i:or)[^\S\n]+(?i:more|older|over|longer|higher|greater|"
    r"above|later|less|fewer|under|younger|shorter|lower|below)\b"
)
"""A band written open at one end: "30 days or more", "65 or older" (the "+" of "30+" is read
on its own)."""
_AGED = re.compile(r"\b(?i:aged|ages)[^\S\n]+$")
_COUNTED_BEFORE = re.compile(
    r"(?:(?<![\w.,$€£])(?P<count>\d[\d,]*)[^\S\n]+"
    r"(?:(?!(?i:and|or|but|than|while|whereas|so|then)\b)[A-Za-z][\w'’-]*[^\S\n]+){0,3}?"
    r"(?:(?i:that|which|who)[^\S\n]+)?(?i:are|were)"
    r"|(?<![\w.,$€£])(?P<head>\d[\d,]*)[^\S\n]+[a-z][\w'’-]*s"
    r")[^\S\n]+$"
)
"""A count and what it counts, then the band they are in: "4 that are", "363 open loans are",
"242 orders" (the count right before its plural noun)."""
_WINDOW = 60
_PLAIN = frozenset({"count", "number"})


def band_numbers(text: str, numbers: Sequence[ParsedNumber]) -> set[int]:
    """The ``numeral_start`` of each number that names a band: written as one ("30+", "65 or
    older", or a bound of a figure with a unit, "over $200", "more than 90 days") after "aged"
    or after a count of the things it describes in its clause."""
    counts = {n.numeral_start for n in numbers if n.unit == "count" and not n.scaled}
    found: set[int] = set()
    for n in numbers:
        plus = text.startswith("+", n.numeral_end) and not text[n.numeral_end + 1 :][:1].isdigit()
        open_end = plus or _OPEN_END.match(text, n.end) is not None
        if not (open_end or (n.bound is not None and n.unit not in _PLAIN)):
            continue
        head = text[max(0, n.start - _WINDOW) : n.start]
        if _AGED.search(head):
            found.add(n.numeral_start)
            continue
        before = _COUNTED_BEFORE.search(head)
        if before is None:
            continue
        group = "count" if before.group("count") else "head"
        if max(0, n.start - _WINDOW) + before.start(group) in counts:
            found.add(n.numeral_start)
    return found
