"""What both engines of the sentence model share (encoder.py's numpy pass, encoder_onnx.py's
onnxruntime): the vector type, the word-piece bound, the protocol the rankers and the Project
use, and the batching of `encode` (texts sorted by length, so a batch holds little padding).
Each engine supplies its tokenizer, its batch size and its forward pass. numpy only: the
engines import their own libraries."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Protocol

import numpy as np
import numpy.typing as npt

MAX_TOKENS = 256  # sentence_bert_config.json's max_seq_length

Matrix = npt.NDArray[np.float32]


class SentenceEncoder(Protocol):
    """What the rankers and the Project use of an engine (encoder.Encoder, encoder_onnx.OnnxEncoder)."""

    model_id: str
    dims: int

    def token_ids(self, text: str) -> list[int]: ...

    def encode(self, texts: Sequence[str]) -> Matrix: ...


class BatchedEncoder:
    """`token_ids` and `encode` over an engine's `_forward(batch of word-piece ids)`."""

    BATCH: ClassVar[int]  # texts per forward pass
    model_id: str
    dims: int
    _tokenizer: Any  # tokenizers.Tokenizer (untyped library)

    def token_ids(self, text: str) -> list[int]:
        """The word pieces of `text` as the model reads them ([CLS] … [SEP], at most MAX_TOKENS)."""
        ids: list[int] = self._tokenizer.encode(text).ids
        return ids

    def encode(self, texts: Sequence[str]) -> Matrix:
        """One L2-normalised vector per text, in order (shape: len(texts) × dims)."""
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        if not texts:
            return out
        encoded = [e.ids for e in self._tokenizer.encode_batch(list(texts))]
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i]))
        for start in range(0, len(order), self.BATCH):
            chunk = order[start : start + self.BATCH]
            out[chunk] = self._forward([encoded[i] for i in chunk])
        return out

    def _forward(self, batch: list[list[int]]) -> Matrix:
        raise NotImplementedError
