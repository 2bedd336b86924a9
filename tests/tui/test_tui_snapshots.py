"""Snapshot tests of every screen and of the memory screen in its key states.

Plain `def` tests with snap_compare, the watcher off, a fixed terminal size, a frozen
date, and no absolute path on screen (the root is shown as "demo")."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from foundry_tui.tui.board.screen import BlackboardScreen
from tests.tui_helpers import Steps, make_app, select, select_artifact, settle, snapshot_steps

SIZE = (120, 40)
Compare = Callable[..., bool]


def _steps(*keys: str, fact: str | None = None, list_id: str = "#index") -> Steps:
    """Settle, select `fact` in `list_id` (when given), then press `keys`."""
    if fact is None:
        return snapshot_steps(*keys)

    async def select_fact(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await select(pilot, fact, list_id)

    return snapshot_steps(*keys, before=select_fact)


def test_memory_screen_empty_search(snap_compare: Compare, demo_root: Path) -> None:
    assert snap_compare(make_app(demo_root), terminal_size=SIZE, run_before=_steps())


def test_memory_screen_search_with_hits(snap_compare: Compare, demo_root: Path) -> None:
    assert snap_compare(
        make_app(demo_root), terminal_size=SIZE, run_before=_steps("slash", *"orders migrations", fact=None)
    )


def test_fact_with_supersedes_chain(snap_compare: Compare, demo_root: Path) -> None:
    assert snap_compare(make_app(demo_root), terminal_size=SIZE, run_before=_steps(fact="fact-0009"))


def test_inactive_fact_shown(snap_compare: Compare, demo_root: Path) -> None:
    assert snap_compare(
        make_app(demo_root), terminal_size=SIZE, run_before=_steps("i", fact="fact-0006", list_id="#prune")
    )


def test_broken_file(snap_compare: Compare, demo_root: Path) -> None:
    (demo_root / ".foundry/memory/facts/fact-0099.md").write_text("---\nid: fact-0099\ntype: [unclosed\n---\n")
    assert snap_compare(make_app(demo_root), terminal_size=SIZE, run_before=_steps(fact="broken:fact-0099.md"))


def test_confirm_dialog(snap_compare: Compare, demo_root: Path) -> None:
    assert snap_compare(make_app(demo_root), terminal_size=SIZE, run_before=_steps("x", fact="fact-0003"))


def test_write_form(snap_compare: Compare, demo_root: Path) -> None:
    assert snap_compare(make_app(demo_root), terminal_size=SIZE, run_before=_steps("w"))


def test_doctor_report(snap_compare: Compare, demo_root: Path) -> None:
    assert snap_compare(make_app(demo_root), terminal_size=SIZE, run_before=_steps("d"))


def test_memory_screen_at_80x24(snap_compare: Compare, demo_root: Path) -> None:
    assert snap_compare(make_app(demo_root), terminal_size=(80, 24), run_before=_steps())


def test_blackboard_screen(snap_compare: Compare, demo_root: Path) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await _steps("f3")(pilot)
        await select_artifact(pilot, "audit/perf-reviewer.json")  # the invalid finding
        pilot.app.screen.set_focus(None)
        await settle(pilot)

    assert snap_compare(make_app(demo_root), terminal_size=SIZE, run_before=run_before)


def _second_review(root: Path) -> None:
    """The appsec reviewer again, in a later wave, at a fixed time (so the picture is stable)."""
    from foundry_tui.core.artefacts.blackboard import blackboard_write
    from foundry_tui.core.paths import Layout
    from tests.core.artefacts.test_waves import REVIEW

    written = blackboard_write(
        Layout(root), "re-audit", "appsec-reviewer", "review.v1", {**REVIEW, "verdict": "approve"}
    )
    assert written.path is not None
    os.utime(written.path, (1_796_036_400, 1_796_036_400))  # 2026-11-30 11:00:00 UTC


def test_blackboard_only_invalid(snap_compare: Compare, demo_root: Path) -> None:
    assert snap_compare(make_app(demo_root), terminal_size=SIZE, run_before=_steps("f3", "v"))


def test_blackboard_diff(snap_compare: Compare, demo_root: Path) -> None:
    _second_review(demo_root)

    async def run_before(pilot: Pilot[Any]) -> None:
        await _steps("f3")(pilot)
        await select_artifact(pilot, "re-audit/appsec-reviewer.json")
        await pilot.press("d")
        await settle(pilot)

    assert snap_compare(make_app(demo_root), terminal_size=SIZE, run_before=run_before)


def test_blackboard_new_artifact_highlighted(
    snap_compare: Compare, demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("foundry_tui.tui.board.screen.FRESH_SECONDS", 600.0)  # still lit when pictured

    async def run_before(pilot: Pilot[Any]) -> None:
        await _steps("f3")(pilot)
        _second_review(demo_root)
        board = pilot.app.screen
        assert isinstance(board, BlackboardScreen)
        board.load()  # what the watcher's FilesChanged does
        await settle(pilot)

    assert snap_compare(make_app(demo_root), terminal_size=SIZE, run_before=run_before)


def test_blackboard_at_80x24(snap_compare: Compare, demo_root: Path) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await _steps("f3")(pilot)
        await select_artifact(pilot, "audit/perf-reviewer.json")
        pilot.app.screen.set_focus(None)
        await settle(pilot)

    assert snap_compare(make_app(demo_root), terminal_size=(80, 24), run_before=run_before)


def test_library_screen(snap_compare: Compare, demo_root: Path) -> None:
    assert snap_compare(make_app(demo_root), terminal_size=SIZE, run_before=_steps("f4"))


def test_empty_repository(snap_compare: Compare, tmp_path: Path) -> None:
    assert snap_compare(make_app(tmp_path), terminal_size=(100, 30), run_before=_steps())


# ---- every main screen at 80x24 (the narrow layouts: FoundryApp.HORIZONTAL_BREAKPOINTS) --------


# F8 (history) needs a git repository: tests/test_team_git.py pictures it.
@pytest.mark.parametrize("key", ["f4", "f5", "f6", "f7", "f9"])
def test_every_screen_at_80x24(snap_compare: Compare, demo_root: Path, key: str) -> None:
    assert snap_compare(make_app(demo_root), terminal_size=(80, 24), run_before=_steps(key))


def test_fact_detail_at_80x24_folds_the_path(snap_compare: Compare, demo_root: Path) -> None:
    assert snap_compare(make_app(demo_root), terminal_size=(80, 24), run_before=_steps(fact="fact-0009"))


# The screen without a memory, a dialog (the write form) and the keys panel (F1: where the keys
# the narrow footer has no room for are listed) at 80x24 too.
def test_empty_repository_at_80x24(snap_compare: Compare, tmp_path: Path) -> None:
    assert snap_compare(make_app(tmp_path), terminal_size=(80, 24), run_before=_steps())


@pytest.mark.parametrize("key", ["w", "f1"])
def test_write_form_and_keys_panel_at_80x24(snap_compare: Compare, demo_root: Path, key: str) -> None:
    assert snap_compare(make_app(demo_root), terminal_size=(80, 24), run_before=_steps(key))


# ---- themes, NO_COLOR, the keys panel and the command palette -----------------------------------


def test_light_theme(snap_compare: Compare, demo_root: Path) -> None:
    async def light(pilot: Pilot[Any]) -> None:
        pilot.app.theme = "textual-light"
        await settle(pilot)

    assert snap_compare(make_app(demo_root), terminal_size=SIZE, run_before=snapshot_steps(before=light))


def test_no_color(snap_compare: Compare, demo_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")  # Textual reads it when the app is made
    assert snap_compare(make_app(demo_root), terminal_size=SIZE, run_before=_steps())


def test_keys_panel(snap_compare: Compare, demo_root: Path) -> None:
    assert snap_compare(make_app(demo_root), terminal_size=SIZE, run_before=_steps("f1"))


def test_command_palette(snap_compare: Compare, demo_root: Path) -> None:
    assert snap_compare(make_app(demo_root), terminal_size=SIZE, run_before=_steps("ctrl+p", *"retire"))
