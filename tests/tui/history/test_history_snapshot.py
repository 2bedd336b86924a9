"""The history screen (F8) at 80x24 and 160x45, on the demo's real git history (fixed dates, names
and commit ids): the narrow layout of every main screen is pictured (issue 31, item 7);
the others are in tests/tui/test_tui_snapshots.py, this one needs a git repository."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.tui_helpers import make_app, snapshot_steps


def test_history_screen_at_80x24(snap_compare: Callable[..., bool], demo_repo: Path) -> None:
    assert snap_compare(make_app(demo_repo), terminal_size=(80, 24), run_before=snapshot_steps("f8"))


def test_history_screen_at_160x45(snap_compare: Callable[..., bool], demo_repo: Path) -> None:
    """The wide layout: every column side by side, the highlighted row's line not repeated."""
    assert snap_compare(make_app(demo_repo), terminal_size=(160, 45), run_before=snapshot_steps("f8"))
