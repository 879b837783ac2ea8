"""Keeping the garbage collector's full passes cheap while an evaluation runs.

A full collection walks every tracked object, and once Dagster is imported and an instance is
up there are about 320,000 of them: measured, seven full passes of up to 315 ms each over a
500-case evaluation, 1.2 s holding the GIL while answers stream in. Those objects live as long
as the evaluation, so keeping them out of the collector's sight until it ends frees nothing later.
"""

from __future__ import annotations

import atexit
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager


def _no_op() -> None:
    return None


@contextmanager
def long_lived_objects_frozen() -> Iterator[Callable[[], None]]:
    """Exclude every object alive now from collections until the block ends.

    Yields a function that excludes the objects alive at its call too (those set up for the
    evaluation). Cyclic garbage already present is collected after the block. A caller that
    froze its own heap (a pre-fork server, say) is left as it is.
    """
    if gc.get_freeze_count():
        yield _no_op
        return
    gc.freeze()
    try:
        yield gc.freeze
    finally:
        gc.unfreeze()


def no_collection_at_exit() -> None:
    """Freeze the heap when the interpreter exits, so its final full collection skips it.

    That collection walks every object Dagster and an evaluation left, only for the process to
    end: measured 1.1 to 1.5 s after one case's summary was printed. Other exit handlers and
    module teardown still run; what is skipped is collecting cycles the exit frees anyway.
    """
    atexit.unregister(gc.freeze)  # once, however often a process calls this
    atexit.register(gc.freeze)
