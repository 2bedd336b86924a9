"""The Health screen (F5) driven by Pilot: its links to the curator's missed-search tab,
the numbers on demand, the header on every screen; and its snapshots (the demo with its
git history, a fresh repository with no history and no events, and at 80x24 the demo's
history charts and its numbers)."""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.widgets import DataTable, OptionList, Static, TabbedContent

from foundry_tui.core.artefacts.health import NO_EVENTS
from foundry_tui.core.setup.init import init_project
from foundry_tui.tui.common.row_list import RowList
from foundry_tui.tui.common.status_header import StatusHeader
from foundry_tui.tui.curator.screen import CuratorScreen
from foundry_tui.tui.health.screen import HealthScreen
from tests.helpers import TODAY
from tests.tui_helpers import make_app, open_mode, press, settle, snapshot_steps, until

SIZE = (120, 40)
Compare = Callable[..., bool]


async def _open_health(pilot: Pilot[Any]) -> HealthScreen:
    return await open_mode(pilot, "f5", HealthScreen)


def _missed_query(pilot: Pilot[Any]) -> str:
    screen = pilot.app.screen
    assert isinstance(screen, CuratorScreen) and screen.data is not None
    rows = screen.query_one("#missed", RowList)
    assert rows.highlighted is not None
    row_id = rows.rows[rows.highlighted][0]
    assert row_id is not None
    return screen.data.missed[int(row_id.split(":")[1])].query


async def test_a_missed_query_opens_the_curators_missed_tab_on_it(demo_repo: Path) -> None:
    app = make_app(demo_repo)
    async with app.run_test(size=SIZE) as pilot:
        health = await _open_health(pilot)
        missed = health.query_one("#top-missed", OptionList)
        missed.focus()
        missed.highlighted = 2  # "on-call rotation" × 7
        await press(pilot, "enter")
        assert app.current_mode == "curator"
        assert app.screen.query_one(TabbedContent).active == "missed-tab"
        assert _missed_query(pilot) == "on-call rotation"
        near = app.screen.query_one("#near", RowList).row_ids
        assert near  # its nearest facts are shown, ready for `t`


