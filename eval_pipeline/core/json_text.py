"""JSON from outside (input files, stored summaries) with a bound on its nesting.

``json.loads`` raises ``RecursionError`` on input nested about a thousand levels deep, and input a
few hundred levels deep still passes it only to overflow the recursive code that walks it later
(schema validation, hashing, model validation). No input of this tool is legitimately nested
more than a few levels, so deeper input is refused with a ``ValueError`` at the door.
"""

from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 64


class TooDeep(ValueError):
    """JSON nested deeper than the bound; a ValueError, so every JSON error handler takes it."""


def depth_over(value: Any, limit: int) -> bool:
    """Whether arrays and objects nest more than ``limit`` levels (walked without recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        if isinstance(item, dict | list):
            if level > limit:
                return True
            stack.extend((child, level + 1) for child in children if isinstance(child, dict | list))
    return False


def loads(text: str | bytes, *, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads`` that raises ``json.JSONDecodeError`` for bad JSON and ``TooDeep`` (never
    ``RecursionError``) for JSON nested more than ``max_depth`` levels."""
    too_deep = TooDeep(f"JSON nested more than {max_depth} levels deep")
    try:
        value = json.loads(text)
    except RecursionError:
        raise too_deep from None
    if depth_over(value, max_depth):
        raise too_deep
    return value
