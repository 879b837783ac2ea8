"""The local sentence-embedding model: offline, normalised, ordered, cached and thread-safe."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, cast

import numpy as np
import pytest

from eval_pipeline.core.embeddings.encoder import (
    EmbeddingCache,
    EmbeddingError,
    Prefetcher,
    SentenceEmbedder,
    bundled_model_path,
    cosine_ramp,
    default_embedder,
    text_key,
)


@pytest.fixture(scope="module")
def embedder() -> SentenceEmbedder:
    return default_embedder()


def test_default_embedder_is_one_per_process() -> None:
    assert default_embedder() is default_embedder()


def test_hub_access_is_switched_off_in_the_worker_even_against_the_users_setting() -> None:
    from eval_pipeline.core.embeddings.malloc import worker_environment

    env = worker_environment({"HF_HUB_OFFLINE": "0", "TOKENIZERS_PARALLELISM": "true"})
    assert env["HF_HUB_OFFLINE"] == env["TRANSFORMERS_OFFLINE"] == "1"
    assert env["TOKENIZERS_PARALLELISM"] == "true", "a quiet default the user may override"


def test_rows_are_normalised_and_in_input_order(embedder: SentenceEmbedder) -> None:
    texts = ["How many books were lent in March?", "The river flooded the valley."]
    together = embedder.encode(texts)
    assert together.shape == (2, embedder.dimension)
    assert together.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    for row, text in zip(together, texts, strict=True):
        np.testing.assert_allclose(row, embedder.encode([text])[0], atol=1e-6)


def test_related_texts_are_closer_than_unrelated(embedder: SentenceEmbedder) -> None:
    question, answer, unrelated = embedder.encode(
        [
            "How many books were lent in March?",
            "842 books were lent in March.",
            "Our quarterly offsite will feature team-building and a catered lunch.",
        ]
    )
    assert float(question @ answer) > 0.6
    assert float(question @ unrelated) < 0.2


def test_repeated_texts_are_encoded_once(embedder: SentenceEmbedder) -> None:
    texts = ["cache probe alpha 7d1", "cache probe beta 7d1", "cache probe alpha 7d1"]
    before = embedder.encoded
    first = embedder.encode(texts)
    assert embedder.encoded - before == 2
    np.testing.assert_array_equal(first[0], first[2])
    again = embedder.encode(list(reversed(texts)))
    assert embedder.encoded - before == 2
    np.testing.assert_array_equal(again, first[::-1])


def test_returned_vectors_do_not_alias_the_cache(embedder: SentenceEmbedder) -> None:
    first = embedder.encode(["aliasing probe 51c"])
    first[0, :] = 0.0
    assert np.linalg.norm(embedder.encode(["aliasing probe 51c"])[0]) == pytest.approx(1.0)


def test_concurrent_callers_get_the_sequential_answer(embedder: SentenceEmbedder) -> None:
    texts = [f"concurrency probe number {i} about loans and members" for i in range(24)]
    sequential = embedder.encode(texts)
    # A trailing space changes the cache key but not the tokens: every thread really encodes.
    with ThreadPoolExecutor(max_workers=8) as pool:
        rows = list(pool.map(lambda t: embedder.encode([t + " "])[0], texts))
    np.testing.assert_allclose(np.stack(rows), sequential, atol=1e-5)


def test_empty_input_gives_an_empty_matrix(embedder: SentenceEmbedder) -> None:
    assert embedder.encode([]).shape == (0, embedder.dimension)


def test_cache_evicts_the_least_recently_used() -> None:
    cache = EmbeddingCache(max_entries=2)
    vectors = {text_key(t): np.full(3, i, dtype=np.float32) for i, t in enumerate("abc")}
    keys = list(vectors)
    cache.put_many({keys[0]: vectors[keys[0]], keys[1]: vectors[keys[1]]})
    cache.get_many([keys[0]])
    cache.put_many({keys[2]: vectors[keys[2]]})
    assert len(cache) == 2
    assert set(cache.get_many(keys)) == {keys[0], keys[2]}


def test_text_key_is_the_sha256_of_the_text() -> None:
    assert text_key("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


def test_a_missing_model_is_an_embedding_error(tmp_path: Path) -> None:
    broken = SentenceEmbedder(tmp_path / "no-model-here")
    with pytest.raises(EmbeddingError, match="cannot load"):
        broken.encode(["anything"])


def test_a_model_that_fails_to_load_is_not_started_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import eval_pipeline.core.embeddings.encoder as embeddings

    shutil.copytree(bundled_model_path(), tmp_path / "model")
    (tmp_path / "model" / "model.safetensors").write_bytes(b"not weights")
    started: list[object] = []
    popen = subprocess.Popen

    def counting_popen(*args: Any, **kwargs: Any) -> Any:
        started.append(args)
        return popen(*args, **kwargs)

    monkeypatch.setattr(embeddings.subprocess, "Popen", counting_popen)
    broken = SentenceEmbedder(tmp_path / "model")
    for _ in range(2):
        with pytest.raises(EmbeddingError, match="cannot load the embedding model"):
            broken.encode(["anything"])
    assert len(started) == 1


def test_vectors_equal_those_of_sentence_transformers(embedder: SentenceEmbedder) -> None:
    """The torch port computes what sentence-transformers computes from the same bundle,
    including truncation of a text longer than the model's window and padding in a batch."""
    from sentence_transformers import SentenceTransformer

    texts = [
        "How many open findings are there in the West region?",
        "Open findings: 14. " * 120,
        "ok",
        "The completion rate is 37.2%, up 4.1 points since March.",
    ]
    reference = SentenceTransformer(str(bundled_model_path()), device="cpu").encode(
        texts, normalize_embeddings=True, convert_to_numpy=True
    )
    ours = embedder.encode(texts)
    assert np.abs(ours - reference).max() < 1e-5


