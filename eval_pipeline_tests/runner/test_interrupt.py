"""A signal stops an evaluation at once, whichever of its threads the kernel hands it to."""

import signal
import subprocess
import sys

from eval_pipeline.settings import PROJECT_ROOT

# The work sends SIGTERM to its own thread, then waits for ever: only the main thread's handler
# can end the process.
SELF_SIGNALLED = """
import signal, threading, time
from eval_pipeline.runner.interrupt import stoppable

def work():
    time.sleep(1)  # the main thread is waiting by now
    signal.pthread_kill(threading.get_ident(), signal.SIGTERM)
    threading.Event().wait()

stoppable(work)
"""


def test_a_signal_delivered_to_the_evaluation_thread_still_stops_the_process() -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", SELF_SIGNALLED],
        cwd=PROJECT_ROOT,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _, err = process.communicate(timeout=120)  # a hang is the bug; this only bounds it
    finally:
        process.kill()
    assert process.returncode == 128 + signal.SIGTERM
    assert err.startswith("stopped by SIGTERM: the results of finished cases are stored")
