"""Curator mode driven by Pilot: merge the demo's planted pair with a preview, undo it,
add a tag from a missed search, retire in bulk; and its snapshots."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Button, Select, SelectionList, Static, TextArea

from foundry_tui.core import atomic
from foundry_tui.core.memory.model.facts import parse_fact_text
from foundry_tui.tui.common.confirm import ConfirmScreen
from foundry_tui.tui.common.draft import DiscardDraftScreen
from foundry_tui.tui.curator.merge import MergeScreen
from foundry_tui.tui.curator.screen import CuratorScreen
from tests.tui_helpers import (
    Steps,
    drawn,
    make_app,
    notices,
    notifications,
    open_mode,
    option_ids,
    press,
    select,
    settle,
    snapshot_steps,
    text_of,
)

SIZE = (120, 40)


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted((root / ".foundry/memory").rglob("*")) if p.is_file()
    }


def _top(app: App[Any]) -> Screen[Any]:
    """The screen on top (a function: mypy keeps no narrowing of `app.screen` across a key press)."""
    return app.screen


async def _open_curator(pilot: Pilot[Any], tab: str | None = None) -> None:
    await open_mode(pilot, "f6", CuratorScreen, tab=tab)


async def test_merge_the_planted_pair_then_undo(demo_root: Path) -> None:
    before = _tree(demo_root)
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await _open_curator(pilot)
        assert isinstance(app.screen, CuratorScreen)
        assert option_ids(pilot, "#groups")[0] == "group:0"  # the planted pair is at the top
        await select(pilot, "group:0", "#groups")
        assert "fact-0007 ~ fact-0014" in str(app.screen.query_one("#group-text", Static).render())
        await press(pilot, "m")
        assert isinstance(app.screen, MergeScreen)
        preview = str(app.screen.query_one("#merge-preview", Static).render())
        assert (
            "write   .foundry/memory/facts/fact-0017.md" in preview and "merged_from: [fact-0007, fact-0014]" in preview
        )
        assert _tree(demo_root) == before  # nothing written yet
        await press(pilot, "ctrl+s")
        merged = parse_fact_text((demo_root / ".foundry/memory/facts/fact-0017.md").read_text(), "fact-0017")
        assert merged.extras["merged_from"] == ["fact-0007", "fact-0014"]
        assert option_ids(pilot, "#groups") == []  # no near-duplicates left
        await press(pilot, "u")
    assert _tree(demo_root) == before  # byte for byte


async def test_the_merge_editor_chooses_the_merged_facts_type(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await _open_curator(pilot)
        await select(pilot, "group:0", "#groups")
        await press(pilot, "m")
        assert isinstance(app.screen, MergeScreen)
        kind = app.screen.query_one("#merge-type", Select)
        assert kind.value == "convention"  # the first source's type, offered first
        kind.value = "decision"
        await settle(pilot)
        assert "\ntype: decision\n" in str(app.screen.query_one("#merge-preview", Static).render())
        await press(pilot, "ctrl+s")
    merged = parse_fact_text((demo_root / ".foundry/memory/facts/fact-0017.md").read_text(), "fact-0017")
    assert (merged.type, merged.extras["merged_from"]) == ("decision", ["fact-0007", "fact-0014"])


async def test_escape_asks_before_an_edited_merge_is_thrown_away(demo_root: Path) -> None:
    """Issue 31, item 2, in the merge editor at 80x24: Escape (from inside the body, too) or
    Cancel on an edited draft asks first, as the write form does; Keep editing keeps the
    edit; Discard closes it, nothing written. An untouched editor closes at once."""
    before = _tree(demo_root)
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await _open_curator(pilot)
        await press(pilot, "m")
        editor = _top(app)
        assert isinstance(editor, MergeScreen)
        await press(pilot, "escape")  # untouched: no question
        assert isinstance(_top(app), CuratorScreen)
        await press(pilot, "m")
        editor = _top(app)
        assert isinstance(editor, MergeScreen)
        body = editor.query_one("#merge-body", TextArea)
        body.focus()
        body.move_cursor(body.document.end)
        await pilot.press(*" One claim.")
        edited = body.text
        assert edited.endswith(" One claim.")
        await press(pilot, "escape")  # from inside the body's TextArea
        assert isinstance(_top(app), DiscardDraftScreen)
        await press(pilot, "escape")  # the question's own Escape keeps the draft
        assert _top(app) is editor and body.text == edited
        editor.query_one("#cancel", Button).press()  # the editor's Cancel asks too
        await settle(pilot)
        assert isinstance(_top(app), DiscardDraftScreen)
        _top(app).query_one("#cancel", Button).press()  # "Keep editing"
        await settle(pilot)
        assert _top(app) is editor and body.text == edited
        await press(pilot, "escape")
        assert isinstance(_top(app), DiscardDraftScreen)
        _top(app).query_one("#discard", Button).press()
        await settle(pilot)
        assert isinstance(_top(app), CuratorScreen)
    assert _tree(demo_root) == before


async def test_add_a_tag_from_a_missed_search(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await _open_curator(pilot, "missed-tab")
        assert option_ids(pilot, "#missed") == [f"missed:{n}" for n in range(5)]
        await select(pilot, "missed:0", "#missed")  # "kubernetes deploy" × 29
        near = option_ids(pilot, "#near")
        assert near
        await select(pilot, near[0], "#near")
        await press(pilot, "t")
        assert isinstance(app.screen, ConfirmScreen)
        await press(pilot, "ctrl+s")
    fact = parse_fact_text((demo_root / f".foundry/memory/facts/{near[0]}.md").read_text(), near[0])
    assert "kubernetes" in fact.tags


async def test_retire_in_bulk(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await _open_curator(pilot, "retire-tab")
        selection = app.screen.query_one("#retire-list", SelectionList)
        selection.select("fact-0011")
        await press(pilot, "x")
        assert isinstance(app.screen, ConfirmScreen) and app.screen.title_text == "Retire 1 fact?"
        await press(pilot, "ctrl+s")
    assert "expires: 2026-11-29" in (demo_root / ".foundry/memory/facts/fact-0011.md").read_text()


# Another process holding the memory folder's lock (flock on the folder, as folder_lock takes it).
HOLD_THE_LOCK = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.read()
"""


