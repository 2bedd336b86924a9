"""A small model of all-MiniLM-L6-v2's architecture (random weights, a few words), as a model.zip
of the same files, so the encoder, the vectors and the hybrid ranker run for real in the tests
whether or not the model package is installed."""

from __future__ import annotations

import zipfile
from datetime import date
from pathlib import Path

import numpy as np
import pytest

WORDS = [
    "the",
    "a",
    "is",
    "are",
    "of",
    "to",
    "for",
    "and",
    "in",
    "on",
    "with",
    "how",
    "what",
    "which",
    "customers",
    "charged",
    "billed",
    "payments",
    "stripe",
    "invoice",
    "monthly",
    "dead",
    "lettered",
    "messages",
    "kept",
    "days",
    "retention",
    "dlq",
    "queue",
    "database",
    "postgres",
    "deploy",
    "kubernetes",
    "service",
    "fox",
    "dog",
    "quick",
    "brown",
    "lazy",
    "jumps",
    "over",
]


def tiny_model_zip(folder: Path, hidden: int = 384, intermediate: int = 32, layers: int = 1) -> Path:
    from safetensors.numpy import save
    from tokenizers import Tokenizer, normalizers, pre_tokenizers, processors
    from tokenizers.models import WordPiece

    vocab = {w: i for i, w in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", *WORDS])}
    tokenizer = Tokenizer(WordPiece(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)]
    )
    rng = np.random.default_rng(29)

    def m(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.2).astype(np.float32)

    w = {
        "embeddings.word_embeddings.weight": m(len(vocab), hidden),
        "embeddings.position_embeddings.weight": m(512, hidden),
        "embeddings.token_type_embeddings.weight": m(2, hidden),
        "embeddings.LayerNorm.weight": np.ones(hidden, np.float32),
        "embeddings.LayerNorm.bias": np.zeros(hidden, np.float32),
    }
    for n in range(layers):
        p = f"encoder.layer.{n}."
        for k in ("query", "key", "value"):
            w[p + f"attention.self.{k}.weight"] = m(hidden, hidden)
            w[p + f"attention.self.{k}.bias"] = m(hidden)
        w[p + "attention.output.dense.weight"] = m(hidden, hidden)
        w[p + "attention.output.dense.bias"] = m(hidden)
        w[p + "attention.output.LayerNorm.weight"] = np.ones(hidden, np.float32)
        w[p + "attention.output.LayerNorm.bias"] = np.zeros(hidden, np.float32)
        w[p + "intermediate.dense.weight"] = m(intermediate, hidden)
        w[p + "intermediate.dense.bias"] = m(intermediate)
        w[p + "output.dense.weight"] = m(hidden, intermediate)
        w[p + "output.dense.bias"] = m(hidden)
        w[p + "output.LayerNorm.weight"] = np.ones(hidden, np.float32)
        w[p + "output.LayerNorm.bias"] = np.zeros(hidden, np.float32)
    target = folder / "model.zip"
    with zipfile.ZipFile(target, "w") as archive:
        archive.writestr("model.safetensors", save(w))
        archive.writestr("tokenizer.json", tokenizer.to_str())
    return target


def pair_vectors(cosines: list[float], dims: int = 8) -> np.ndarray:
    """Vectors for facts 1, 2, ...: fact 2k+1 along axis k, fact 2k+2 at `cosines[k]` to it."""
    rows = []
    for k, cosine in enumerate(cosines):
        first, second = np.zeros(dims, dtype=np.float32), np.zeros(dims, dtype=np.float32)
        first[2 * k] = 1.0
        second[2 * k], second[2 * k + 1] = cosine, (1 - cosine**2) ** 0.5
        rows += [first, second]
    return np.stack(rows)


def save_vectors(root: Path, today: date, cosines: list[float]) -> None:
    """The derived cache's vectors file of the active facts under `root` (in id order), as a
    long-lived process leaves it, with chosen vectors (`pair_vectors`); the model id is the one
    encoder_probe names here (FOUNDRY_MODEL_ZIP: the tiny model's)."""
    from foundry_tui.core.curation.meaning import text_of
    from foundry_tui.core.memory.project import Project
    from foundry_tui.core.memory.search import encoder_probe
    from foundry_tui.core.memory.search.encoder import DIMS
    from foundry_tui.core.memory.search.vectors import VectorStore, fingerprint
    from foundry_tui.core.memory.storage import cache

    project = Project(root)
    project.sync()
    facts = sorted(project.active_facts(today), key=lambda f: f.id)
    store = VectorStore(encoder_probe.model_id(), DIMS)
    store.add([fingerprint(text_of(f)) for f in facts], pair_vectors(cosines, DIMS))
    assert project.store.cache_path is not None
    store.save(cache.vectors_file(project.store.cache_path))


def use_a_sentence_model(folder: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The engine a test's Project will run: the real int8 model where [semantic] is installed
    ("onnx"), else the small float model above, made in `folder` ("numpy")."""
    from foundry_tui.core.memory.search import encoder_probe

    monkeypatch.delenv(encoder_probe.ENCODER_ENV, raising=False)
    monkeypatch.delenv(encoder_probe.MODEL_ZIP_ENV, raising=False)
    monkeypatch.delenv(encoder_probe.SEMANTIC_ENV, raising=False)
    if encoder_probe.engine() == "onnx":
        return "onnx"
    monkeypatch.setenv(encoder_probe.MODEL_ZIP_ENV, str(tiny_model_zip(folder)))
    return "numpy"
