"""Content hashes: the identity of a result is what it says, not when it was made."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def content_hash(value: Any) -> str:
    canonical = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()
