"""The sentence encoder's own process (see ``core.embeddings``): ``python -m`` this module.

A plain subprocess rather than ``multiprocessing``, whose spawn would run the caller's main
script again in the child. Requests and replies are pickles on the child's stdin and stdout,
between two processes of the same code; the child's own prints go to stderr.
"""

from __future__ import annotations

import os
import pickle
import sys
from pathlib import Path
from typing import IO, Any

import numpy as np

from eval_pipeline.core.embeddings.malloc import release_free_memory

# One intra-op thread: the worker shares a small machine with the chatbot and the pipeline's
# threads, where a second OpenMP thread spins for a core it rarely gets (measured 4x slower).
TORCH_THREADS = 1


def send(stream: IO[bytes], message: Any) -> None:
    pickle.dump(message, stream, protocol=pickle.HIGHEST_PROTOCOL)
    stream.flush()


def serve(path: Path, requests: IO[bytes], replies: IO[bytes]) -> None:
    """Load the model, say ``("ready", dimension)``, then answer each list of texts with
    ``("ok", vectors, trimmed)`` until stdin closes; a failure is ``("error", message)``."""
    try:
        import torch

        from eval_pipeline.core.embeddings.minilm import MiniLM

        torch.set_num_threads(TORCH_THREADS)
        model = MiniLM(path)
    except Exception as exc:  # reported to the caller, which owns the error's wording
        send(replies, ("error", f"{type(exc).__name__}: {exc}"))
        return
    send(replies, ("ready", model.dimension))
    while True:
        try:
            texts, batch_size = pickle.load(requests)
        except EOFError:
            return
        try:
            vectors = np.asarray(model.encode(texts, batch_size=batch_size), dtype=np.float32)
        except Exception as exc:
            send(replies, ("error", f"{type(exc).__name__}: {exc}"))
            continue
        # the batch's temporaries would otherwise stay resident as fragments (see core.malloc)
        send(replies, ("ok", vectors, release_free_memory()))


def main() -> None:
    """Serve, then end without tearing torch down (every reply is flushed already): the
    interpreter's teardown took 0.4 s, for which whatever reads the caller's stderr, which this
    process shares, waited after the caller had exited. The BKG worker ends the same way."""
    replies = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints must not corrupt replies
    serve(Path(sys.argv[1]), sys.stdin.buffer, replies)
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
