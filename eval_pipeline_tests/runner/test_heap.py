"""Freezing the long-lived heap for an evaluation's duration."""

from __future__ import annotations

import gc
import subprocess
import sys
import weakref

from eval_pipeline.runner.heap import long_lived_objects_frozen


class Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the collector frees it


def test_objects_alive_at_entry_are_frozen_until_the_block_ends() -> None:
    assert gc.get_freeze_count() == 0
    with long_lived_objects_frozen():
        frozen = gc.get_freeze_count()
        assert frozen > 0
        gc.collect()
        # frozen objects may still die by reference counting (in another thread, say), but a
        # collection does not thaw the heap
        assert gc.get_freeze_count() > 0.99 * frozen, "a collection leaves frozen objects alone"
    assert gc.get_freeze_count() == 0


def test_the_setup_made_inside_the_block_is_frozen_on_request() -> None:
    with long_lived_objects_frozen() as freeze_setup:
        before = gc.get_freeze_count()
        setup = [Node() for _ in range(1000)]
        freeze_setup()
        assert gc.get_freeze_count() >= before + len(setup)
    assert gc.get_freeze_count() == 0


def test_cyclic_garbage_frozen_with_the_heap_is_collected_after_the_block() -> None:
    node = Node()
    ref = weakref.ref(node)
    with long_lived_objects_frozen():
        del node
        gc.collect()
        assert ref() is not None, "frozen: not collected inside the block"
    gc.collect()
    assert ref() is None


def test_a_heap_the_caller_froze_stays_frozen() -> None:
    gc.freeze()
    try:
        mine = gc.get_freeze_count()
        with long_lived_objects_frozen() as freeze_setup:
            setup = [Node() for _ in range(1000)]
            freeze_setup()
            # frozen objects may die by reference counting (in another thread, say), so the
            # count can only fall: freezing the setup would raise it by about len(setup)
            assert 0.99 * mine < gc.get_freeze_count() <= mine, "the setup is not frozen"
        assert 0.99 * mine < gc.get_freeze_count() <= mine, "the caller's heap stays frozen"
        del setup
    finally:
        gc.unfreeze()


EXITING_WITH_A_CYCLE = """
import gc, sys
gc.disable()  # only the interpreter's final collection could free the cycle
from eval_pipeline.runner.heap import no_collection_at_exit

class Cycle:
    def __del__(self):
        print("collected", flush=True)

cycle = Cycle()
cycle.me = cycle
del cycle
if sys.argv[1] == "skip":
    no_collection_at_exit()
    no_collection_at_exit()
"""


def test_the_final_collection_at_exit_is_skipped_on_request() -> None:
    def exit_output(mode: str) -> str:
        done = subprocess.run(
            [sys.executable, "-c", EXITING_WITH_A_CYCLE, mode],
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout

    assert exit_output("collect") == "collected\n", "the exit collects the cycle by default"
    assert exit_output("skip") == "", "the exit's collection left the frozen heap alone"