def test_a_bundle_with_another_pooling_is_refused(tmp_path: Path) -> None:
    shutil.copytree(bundled_model_path(), tmp_path / "model")
    pooling = tmp_path / "model" / "1_Pooling" / "config.json"
    config = json.loads(pooling.read_text())
    pooling.write_text(json.dumps({**config, "pooling_mode_mean_tokens": False}))
    with pytest.raises(EmbeddingError, match="not a mean-pooled"):
        SentenceEmbedder(tmp_path / "model").encode(["anything"])


@pytest.mark.parametrize(
    ("cosine", "expected"), [(0.1, 0.0), (0.25, 0.0), (0.425, 0.5), (0.6, 1.0), (0.9, 1.0)]
)
def test_cosine_ramp_is_clipped_and_linear(cosine: float, expected: float) -> None:
    assert cosine_ramp(cosine, 0.25, 0.6) == pytest.approx(expected)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="malloc_trim is glibc's")
def test_the_workers_heap_is_trimmed_after_each_batch_encoded(embedder: SentenceEmbedder) -> None:
    trims = embedder.trims
    embedder.encode(["a text never encoded before in this process", "another new one"])
    embedder.encode(["a text never encoded before in this process"])  # cached: nothing to trim
    assert embedder.trims == trims + 1


def test_the_model_runs_in_a_worker_and_the_caller_never_imports_torch(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from eval_pipeline.core.embeddings.encoder import default_embedder\n"
        "print(default_embedder().encode(['a probe']).shape, 'torch' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert out.stdout.split() == ["(1,", "384)", "False"]


def test_a_dead_worker_is_an_embedding_error_and_the_next_call_starts_another() -> None:
    embedder = SentenceEmbedder()
    try:
        embedder.encode(["before the crash"])
        os.kill(embedder._loaded().pid, signal.SIGKILL)
        with pytest.raises(EmbeddingError, match="encoder process died"):
            embedder.encode(["during the crash"])
        assert embedder.encode(["after the crash"]).shape == (1, embedder.dimension)
    finally:
        embedder.close()


def test_the_worker_starts_with_the_allocator_settings_and_the_users_win() -> None:
    from eval_pipeline.core.embeddings.malloc import WORKER_TUNABLES, worker_environment

    assert worker_environment({"PATH": "/bin"})["GLIBC_TUNABLES"] == WORKER_TUNABLES
    mine = "glibc.malloc.mmap_threshold=65536"
    assert worker_environment({"GLIBC_TUNABLES": mine})["GLIBC_TUNABLES"].endswith(f":{mine}")


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads /proc (Linux)")
def test_the_running_worker_has_the_allocator_settings(embedder: SentenceEmbedder) -> None:
    from eval_pipeline.core.embeddings.malloc import WORKER_TUNABLES

    embedder.encode(["a text to start the worker"])
    environ = Path(f"/proc/{embedder._loaded().pid}/environ").read_bytes().split(b"\0")
    # glibc may cut the variable at its first ':' in place while parsing it
    first = f"GLIBC_TUNABLES={WORKER_TUNABLES.split(':')[0]}".encode()
    assert any(entry.startswith(first) for entry in environ)
    assert b"HF_HUB_OFFLINE=1" in environ
    assert "GLIBC_TUNABLES" not in os.environ, "only the worker's allocator is tuned"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="malloc_trim is glibc's")
