"""The Approvals screen driven by Pilot: a curator approves a parked proposal, rejects one
with a reason, sees the header's pending count; writes from the TUI go through the gate;
and its snapshot."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Label, OptionList, Select, Static, TextArea

from foundry_tui.core.gate.guard import guarded_memory_write
from foundry_tui.core.gate.proposals import list_proposals
from foundry_tui.core.memory.model.request import WriteRequest
from foundry_tui.core.memory.project import Project
from foundry_tui.core.paths import Layout
from foundry_tui.core.trust.principal import Caller, Principal
from foundry_tui.tui.app import FoundryApp
from foundry_tui.tui.common.confirm import ConfirmScreen
from foundry_tui.tui.common.status_header import StatusHeader
from foundry_tui.tui.curator.approvals import ApprovalsScreen
from tests.helpers import TODAY
from tests.tui_helpers import notifications, open_mode, press, settle, snapshot_steps

SIZE = (120, 40)
SIZES = [SIZE, (80, 24)]  # issue 31: every behaviour at 80x24 too
ALICE = Caller(Principal("user", "alice"))
BOB = Caller(Principal("user", "bob"))


def _park_two(root: Path) -> None:
    """The demo trusting alice alone, with two of bob's writes parked: a new version of an
    existing fact (fact-0007's title) and a new fact."""
    config_path = root / ".foundry/config.json"
    config = json.loads(config_path.read_text()) if config_path.exists() else {}
    config_path.write_text(json.dumps({**config, "trust": {"trusted": ["user:alice"]}}))
    project = Project(root)
    project.sync()
    title = project.store.get("fact-0007").title  # type: ignore[union-attr]
    for req in (
        WriteRequest(title, "All API responses use snake_case keys, including error bodies.", "convention"),
        WriteRequest("Feature flags live in LaunchDarkly", "One place to flip them.", "convention"),
    ):
        assert guarded_memory_write(project, BOB, req, TODAY).status == "parked"


def _app(root: Path, caller: Caller = ALICE) -> FoundryApp:
    return FoundryApp(root, TODAY, watch=False, root_label="demo", caller=caller)


async def _open(pilot: Pilot[Any]) -> None:
    await open_mode(pilot, "f9", ApprovalsScreen)


async def test_approve_a_proposal_after_confirming(demo_root: Path) -> None:
    _park_two(demo_root)
    facts_before = sorted(p.name for p in (demo_root / ".foundry/memory/facts").glob("*.md"))
    app = _app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "2 proposals pending (F9)" in app.screen.query_one(StatusHeader).part("pending")
        await _open(pilot)
        assert isinstance(app.screen, ApprovalsScreen)
        title = str(app.screen.query_one("#approvals-title", Label).render())
        assert title.startswith("Approvals · 2 pending · you are user:alice")
        options = app.screen.query_one("#proposals", OptionList)
        assert options.highlighted == 0 and app.screen.selected == "prop-0001"
        active = str(app.screen.query_one("#active-text", Static).render())
        proposed = str(app.screen.query_one("#proposed-text", Static).render())
        assert "id: fact-0007" in active and "including error bodies" in proposed
        await press(pilot, "a")
        assert isinstance(app.screen, ConfirmScreen)  # nothing happens before the confirmation
        assert sorted(p.name for p in (demo_root / ".foundry/memory/facts").glob("*.md")) == facts_before
        await press(pilot, "ctrl+s")
        assert isinstance(app.screen, ApprovalsScreen)
        title = str(app.screen.query_one("#approvals-title", Label).render())
        assert title.startswith("Approvals · 1 pending")
    new = demo_root / ".foundry/memory/facts/fact-0017.md"
    assert new.exists() and "source: conversation; proposed by user:bob in prop-0001" in new.read_text()
    assert "supersedes: fact-0007" in new.read_text()
    first = list_proposals(Project(demo_root).layout)[0]
    assert (first.status, first.meta["decidedBy"], first.meta["factId"]) == ("approved", "user:alice", "fact-0017")


async def test_reject_with_a_reason_and_cancel_changes_nothing(demo_root: Path) -> None:
    _park_two(demo_root)
    app = _app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot)
        await press(pilot, "r")
        await pilot.press("escape")  # cancelled: nothing decided
        await settle(pilot)
        assert list_proposals(Project(demo_root).layout)[0].status == "pending"
        await press(pilot, "r")
        assert isinstance(app.screen, ConfirmScreen)
        app.screen.query_one("#dialog-field", Input).value = "we keep error bodies as they are"
        await press(pilot, "ctrl+s")
    first = list_proposals(Project(demo_root).layout)[0]
    assert (first.status, first.meta["reason"]) == ("rejected", "we keep error bodies as they are")


async def test_an_untrusted_curator_cannot_approve_in_the_tui(demo_root: Path) -> None:
    _park_two(demo_root)
    app = _app(demo_root, BOB)
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot)
        await press(pilot, "a")
        await press(pilot, "ctrl+s")
    assert [p.status for p in list_proposals(Project(demo_root).layout)] == ["pending", "pending"]
    assert not (demo_root / ".foundry/memory/facts/fact-0017.md").exists()


