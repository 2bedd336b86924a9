"""The bundled demo project, copied to a fresh temporary folder for `--demo`."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from foundry_tui.core.paths import Layout

DEMO_SOURCE = Path(__file__).parent / "demo_project"


def make_demo_copy(*, history: bool = True) -> Path:
    """A fresh copy of the demo project; the package's copy is never modified.

    The bundled folder stores `.foundry` as `foundry` so that packaging tools keep it.
    `history`: make the copy a git repository with the demo's history (demo_history.py)."""
    target = Path(tempfile.mkdtemp(prefix="foundry-demo-")) / "demo"
    shutil.copytree(DEMO_SOURCE, target)
    (target / "foundry").rename(Layout(target).foundry)
    if history:
        from foundry_tui.demo_history import make_demo_history

        make_demo_history(target)
    return target


def remove_demo_copy(root: Path) -> None:
    shutil.rmtree(root.parent, ignore_errors=True)