async def test_c_opens_the_highlighted_missed_query_when_the_curator_was_open_before(demo_repo: Path) -> None:
    app = make_app(demo_repo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f6")  # the curator has loaded its data already
        await settle(pilot)
        health = await _open_health(pilot)
        health.query_one("#top-missed", OptionList).highlighted = 1  # "k8s helm chart"
        await press(pilot, "c")
        assert app.screen.query_one(TabbedContent).active == "missed-tab"
        assert _missed_query(pilot) == "k8s helm chart"


async def test_numbers_on_demand(demo_repo: Path) -> None:
    app = make_app(demo_repo)
    async with app.run_test(size=SIZE) as pilot:
        health = await _open_health(pilot)
        assert not health.query(".numbers")  # mounted when first asked for
        await press(pilot, "n")
        tables = {
            key: health.query_one(f"#{key}-numbers", DataTable) for key in ("searches", "writes", "index", "types")
        }
        assert all(t.display for t in tables.values())
        assert all(t.parent is health.query_one(f"#{key}-cell") for key, t in tables.items())  # each under its chart
        assert tables["searches"].row_count == 28  # the days with a search
        assert tables["searches"].get_row_at(0) == ["2026-10-31", "2", "1", "50%"]
        assert tables["index"].row_count == tables["types"].row_count == 16
        assert tables["index"].get_row_at(15)[2:] == ["404", "4000"]
        # the total second, in sight at 80 columns where the seven types scroll
        assert [str(c.label) for c in tables["types"].ordered_columns][:3] == ["day", "active", "constraint"]
        assert tables["types"].get_row_at(15)[1] == "13"
        await press(pilot, "n")
        assert not any(t.display for t in tables.values())


async def test_an_empty_history_says_what_will_appear(tmp_path: Path) -> None:
    init_project(tmp_path, today=TODAY)
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        health = await _open_health(pilot)
        searches = str(health.query_one("#searches-chart", Static).render())
        index = str(health.query_one("#index-chart", Static).render())
        assert " ".join(searches.split()) == NO_EVENTS
        assert " ".join(index.split()).startswith("No history of the memory in git yet (")
        await pilot.press("c")  # nothing to open: a warning, and the screen stays
        await settle(pilot)
        assert app.current_mode == "health"


async def test_every_screen_carries_the_header(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for key in ("f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9"):
            await press(pilot, key)
            header = app.screen.query_one(StatusHeader)
            assert header.part("counts") == "13 active / 16 facts", key
            assert header.part("gauge-figures") == "~404/4000 tokens", key
        await press(pilot, "f3")
        assert app.screen.query_one(StatusHeader).part("count-waves") == "2 waves"


def test_health_screen_on_the_demo(snap_compare: Compare, demo_repo: Path) -> None:
    assert snap_compare(make_app(demo_repo), terminal_size=SIZE, run_before=snapshot_steps("f5"))


def test_health_screen_on_a_fresh_repository(snap_compare: Compare, tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    init_project(tmp_path, today=TODAY)
    assert snap_compare(make_app(tmp_path), terminal_size=SIZE, run_before=snapshot_steps("f5"))


async def test_the_events_charts_are_shown_while_the_history_is_read(
    demo_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git's reading of the history is most of a first look: the events' charts, the
    missed queries and the report do not wait for it."""
    from foundry_tui.core.artefacts import health as health_module
    from foundry_tui.core.history import timeline as timeline_module

    history_read = threading.Event()
    original = timeline_module.memory_timeline_apart  # (the screen has another process read the history)

    def slow_timeline(*args: Any) -> Any:
        history_read.wait(600)  # (set by the test, also when it fails: no 30 s race on a loaded machine)
        return original(*args)

    monkeypatch.setattr(health_module, "memory_timeline_apart", slow_timeline)
    app = make_app(demo_repo)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f5")
        health = app.screen
        assert isinstance(health, HealthScreen)
        # (settle would wait for the worker, which waits for the history.) Wait for the
        # events' step by time, not by a count of pauses: a loaded machine stretches each.
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (
            health.query_one("#top-missed", OptionList).option_count
            and "loading" not in str(health.query_one("#searches-chart", Static).render())
        ):
            await pilot.pause(0.01)
        try:
            assert health.query_one("#top-missed", OptionList).option_count
            assert "loading" not in str(health.query_one("#searches-chart", Static).render())
            assert str(health.query_one("#index-chart", Static).render()) == "loading…"
            assert health.figures is None
        finally:
            history_read.set()
        await settle(pilot)
        await until(pilot, lambda: health.figures is not None, "the history's figures")
        await settle(pilot)
        assert health.figures is not None and health.figures.timeline.points
        assert "loading" not in str(health.query_one("#index-chart", Static).render())


# ---- at 80x24 (the narrow layout: one chart a row), the demo with its git history ---------------


def test_health_screen_at_80x24_with_history(snap_compare: Compare, demo_repo: Path) -> None:
    """The history's charts, whole titles and dated axes: INDEX.md's tokens, the types."""

    async def scrolled(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await press(pilot, "f5")
        pilot.app.screen.query_one("#index-cell").scroll_visible(top=True, animate=False, immediate=True)
        await settle(pilot)

    assert snap_compare(make_app(demo_repo), terminal_size=(80, 24), run_before=snapshot_steps(before=scrolled))


def test_health_numbers_at_80x24(snap_compare: Compare, demo_repo: Path) -> None:
    """`n`: the types' table (whole dates, the total second), the missed searches above the costs."""

    async def numbers(pilot: Pilot[Any]) -> None:
        health = await _open_health(pilot)
        # The history's figures first: the tables filled after the scroll would push the
        # types' table down, out of the picture (this once failed on a loaded machine).
        await until(pilot, lambda: health.figures is not None, "the history's figures")
        await press(pilot, "n")
        types = health.query_one("#types-numbers", DataTable)
        await until(pilot, lambda: types.row_count == 16 and types.region.height > 0, "the types' numbers laid out")
        scroll = health.query_one("#health", VerticalScroll)
        scroll.scroll_to_widget(types, top=True, animate=False, immediate=True)
        await settle(pilot)
        await until(pilot, lambda: scroll.region.contains_point(types.region.offset), "the types' numbers in sight")

    assert snap_compare(make_app(demo_repo), terminal_size=(80, 24), run_before=snapshot_steps(before=numbers))


async def test_the_missed_searches_stack_above_the_costs_at_80x24(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        health = await _open_health(pilot)
        missed, cost = health.query_one("#missed-box"), health.query_one("#cost-box")
        assert missed.size.width == cost.size.width == 76 and cost.region.y > missed.region.bottom
        await pilot.resize_terminal(120, 40)
        await settle(pilot)
        assert cost.region.y == missed.region.y and cost.region.x == missed.region.right
