"""Handing the encoder's freed memory back to the system (glibc).

The encoder allocates large temporaries whose sizes vary with every batch's longest text. Once
glibc's dynamic mmap threshold has grown past them, they come from its heap, and the freed space
stays resident as fragments: measured, about 56 KB of RSS per text encoded, 450 MiB for 8,000
texts. ``malloc_trim`` after each batch returns it (8,000 texts then hold RSS flat) at no
measurable cost; fixing the mmap threshold instead did the same but encoded 25% slower.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable
from functools import cache


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:  # the process's own symbols: ctypes.util.find_library would fork ldconfig
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # a C library without malloc_trim
        return None
    return trim


def release_free_memory() -> bool:
    """Return the heap's free pages to the system; whether the C library could."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
