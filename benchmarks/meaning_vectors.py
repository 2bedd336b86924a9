"""The facts' sentence vectors for the curator's benchmarks (issue 29, item 6): bench_neardup.py
and bench_conflicts.py with --meaning. `embedded` runs the installed sentence model over the
labelled facts (the text the vector builder embeds: core/curation/meaning.text_of); `clustered`
makes vectors for the generated facts of a speed run without the model (an hour for 10,000
facts on this machine): facts in groups of about CLUSTER around random directions, so that
every fact has NEIGHBOURS neighbours above the thresholds, the scan's most work per fact."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from foundry_tui.core.curation.meaning import FactVectors, text_of
from foundry_tui.core.memory.model.facts import Fact

CLUSTER = 12


def embedded(facts: Sequence[Fact]) -> FactVectors:
    """The sentence model's vectors of `facts` (loads the model: onnxruntime when installed)."""
    from foundry_tui.core.memory.search.encoder_choice import load_encoder

    encoder = load_encoder()
    texts = [text_of(fact) for fact in facts]
    unique = sorted(set(texts))
    by_text = dict(zip(unique, encoder.encode(unique), strict=True))
    return FactVectors([f.id for f in facts], np.stack([by_text[t] for t in texts]).astype(np.float32))


def clustered(facts: Sequence[Fact], dims: int = 384, seed: int = 7, spread: float = 0.6) -> FactVectors:
    """Vectors for generated facts: groups of CLUSTER around random directions (cosine within a
    group about 1 / (1 + spread²): 0.74 at the default)."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((max(1, len(facts) // CLUSTER), dims)).astype(np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    noise = rng.standard_normal((len(facts), dims)).astype(np.float32) * spread / np.sqrt(dims)
    matrix = centres[np.arange(len(facts)) % len(centres)] + noise
    return FactVectors([f.id for f in facts], matrix)


def joined(parts: Sequence[FactVectors]) -> FactVectors:
    """One FactVectors of several (ids are unique across them)."""
    return FactVectors([i for p in parts for i in p.ids], np.concatenate([p.matrix for p in parts]))
