"""The curator's Contradictions tab driven by Pilot: the pair with its differing parts
highlighted, the confirmed resolve step (supersede or retire, or cancel), and snapshots
of the tab and of the curator at 80x24."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.pilot import Pilot
from textual.widgets import Select, Static

from foundry_tui.core.memory.model.facts import parse_fact_text
from foundry_tui.core.memory.project import Project
from foundry_tui.tui.common.status_header import StatusHeader
from foundry_tui.tui.curator.resolve import ResolveScreen
from foundry_tui.tui.curator.screen import CuratorScreen
from foundry_tui.tui.health.doctor import DoctorScreen
from tests.helpers import write
from tests.tui_helpers import (
    Steps,
    make_app,
    notifications,
    open_mode,
    option_ids,
    press,
    select,
    settle,
    snapshot_steps,
)

SIZE = (120, 40)
PG15 = ("PostgreSQL 15 is the production database", "We run 15 in production.\n\n**Why:** the upgrade waits.")


def _with_a_contradiction(root: Path) -> Path:
    write(Project(root), *PG15, type="decision")  # fact-0017 against the demo's fact-0009 (PostgreSQL 16)
    return root


def _facts(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / ".foundry/memory/facts").glob("*.md"))}


async def _open_tab(pilot: Pilot[Any]) -> None:
    await open_mode(pilot, "f6", CuratorScreen, tab="conflicts-tab")
    await select(pilot, "conflict:0", "#conflicts")


async def test_the_tab_shows_the_pair_with_the_differing_parts_highlighted(demo_root: Path) -> None:
    app = make_app(_with_a_contradiction(demo_root))
    async with app.run_test(size=SIZE) as pilot:
        await _open_tab(pilot)
        assert isinstance(app.screen, CuratorScreen)
        assert option_ids(pilot, "#conflicts") == ["conflict:0"]
        detail = app.screen.query_one("#conflict-text", Static).content
        assert isinstance(detail, Text)
        text = detail.plain
        assert "PostgreSQL 16 is the only supported database" in text
        assert "PostgreSQL 15 is the production database" in text
        assert text.rstrip().endswith("They disagree: numbers 16 vs 15")
        marked = [text[span.start : span.end] for span in detail.spans if "reverse" in str(span.style)]
        assert marked == ["16", "15"]


async def test_d_opens_the_doctor_the_header_counts(demo_root: Path) -> None:
    app = make_app(_with_a_contradiction(demo_root))
    async with app.run_test(size=SIZE) as pilot:
        await _open_tab(pilot)
        assert "doctor: 2 problems (d)" in app.screen.query_one(StatusHeader).part("doctor")
        await press(pilot, "d")
        assert isinstance(app.screen, DoctorScreen)
        assert "warn  contradictions: 1 pair of active facts disagree" in str(
            app.screen.query_one("#doctor-report", Static).render()
        )


async def test_no_contradiction_says_so(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await open_mode(pilot, "f6", CuratorScreen, tab="conflicts-tab")
        assert option_ids(pilot, "#conflicts") == []
        await press(pilot, "k")
        assert notifications(pilot) == ["Select a contradiction first (the Contradictions tab)."]


async def test_keep_one_and_supersede_the_other_after_confirming(demo_root: Path) -> None:
    root = _with_a_contradiction(demo_root)
    before = _facts(root)
    app = make_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await _open_tab(pilot)
        await press(pilot, "k")
        assert isinstance(app.screen, ResolveScreen)
        steps = str(app.screen.query_one("#resolve-steps", Static).render())
        assert ".foundry/memory/facts/fact-0017.md: unchanged, inactive (superseded by the new fact)" in steps
        assert _facts(root) == before  # nothing written before the confirmation
        await pilot.click("#resolve")
        await settle(pilot)
        assert isinstance(app.screen, CuratorScreen)
        assert option_ids(pilot, "#conflicts") == []
        assert "Kept fact-0009's claim; fact-0017 superseded by fact-0018" in notifications(pilot)
    new = parse_fact_text((root / ".foundry/memory/facts/fact-0018.md").read_text(), "fact-0018")
    assert (new.title, new.supersedes, new.extras["merged_from"]) == (
        "PostgreSQL 16 is the only supported database",
        "fact-0017",
        ["fact-0017", "fact-0009"],
    )
    assert {name: data for name, data in _facts(root).items() if name != "fact-0018.md"} == before


async def test_keep_the_other_one_and_retire(demo_root: Path) -> None:
    root = _with_a_contradiction(demo_root)
    app = make_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await _open_tab(pilot)
        await press(pilot, "k")
        app.screen.query_one("#keep", Select).value = "fact-0017"
        app.screen.query_one("#how", Select).value = "retire"
        await settle(pilot)
        steps = str(app.screen.query_one("#resolve-steps", Static).render())
        assert ".foundry/memory/facts/fact-0009.md: expires is set to yesterday (retired)" in steps
        await pilot.click("#resolve")
        await settle(pilot)
    retired = parse_fact_text((root / ".foundry/memory/facts/fact-0009.md").read_text(), "fact-0009")
    assert retired.expires == "2026-11-29"
    assert not (root / ".foundry/memory/facts/fact-0018.md").exists()


async def test_cancel_changes_nothing(demo_root: Path) -> None:
    root = _with_a_contradiction(demo_root)
    before = _facts(root)
    app = make_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await _open_tab(pilot)
        await press(pilot, "k")
        await press(pilot, "escape")
        assert isinstance(app.screen, CuratorScreen)
        assert option_ids(pilot, "#conflicts") == ["conflict:0"]
    assert _facts(root) == before


def _tab_steps(*keys: str) -> Steps:
    return snapshot_steps(*keys, before=_open_tab)


def test_contradictions_tab_snapshot(snap_compare: Callable[..., bool], demo_root: Path) -> None:
    app = make_app(_with_a_contradiction(demo_root))
    assert snap_compare(app, terminal_size=SIZE, run_before=_tab_steps())


def test_resolve_dialog_snapshot(snap_compare: Callable[..., bool], demo_root: Path) -> None:
    app = make_app(_with_a_contradiction(demo_root))
    assert snap_compare(app, terminal_size=SIZE, run_before=_tab_steps("k"))


def test_curator_at_80x24_snapshot(snap_compare: Callable[..., bool], demo_root: Path) -> None:
    """The smallest terminal the curator must stay usable at: header, tabs, both panes, footer."""
    app = make_app(_with_a_contradiction(demo_root))
    assert snap_compare(app, terminal_size=(80, 24), run_before=_tab_steps())


async def test_one_contradiction_is_shown_without_enter(demo_root: Path) -> None:
    app = make_app(_with_a_contradiction(demo_root))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_mode(pilot, "f6", CuratorScreen, tab="conflicts-tab")  # no row chosen
        detail = app.screen.query_one("#conflict-text", Static).content
        assert isinstance(detail, Text)
        assert detail.plain.rstrip().endswith("They disagree: numbers 16 vs 15")
