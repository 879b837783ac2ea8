"""The C library's allocator controls, for the child processes that tune it (the encoder worker,
the BKG process); None where the C library lacks the function (not glibc)."""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable
from functools import cache
from typing import Any


@cache
def libc_function(name: str) -> Callable[..., Any] | None:
    """``name`` from the process's own symbols (``ctypes.util.find_library`` would fork
    ldconfig), or None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        function: Callable[..., Any] = getattr(ctypes.CDLL(None), name)
    except (OSError, AttributeError):
        return None
    return function
