"""One refresh path from every write and every watcher event to every pane on view (issue
31, item 3), driven by Pilot on real files: a repaired fact leaves the broken state in the
detail too, a screen under a dialog follows the disk, the fact `y` wrote is the one shown,
the approvals' header counts follow each decision, and the board's detail never shows an
artifact its filters leave out."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static, TextArea

from foundry_tui.tui.board.artifact_view import NOTHING_SELECTED as NO_ARTIFACT
from foundry_tui.tui.board.screen import BlackboardScreen
from foundry_tui.tui.common.status_header import COMPACT_BELOW, StatusHeader
from foundry_tui.tui.curator.approvals import ApprovalsScreen
from foundry_tui.tui.memory.fact_detail import FactDetail
from foundry_tui.tui.memory.screen import MemoryScreen
from foundry_tui.tui.memory.write_fact import WriteFactScreen
from tests.tui.curator.test_tui_approvals import _app, _park_two
from tests.tui_helpers import drawn, make_app, open_mode, option_ids, press, select, select_artifact, settle, text_of

SIZES = [(120, 40), (80, 24)]
FIXED = "---\nid: fact-0017\ntype: domain\ntitle: Fixed now\ncreated: 2026-11-30\n---\nRepaired.\n"


def _detail_head(pilot: Pilot[Any]) -> str:
    screen = pilot.app.screen_stack[0] if not isinstance(pilot.app.screen, MemoryScreen) else pilot.app.screen
    return str(screen.query_one(FactDetail).query_one("#detail-head", Static).render())


async def _wait_for(pilot: Pilot[Any], condition: Callable[[], bool], seconds: float = 8.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        await settle(pilot)
        if condition():
            return True
        await asyncio.sleep(0.05)
    return False


@pytest.mark.parametrize("size", SIZES)
async def test_a_fact_repaired_on_disk_is_shown_repaired(demo_root: Path, size: tuple[int, int]) -> None:
    app = make_app(demo_root, watch=True)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await asyncio.sleep(0.3)  # the watcher sets up its OS watch
        broken = demo_root / ".foundry/memory/facts/fact-0017.md"
        broken.write_text("---\ntitle: [unclosed\n---\n")
        assert await _wait_for(pilot, lambda: "broken:fact-0017.md" in option_ids(pilot, "#index"))
        await select(pilot, "broken:fact-0017.md")
        assert _detail_head(pilot) == "broken file fact-0017.md"
        broken.write_text(FIXED)
        assert await _wait_for(pilot, lambda: "fact-0017" in option_ids(pilot, "#index"))
        assert _detail_head(pilot) == "fact-0017 · domain · active\nFixed now"
        index = app.screen.query_one("#index")
        assert index.current_id() == "fact-0017"  # type: ignore[attr-defined]


@pytest.mark.parametrize("size", SIZES)
async def test_the_memory_under_a_dialog_follows_the_disk(demo_root: Path, size: tuple[int, int]) -> None:
    app = make_app(demo_root, watch=True)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await asyncio.sleep(0.3)
        await press(pilot, "w")
        assert isinstance(app.screen, WriteFactScreen)
        (demo_root / ".foundry/memory/facts/fact-0017.md").write_text(FIXED)
        memory = app.screen_stack[0]
        assert await _wait_for(pilot, lambda: "fact-0017" in memory.query_one("#index").row_ids)  # type: ignore[attr-defined]
        assert isinstance(app.screen, WriteFactScreen)  # the draft stays open


@pytest.mark.parametrize("size", SIZES)
async def test_after_y_the_detail_shows_the_new_version(demo_root: Path, size: tuple[int, int]) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await select(pilot, "fact-0011", "#prune")
        await press(pilot, "y")
        body = app.screen.query_one("#body", TextArea)
        body.insert("ops runs the broker.")
        await press(pilot, "ctrl+s", "ctrl+s")
        assert isinstance(app.screen, MemoryScreen)
        assert app.screen.selected == "fact-0017"
        assert _detail_head(pilot).startswith("fact-0017 · decision · active\n")
        assert app.screen.query_one("#index").current_id() == "fact-0017"  # type: ignore[attr-defined]


@pytest.mark.parametrize("size", SIZES)
async def test_the_approvals_header_counts_follow_each_decision(demo_root: Path, size: tuple[int, int]) -> None:
    """The header's pending part as drawn: in full at 120 columns, compact at 80 ("2 pending
    (F9)"), on the header's line either way; gone once none waits."""
    _park_two(demo_root)
    app = _app(demo_root)
    compact = size[0] < COMPACT_BELOW
    async with app.run_test(size=size) as pilot:
        screen = await open_mode(pilot, "f9", ApprovalsScreen)
        header = screen.query_one(StatusHeader)

        def pending_shown(count: int) -> bool:
            """The pending part says `count`, and the header's line shows it whole."""
            words = "" if count == 0 else f"{count} pending (F9)" if compact else None
            if words is None:
                words = f"{count} proposal{'s' if count != 1 else ''} pending (F9)"
            line = text_of(drawn(pilot.app, 0))
            if header.shown_text("pending") != words:
                return False
            return words in line if words else "pending" not in line

        assert await _wait_for(pilot, lambda: pending_shown(2))
        assert header.part("pending") == "2 proposals pending (F9)"
        assert header.part("counts") == "13 active / 16 facts"
        await press(pilot, "a", "ctrl+s")  # at once: the header's own read may still be under way
        assert await _wait_for(pilot, lambda: pending_shown(1))
        assert header.part("counts") == "13 active / 17 facts"  # a new version: one more file, as many active
        await press(pilot, "down", "a", "ctrl+s")
        assert await _wait_for(pilot, lambda: pending_shown(0))
        assert header.part("counts") == "14 active / 18 facts"


@pytest.mark.parametrize("size", SIZES)
async def test_a_board_filter_matching_nothing_clears_the_detail(demo_root: Path, size: tuple[int, int]) -> None:
    async with make_app(demo_root).run_test(size=size) as pilot:
        board = await open_mode(pilot, "f3", BlackboardScreen)
        await select_artifact(pilot, "audit/perf-reviewer.json")
        assert board.shown == "audit/perf-reviewer.json"
        await press(pilot, "slash", *"no such words")
        assert board.shown is None
        assert str(board.query_one("#artifact-head", Static).render()) == NO_ARTIFACT
        assert str(board.query_one("#contract-json", Static).render()) == ""
