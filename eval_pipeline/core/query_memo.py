"""The warehouse handle BKG functions receive: each distinct read runs once per runtime.

KPI definitions often read the same base rows and filter them afterwards: the demo's
``milestones_completed_by_month`` reads every completed milestone of a type and region, then
counts the months of the window asked about. Across a golden set the same read recurs for every
window, and the read was 18 ms of the KPI's 23 ms. The results live exactly as long as the
runtime's own memo of function results, so they are no staler than those.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import pandas as pd

from eval_pipeline.core.db import Database

MAX_ENTRIES = 256
MAX_ROWS = 100_000  # a larger read is not kept: memory, not time, would then run short


class MemoisedQueries:
    """``Database`` whose ``query`` and ``scalar`` answer a repeated read from memory.

    Every caller gets its own copy of a frame, so a function that edits what it read cannot
    change what the next one reads. Anything else is the wrapped handle's.
    """

    def __init__(self, db: Database) -> None:
        self._db = db
        self._results: OrderedDict[tuple[str, str, str], Any] = OrderedDict()
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._db, name)

    def query(self, sql: str, **params: Any) -> pd.DataFrame:
        frame = self._remembered("query", sql, params, lambda: self._db.query(sql, **params))
        return frame.copy()

    def scalar(self, sql: str, **params: Any) -> Any:
        return self._remembered("scalar", sql, params, lambda: self._db.scalar(sql, **params))

    def _remembered(
        self, kind: str, sql: str, params: dict[str, Any], read: Callable[[], Any]
    ) -> Any:
        key = (kind, sql, json.dumps(params, sort_keys=True, default=str))
        with self._lock:
            if key in self._results:
                self._results.move_to_end(key)
                return self._results[key]
        result = read()
        if isinstance(result, pd.DataFrame) and (result.columns.empty or len(result) > MAX_ROWS):
            return result  # no rows to keep (a statement without a result) or too many
        with self._lock:
            self._results[key] = result
            if len(self._results) > MAX_ENTRIES:
                self._results.popitem(last=False)
        return result