async def test_a_failing_undo_is_reported_and_the_app_stays_up(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lock's timeout during `u` used to close the app; now it is one notification, and the undo is kept."""
    monkeypatch.setattr("foundry_tui.core.curation.merge.folder_lock", partial(atomic.folder_lock, timeout=0.3))
    memory_dir = demo_root / ".foundry/memory"
    before = _tree(demo_root)
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await _open_curator(pilot)
        await select(pilot, "group:0", "#groups")
        await press(pilot, "m")
        await press(pilot, "ctrl+s")
        assert (memory_dir / "facts/fact-0017.md").exists()
        holder = subprocess.Popen(
            [sys.executable, "-c", HOLD_THE_LOCK, str(memory_dir)], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        try:
            assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
            await press(pilot, "u")
        finally:
            assert holder.stdin is not None
            holder.stdin.close()
            holder.wait()
        assert app.is_running and isinstance(app.screen, CuratorScreen)
        errors = [n.message for n in notices(app) if n.severity == "error"]
        assert errors == [
            f"Not undone: {memory_dir} is locked by another writer for over 0.3 s: retry, or stop the stuck process"
        ]
        assert (memory_dir / "facts/fact-0017.md").exists()  # nothing was undone ...
        await pilot.press("u")  # ... and the undo is still there once the other writer has gone
        await settle(pilot)
    assert _tree(demo_root) == before


async def test_the_palette_runs_a_curator_command(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await _open_curator(pilot)
        await press(pilot, "ctrl+p")
        await press(pilot, *"undo merge", "enter")
        assert isinstance(app.screen, CuratorScreen)
        assert notifications(pilot) == ["No merge to undo in this session."]


async def _open_first_group(pilot: Pilot[Any]) -> None:
    await _open_curator(pilot)
    await select(pilot, "group:0", "#groups")


def _curator_steps(*keys: str) -> Steps:
    return snapshot_steps(*keys, before=_open_first_group)


def test_curator_snapshot_with_a_group_selected(snap_compare: Callable[..., bool], demo_root: Path) -> None:
    assert snap_compare(make_app(demo_root), terminal_size=SIZE, run_before=_curator_steps())


def test_merge_preview_snapshot(snap_compare: Callable[..., bool], demo_root: Path) -> None:
    assert snap_compare(make_app(demo_root), terminal_size=SIZE, run_before=_curator_steps("m"))


async def test_one_group_is_shown_without_enter(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_mode(pilot, "f6", CuratorScreen)
        detail = app.screen.query_one("#group-text", Static).content
        assert isinstance(detail, Text)
        assert detail.plain.startswith("fact-0007 · convention · API responses use snake_case JSON keys\n")


async def test_the_first_space_ticks_the_highlighted_row_with_a_glyph(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_mode(pilot, "f6", CuratorScreen, tab="retire-tab")
        selection = app.screen.query_one("#retire-list", SelectionList)
        selection.focus()
        await settle(pilot)
        assert "[ ] fact-0011 — add a Why: line" in text_of(drawn(app, 4))  # the marker bold, not markdown
        await press(pilot, "space")
        assert list(selection.selected) == ["fact-0011"]
        assert "[x] fact-0011 — add a Why: line" in text_of(drawn(app, 4))  # ticked, without colour
        await press(pilot, "space")
        assert list(selection.selected) == []
        assert "[ ] fact-0011" in text_of(drawn(app, 4))