def test_free_memory_is_handed_back_on_glibc() -> None:
    from eval_pipeline.core.embeddings.malloc import release_free_memory

    assert release_free_memory()


def test_batches_keep_similar_lengths_together_and_cut_long_texts_shorter() -> None:
    from eval_pipeline.core.embeddings.minilm import TOKEN_BUDGET, length_batches

    lengths = [40] * 70 + [3000] * 20 + [0]
    batches = length_batches(lengths, 32)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths))), "each text once"
    assert [lengths[b[0]] for b in batches] == sorted(
        (lengths[b[0]] for b in batches), reverse=True
    )
    long = [b for b in batches if lengths[b[0]] == 3000]
    assert all(len(b) * (3000 // 3 + 2) <= TOKEN_BUDGET for b in long), "long batches cut shorter"
    assert max(len(b) for b in batches) == 32, "short texts still fill a batch"
    assert length_batches([], 32) == []


def test_short_texts_are_not_padded_to_a_long_one() -> None:
    from eval_pipeline.core.embeddings.minilm import length_batches

    questions_and_answers = [40, 300, 45, 260]
    assert length_batches(questions_and_answers, 32) == [[1, 3], [2, 0]]


def _high_water_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(status.split("VmHWM:")[1].split()[0]) / 1024


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc (Linux)")
def test_a_huge_text_is_cut_before_tokenising_and_keeps_the_vector_of_its_start(
    embedder: SentenceEmbedder,
) -> None:
    """The model reads 256 tokens: a 10 MB answer costs no more memory than a page of it, and its
    vector is that of its start (which the tokenizer would have truncated to anyway)."""
    prose = "The West region closed 14 open findings in March, up 3.5% on February. "
    huge = prose * (10_000_000 // len(prose))
    embedder.encode(["a text to start the worker before measuring it"])
    pid = embedder._loaded().pid
    before = _high_water_mib(pid)
    vectors = embedder.encode([huge, prose * 60])  # 4,300 characters: well over 256 tokens
    assert _high_water_mib(pid) - before < 100
    assert np.abs(vectors[0] - vectors[1]).max() < 1e-6


class _Recording:
    """Stands for the embedder behind a ``Prefetcher``: records each batch it is sent."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self.sent = threading.Event()

    def _loaded(self) -> None:
        pass

    def encode(self, texts: Sequence[str]) -> None:
        self.batches.append(list(texts))
        self.sent.set()


def _prefetcher(max_batch: int = 64) -> tuple[Prefetcher, _Recording]:
    recording = _Recording()
    hour = 3600.0  # no batch starts unprompted within the test
    return Prefetcher(cast(SentenceEmbedder, recording), max_batch, interval_s=hour), recording


def test_texts_arriving_one_by_one_are_encoded_together_when_waited_for() -> None:
    prefetcher, recording = _prefetcher()
    prefetcher.add(["first"])  # after a quiet spell: at once
    prefetcher.wait_for(["first"])
    for text in ("a", "b", "c"):
        prefetcher.add([text])
    prefetcher.wait_for(["c"])
    assert recording.batches == [["first"], ["a", "b", "c"]]


def test_a_full_batch_is_encoded_without_anyone_waiting() -> None:
    prefetcher, recording = _prefetcher(max_batch=2)
    prefetcher.add(["first"])
    prefetcher.wait_for(["first"])
    recording.sent.clear()
    prefetcher.add(["a"])
    prefetcher.add(["b"])
    assert recording.sent.wait(60), "a full batch waited for its interval"
    assert recording.batches == [["first"], ["a", "b"]]
