"""The process-wide chatbot call limit that overlapping waves share."""

from __future__ import annotations

import threading
import time

from eval_pipeline.runner.call_limit import CallLimit


def _queued(limit: CallLimit, n: int) -> None:
    deadline = time.monotonic() + 5
    while len(limit._waiting) < n:  # the waiters have reached the queue
        assert time.monotonic() < deadline, "waiters never queued"
        time.sleep(0.001)


def test_never_more_calls_than_the_capacity_and_the_capacity_is_used() -> None:
    limit = CallLimit(3)
    state = {"now": 0, "most": 0}
    lock = threading.Lock()

    def call() -> None:
        with limit.slot(0.0):
            with lock:
                state["now"] += 1
                state["most"] = max(state["most"], state["now"])
            time.sleep(0.01)
            with lock:
                state["now"] -= 1

    threads = [threading.Thread(target=call) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert state["most"] == 3
    assert limit.granted == 20


def test_a_freed_slot_goes_to_the_earliest_step_then_in_arrival_order() -> None:
    limit = CallLimit(1)
    served: list[str] = []
    holder = limit.slot(0.0)
    holder.__enter__()

    def call(name: str, priority: float) -> None:
        with limit.slot(priority):
            served.append(name)

    threads = []
    for n, (name, priority) in enumerate([("late", 5.0), ("early", 1.0), ("early-2", 1.0)]):
        threads.append(threading.Thread(target=call, args=(name, priority)))
        threads[-1].start()
        _queued(limit, n + 1)
    holder.__exit__(None, None, None)
    for t in threads:
        t.join()
    assert served == ["early", "early-2", "late"]


def test_waiting_for_a_grant_ends_on_the_grant_or_on_stop() -> None:
    limit = CallLimit(1)
    limit.wait_for_grant(-1, stop=lambda: False)  # already beyond: returns at once
    stopped = threading.Event()
    stopper = threading.Timer(0.05, stopped.set)
    stopper.start()
    limit.wait_for_grant(0, stop=stopped.is_set, poll_s=0.01)
    assert limit.granted == 0
    granted = threading.Thread(target=lambda: limit.slot(0.0).__enter__())
    threading.Timer(0.05, granted.start).start()
    limit.wait_for_grant(0, stop=lambda: False, poll_s=1.0)
    assert limit.granted == 1
