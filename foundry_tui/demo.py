"""The bundled demo project, copied to a fresh temporary folder for `--demo`."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from foundry_tui.core.paths import Layout

DEMO_SOURCE = Path(__file__).parent / "demo_project"
DEMO_DATA_FOLDER = "data"  # beside the copy, inside its temporary folder

# When the demo's run wrote its artifacts (UTC seconds): the board orders waves by these
# modification times, and an installed copy's own times say nothing (all alike, or the
# checkout's order). Planning first, then the two reviewers of the audit.
DEMO_RUN = {
    "plan/planner.json": 1796029924,  # 2026-11-30 09:12:04
    "audit/appsec-reviewer.json": 1796031100,  # 2026-11-30 09:31:40
    "audit/perf-reviewer.json": 1796031182,  # 2026-11-30 09:33:02
}


def make_demo_copy(*, history: bool = True, run: bool = False) -> Path:
    """A fresh copy of the demo project; the package's copy is never modified.

    The bundled folder stores `.foundry` as `foundry` so that packaging tools keep it.
    `history`: make the copy a git repository with the demo's history (demo_history.py).
    `run`: add what an agent run leaves behind, so every screen has something to act on
    (demo_run.py: a contradiction, a session, a pending proposal, a second wave); `--demo`
    asks for it, the tests' base demo does not (their figures are the bundled files')."""
    target = Path(tempfile.mkdtemp(prefix="foundry-demo-")) / "demo"
    shutil.copytree(DEMO_SOURCE, target)
    layout = Layout(target)
    (target / "foundry").rename(layout.foundry)
    for name, moment in DEMO_RUN.items():
        os.utime(layout.blackboard_dir / name, (moment, moment))
    if history:
        from foundry_tui.demo_history import make_demo_history

        make_demo_history(target)
    if run:
        from foundry_tui.demo_run import add_demo_run

        add_demo_run(target)
    return target


def demo_data_dir(root: Path) -> Path:
    """The demo's own data folder (preferences), beside its copy and removed with it."""
    return root.parent / DEMO_DATA_FOLDER


def use_demo_environment(root: Path) -> None:
    """Point this process at the demo copy's own folders: no parse cache left behind, and a
    data folder of its own, so the demo never reads or changes the user's real preferences
    (a pending clear request of theirs must not be offered for confirmation in a demo)."""
    os.environ["FOUNDRY_NO_CACHE"] = "1"
    os.environ["FOUNDRY_DATA_DIR"] = str(demo_data_dir(root))


def remove_demo_copy(root: Path) -> None:
    shutil.rmtree(root.parent, ignore_errors=True)
