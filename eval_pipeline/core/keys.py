"""Run keys and case ids: one rule for both, checked before anything is asked or stored.

A key becomes a Dagster partition key (where ``|`` and ``,`` separate keys), a folder under
``EVAL_HOME/reports`` (so no ``/`` and no leading ``.``) and a column of the results store
(``VARCHAR(255)`` on PostgreSQL, unbounded on SQLite). The rule is narrower than all of them, so a
key that works on one store works on every store, and it is refused before the chatbot is asked.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

MAX_KEY_LENGTH = 128
KEY_PATTERN = r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$"  # also in schemas/golden_dataset.schema.json
KEY_RULE = (
    "use only letters, digits, '_', '.' and '-', not '.' or '-' first, "
    f"at most {MAX_KEY_LENGTH} characters"
)
_KEY = re.compile(KEY_PATTERN)
LOGGED_CASE_PREFIX = "conv."
"""Case ids of logged production conversations start with it; golden case ids may not."""


class InvalidKey(ValueError):
    """A run key or case id outside the rule; its message names the key and the rule."""


def is_valid_key(key: object) -> bool:
    return isinstance(key, str) and _KEY.fullmatch(key) is not None


def shown(key: str, limit: int = 60) -> str:
    """The key as a message quotes it: cut when long, so one line stays one line."""
    if len(key) <= limit:
        return json.dumps(key)
    return f'{json.dumps(key[:limit])[:-1]}…" ({len(key)} characters)'


def check_key(key: str, what: str) -> str:
    """``key`` when it follows the rule, else InvalidKey naming it (``what``: "run", "case")."""
    if not is_valid_key(key):
        raise InvalidKey(f"invalid {what} key {shown(key)}: {KEY_RULE}")
    return key


def new_run_key(kind: str, now: datetime | None = None) -> str:
    """Run keys sort by time and never contain ``|`` or ``,``: ``2026-11-29T020000Z-nightly``."""
    stamp = (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H%M%SZ")
    return check_key(f"{stamp}-{kind}", "run")
