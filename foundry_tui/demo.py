"""The bundled demo project, copied to a fresh temporary folder for `--demo`."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from foundry_tui.core.paths import Layout

DEMO_SOURCE = Path(__file__).parent / "demo_project"

# When the demo's run wrote its artifacts (UTC seconds): the board orders waves by these
# modification times, and an installed copy's own times say nothing (all alike, or the
# checkout's order). Planning first, then the two reviewers of the audit.
DEMO_RUN = {
    "plan/planner.json": 1796029924,  # 2026-11-30 09:12:04
    "audit/appsec-reviewer.json": 1796031100,  # 2026-11-30 09:31:40
    "audit/perf-reviewer.json": 1796031182,  # 2026-11-30 09:33:02
}


def make_demo_copy() -> Path:
    """A fresh copy of the demo project; the package's copy is never modified.

    The bundled folder stores `.foundry` as `foundry` so that packaging tools keep it."""
    target = Path(tempfile.mkdtemp(prefix="foundry-demo-")) / "demo"
    shutil.copytree(DEMO_SOURCE, target)
    layout = Layout(target)
    (target / "foundry").rename(layout.foundry)
    for name, moment in DEMO_RUN.items():
        os.utime(layout.blackboard_dir / name, (moment, moment))
    return target


def remove_demo_copy(root: Path) -> None:
    shutil.rmtree(root.parent, ignore_errors=True)
