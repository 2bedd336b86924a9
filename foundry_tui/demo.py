"""The bundled demo project, copied to a fresh temporary folder for `--demo`."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from foundry_tui.core.paths import Layout

DEMO_SOURCE = Path(__file__).parent / "demo_project"


def make_demo_copy() -> Path:
    """A fresh copy of the demo project; the package's copy is never modified.

    The bundled folder stores `.foundry` as `foundry` so that packaging tools keep it."""
    target = Path(tempfile.mkdtemp(prefix="foundry-demo-")) / "demo"
    shutil.copytree(DEMO_SOURCE, target)
    (target / "foundry").rename(Layout(target).foundry)
    return target


def remove_demo_copy(root: Path) -> None:
    shutil.rmtree(root.parent, ignore_errors=True)