async def test_a_write_from_the_tui_by_an_untrusted_person_parks(demo_root: Path) -> None:
    _park_two(demo_root)
    app = _app(demo_root, BOB)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "w")
        app.screen.query_one("#title", Input).value = "Staging resets nightly"
        app.screen.query_one("#type", Select).value = "convention"
        app.screen.query_one("#body", TextArea).text = "At 02:00 UTC."
        await press(pilot, "ctrl+s")
        await pilot.press("ctrl+s")  # confirm
        await settle(pilot)
        assert any("parked: prop-0003 (user:bob is not trusted" in m for m in notifications(pilot))
        assert "3 proposals pending (F9)" in app.screen.query_one(StatusHeader).part("pending")
    assert [p.would_do for p in list_proposals(Project(demo_root).layout)][-1] == "created"
    assert not (demo_root / ".foundry/memory/facts/fact-0017.md").exists()


async def test_a_preferences_clear_request_is_confirmed_in_the_tui(demo_root: Path) -> None:
    from foundry_tui.core.trust.preferences import preferences_path, request_clear, save_preferences

    save_preferences(ALICE, "Base branch: develop.")
    request_clear(ALICE)
    app = _app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot)
        assert "a clear request is pending (c confirms it)" in str(
            app.screen.query_one("#approvals-title", Label).render()
        )
        await press(pilot, "c")
        assert isinstance(app.screen, ConfirmScreen) and preferences_path(ALICE.principal).exists()
        await press(pilot, "ctrl+s")
    assert not preferences_path(ALICE.principal).exists()


def test_approvals_screen_snapshot(snap_compare: Callable[..., bool], demo_root: Path) -> None:
    _park_two(demo_root)
    assert snap_compare(_app(demo_root), terminal_size=SIZE, run_before=snapshot_steps(before=_open))


@pytest.mark.parametrize("size", SIZES)
async def test_tick_two_and_approve_them_with_one_confirm(demo_root: Path, size: tuple[int, int]) -> None:
    """Issue 31, item 13: Space ticks, `a` lists every ticked proposal in one confirm and
    approves them all."""
    _park_two(demo_root)
    app = _app(demo_root)
    async with app.run_test(size=size) as pilot:
        await _open(pilot)
        await press(pilot, "space", "down", "space")
        title = str(app.screen.query_one("#approvals-title", Label).render())
        assert title.endswith("· 2 ticked")
        await press(pilot, "a")
        assert isinstance(app.screen, ConfirmScreen)
        assert str(app.screen.query_one("#dialog-title").render()) == "Approve 2 proposals as user:alice?"
        changes = str(app.screen.query_one("#dialog-changes", Static).render()).splitlines()
        assert [line.split(": ")[0] for line in changes[1:3]] == [
            "  • prop-0001 by user:bob",
            "  • prop-0002 by user:bob",
        ]
        await press(pilot, "ctrl+s")
        title = str(app.screen.query_one("#approvals-title", Label).render())
        assert title.startswith("Approvals · 0 pending")
    assert [p.status for p in list_proposals(Layout(demo_root))] == ["approved", "approved"]


@pytest.mark.parametrize("size", SIZES)
async def test_reject_several_with_one_reason(demo_root: Path, size: tuple[int, int]) -> None:
    _park_two(demo_root)
    app = _app(demo_root)
    async with app.run_test(size=size) as pilot:
        await _open(pilot)
        await press(pilot, "space", "down", "space", "r")
        assert str(app.screen.query_one("#dialog-title").render()) == "Reject 2 proposals?"
        app.screen.query_one("#dialog-field", Input).value = "duplicates of fact-0007"
        await press(pilot, "ctrl+s")
    assert [p.status for p in list_proposals(Layout(demo_root))] == ["rejected", "rejected"]


@pytest.mark.parametrize("size", SIZES)
async def test_filter_the_proposals_by_author(demo_root: Path, size: tuple[int, int]) -> None:
    _park_two(demo_root)
    carol = Caller(Principal("user", "carol"))
    project = Project(demo_root)
    req = WriteRequest("Deploys freeze on Fridays after noon", "No release then.", "constraint")
    assert guarded_memory_write(project, carol, req, TODAY).status == "parked"
    app = _app(demo_root)
    async with app.run_test(size=size) as pilot:
        await _open(pilot)
        options = app.screen.query_one("#proposals", OptionList)
        assert options.option_count == 3
        await press(pilot, "f")
        title = str(app.screen.query_one("#approvals-title", Label).render())
        assert "· by user:bob only (f: the next author)" in title
        assert [options.get_option_at_index(i).id for i in range(options.option_count)] == ["prop-0001", "prop-0002"]
        await press(pilot, "f")
        assert [options.get_option_at_index(i).id for i in range(options.option_count)] == ["prop-0003"]
        await press(pilot, "f")
        assert options.option_count == 3
