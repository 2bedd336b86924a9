"""Curator mode driven by Pilot: merge the demo's planted pair with a preview, undo it,
add a tag from a missed search, retire in bulk; and its snapshots."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import SelectionList, Static, TabbedContent

from foundry_tui.core.memory.facts import parse_fact_text
from foundry_tui.tui.screens.confirm import ConfirmScreen
from foundry_tui.tui.screens.curator import CuratorScreen
from foundry_tui.tui.screens.merge import MergeScreen

from .tui_helpers import make_app, option_ids, select, settle

SIZE = (120, 40)


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted((root / ".foundry/memory").rglob("*")) if p.is_file()
    }


async def _open_curator(pilot: Pilot[Any]) -> None:
    await settle(pilot)
    await pilot.press("f6")
    await settle(pilot)


async def test_merge_the_planted_pair_then_undo(demo_root: Path) -> None:
    before = _tree(demo_root)
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await _open_curator(pilot)
        assert isinstance(app.screen, CuratorScreen)
        assert option_ids(pilot, "#groups")[0] == "group:0"  # the planted pair is at the top
        await select(pilot, "group:0", "#groups")
        assert "fact-0007 ~ fact-0014" in str(app.screen.query_one("#group-text", Static).render())
        await pilot.press("m")
        await settle(pilot)
        assert isinstance(app.screen, MergeScreen)
        preview = str(app.screen.query_one("#merge-preview", Static).render())
        assert (
            "write   .foundry/memory/facts/fact-0017.md" in preview and "merged_from: [fact-0007, fact-0014]" in preview
        )
        assert _tree(demo_root) == before  # nothing written yet
        await pilot.press("ctrl+s")
        await settle(pilot)
        merged = parse_fact_text((demo_root / ".foundry/memory/facts/fact-0017.md").read_text(), "fact-0017")
        assert merged.extras["merged_from"] == ["fact-0007", "fact-0014"]
        assert option_ids(pilot, "#groups") == []  # no near-duplicates left
        await pilot.press("u")
        await settle(pilot)
    assert _tree(demo_root) == before  # byte for byte


async def test_add_a_tag_from_a_missed_search(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await _open_curator(pilot)
        app.screen.query_one(TabbedContent).active = "missed-tab"
        await settle(pilot)
        assert option_ids(pilot, "#missed") == ["missed:0", "missed:1"]
        await select(pilot, "missed:0", "#missed")  # "kubernetes deploy" × 2
        near = option_ids(pilot, "#near")
        assert near
        await select(pilot, near[0], "#near")
        await pilot.press("t")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("ctrl+s")
        await settle(pilot)
    fact = parse_fact_text((demo_root / f".foundry/memory/facts/{near[0]}.md").read_text(), near[0])
    assert "kubernetes" in fact.tags


async def test_retire_in_bulk(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await _open_curator(pilot)
        app.screen.query_one(TabbedContent).active = "retire-tab"
        await settle(pilot)
        selection = app.screen.query_one("#retire-list", SelectionList)
        selection.select("fact-0011")
        await pilot.press("x")
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
    assert "expires: 2026-11-29" in (demo_root / ".foundry/memory/facts/fact-0011.md").read_text()


def _curator_steps(*keys: str) -> Callable[[Pilot[Any]], Any]:
    async def run_before(pilot: Pilot[Any]) -> None:
        await _open_curator(pilot)
        await select(pilot, "group:0", "#groups")
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        pilot.app.screen.set_focus(None)
        await settle(pilot)
        await pilot.wait_for_scheduled_animations()  # a tab's underline slides into place

    return run_before


def test_curator_snapshot_with_a_group_selected(snap_compare: Callable[..., bool], demo_root: Path) -> None:
    assert snap_compare(make_app(demo_root), terminal_size=SIZE, run_before=_curator_steps())


def test_merge_preview_snapshot(snap_compare: Callable[..., bool], demo_root: Path) -> None:
    assert snap_compare(make_app(demo_root), terminal_size=SIZE, run_before=_curator_steps("m"))
