"""Which engine runs the sentence model (ADR 41): onnxruntime (int8) when it is installed, else
encoder.py's numpy pass; encoder_probe.engine() decides without importing either. A module of
its own so that neither engine imports the other."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from foundry_tui.core.memory.search.encoder_base import SentenceEncoder


def load_encoder() -> SentenceEncoder:
    """The sentence model on the engine encoder_probe.engine() picks."""
    from foundry_tui.core.memory.search import encoder_probe

    if encoder_probe.engine() == "onnx":
        from foundry_tui.core.memory.search.encoder_onnx import OnnxEncoder

        return OnnxEncoder.load()
    from foundry_tui.core.memory.search.encoder import Encoder

    return Encoder.load()
