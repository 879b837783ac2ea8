"""The bundled all-MiniLM-L6-v2 sentence encoder in plain torch: BERT, mean pooling, L2 norm.

sentence-transformers computes exactly this, but importing it (and with it ``transformers``)
costs about 7 s of CPU in every process that scores, more than encoding a thousand answers. Here
the same weights (``model.safetensors``) and tokenizer (``tokenizer.json``) are loaded with
``safetensors`` and ``tokenizers`` and run through the same torch operations, so vectors agree
with sentence-transformers to float precision (a test checks it) at a third of the load time.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from numpy.typing import NDArray
from safetensors.torch import load_file
from tokenizers import Tokenizer

CHARS_PER_TOKEN = 3  # a low estimate: numbers and identifiers split into short tokens
TOKEN_BUDGET = 4096  # padded tokens per batch: 32 texts of 128 tokens, 16 of the longest (256)
# A batch ends at a text shorter than this share of its longest: padding a question to its
# answer's length doubled the work of the small mixed batches that arrive while answers stream
# in (measured on a 500-case run, 10.6 s of encoder CPU against 8.2 s with batches split here).
MIN_LENGTH_RATIO = 0.7


def length_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indexes of texts (by character length) in batches of similar length, longest first.

    A batch of long texts is cut shorter: its attention scores grow with the square of their
    length, and 32 texts of 256 tokens took 150 MB more than a batch of short ones.
    """
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    batches, start = [], 0
    while start < len(order):
        longest = lengths[order[start]]
        tokens = longest // CHARS_PER_TOKEN + 2  # the longest sets the padding
        size = min(batch_size, TOKEN_BUDGET // tokens)
        end = start + 1
        while end < min(len(order), start + size) and (
            lengths[order[end]] >= MIN_LENGTH_RATIO * longest
        ):
            end += 1
        batches.append(order[start:end])
        start = end
    return batches


class MiniLM:
    """A BERT encoder (``config.json``) with the mean pooling and normalisation of the bundle."""

    def __init__(self, path: Path) -> None:
        config = json.loads((path / "config.json").read_text())
        weights = load_file(str(path / "model.safetensors"))
        self.weights = {name.removeprefix("bert."): t.float() for name, t in weights.items()}
        self.layers = int(config["num_hidden_layers"])
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config["layer_norm_eps"])
        self.dimension = int(config["hidden_size"])
        max_length = json.loads((path / "sentence_bert_config.json").read_text())["max_seq_length"]
        self.tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        self.tokenizer.enable_truncation(int(max_length))
        self.tokenizer.enable_padding(pad_id=int(config["pad_token_id"]))

    def encode(self, texts: Sequence[str], batch_size: int = 32) -> NDArray[np.float32]:
        """One unit-length row per text; texts of similar length are batched to limit padding."""
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        for rows in length_batches([len(t) for t in texts], batch_size):
            out[rows] = self._encode_batch([texts[i] for i in rows])
        return out

    def _norm(self, x: torch.Tensor, name: str) -> torch.Tensor:
        w = self.weights
        return F.layer_norm(x, x.shape[-1:], w[f"{name}.weight"], w[f"{name}.bias"], self.eps)

    def _linear(self, x: torch.Tensor, name: str) -> torch.Tensor:
        return F.linear(x, self.weights[f"{name}.weight"], self.weights[f"{name}.bias"])

    @torch.inference_mode()
    def _encode_batch(self, texts: list[str]) -> NDArray[np.float32]:
        encodings = self.tokenizer.encode_batch(texts)
        ids = torch.tensor([e.ids for e in encodings])
        types = torch.tensor([e.type_ids for e in encodings])
        mask = torch.tensor([e.attention_mask for e in encodings])
        batch, length = ids.shape
        w = self.weights
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:length][None]
            + w["embeddings.token_type_embeddings.weight"][types]
        )
        x = self._norm(x, "embeddings.LayerNorm")
        size = x.shape[-1] // self.heads
        attend = mask[:, None, None, :].bool()
        for i in range(self.layers):
            layer = f"encoder.layer.{i}"
            q, k, v = (
                self._linear(x, f"{layer}.attention.self.{part}")
                .view(batch, length, self.heads, size)
                .transpose(1, 2)
                for part in ("query", "key", "value")
            )
            context = F.scaled_dot_product_attention(q, k, v, attn_mask=attend)
            context = context.transpose(1, 2).reshape(batch, length, self.heads * size)
            x = self._norm(
                self._linear(context, f"{layer}.attention.output.dense") + x,
                f"{layer}.attention.output.LayerNorm",
            )
            hidden = F.gelu(self._linear(x, f"{layer}.intermediate.dense"))
            x = self._norm(
                self._linear(hidden, f"{layer}.output.dense") + x, f"{layer}.output.LayerNorm"
            )
        weight = mask[..., None].float()
        pooled = (x * weight).sum(1) / weight.sum(1).clamp(min=1e-9)
        return F.normalize(pooled, dim=1).numpy()
