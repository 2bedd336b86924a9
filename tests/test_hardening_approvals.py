"""Hardening of the approvals path (issue 28): one lock order, a busy indicator, a lock
time-out surfaced; the demo kept away from the user's real preferences; proposals shown
from what approval applies; a deeply nested proposal listed as broken."""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path

import pytest
from textual.widgets import Label, OptionList, Static

from foundry_tui.core import atomic
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.write import WriteRequest
from foundry_tui.core.trust.changes import Change, WriteChange
from foundry_tui.core.trust.policy import guarded_write
from foundry_tui.core.trust.preferences import request_clear, save_preferences
from foundry_tui.core.trust.principal import Caller, Principal
from foundry_tui.core.trust.proposals import Proposal, approve_proposal, list_proposals, reviews
from foundry_tui.core.trust.reserved import proposals_dir
from foundry_tui.core.yaml_bounds import MAX_YAML_DEPTH
from foundry_tui.demo import make_demo_copy, remove_demo_copy, use_demo_environment
from foundry_tui.tui.app import FoundryApp
from foundry_tui.tui.screens.approvals import ApprovalsScreen
from foundry_tui.tui.screens.base import BUSY_DELAY

from .helpers import TODAY, run_cli
from .tui_helpers import notifications, open_mode, press, settle

SIZE = (120, 40)
ALICE = Caller(Principal("user", "alice"))
BOB = Caller(Principal("user", "bob"))


def _trust_alice(root: Path) -> None:
    config_path = root / ".foundry/config.json"
    config = json.loads(config_path.read_text()) if config_path.exists() else {}
    config_path.write_text(json.dumps({**config, "trust": {"trusted": ["user:alice"]}}))


def _park(project: Project, change: Change) -> list[Proposal]:
    """bob's change, parked (alice alone is trusted)."""
    gate = guarded_write(project, BOB, change, TODAY)
    assert gate.status == "parked", gate.text
    by_id = {p.id: p for p in list_proposals(project.layout)}
    return [by_id[i] for i in gate.proposal_ids]


def _park_write(project: Project, title: str, body: str) -> list[Proposal]:
    return _park(project, WriteChange(WriteRequest(title, body, "convention")))


def _folder_state(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# ---- 6: the demo has its own data folder -------------------------------------------------------


def _real_preferences_with_a_clear_request(folder: Path) -> dict[str, bytes]:
    """The user's real data folder: alice's preferences with a clear request pending."""
    save_preferences(ALICE, "Base branch: develop.")
    request_clear(ALICE)
    state = _folder_state(folder)
    key = hashlib.sha256(b"user:alice").hexdigest()
    assert sorted(state) == [f"user-preferences/{key}.clear-request", f"user-preferences/{key}.md"]
    return state


@pytest.mark.parametrize("variable", ["FOUNDRY_DATA_DIR", "XDG_DATA_HOME"])
def test_the_demo_cli_never_touches_the_real_preferences(
    variable: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = tmp_path / "real-data"
    monkeypatch.delenv("FOUNDRY_DATA_DIR")
    monkeypatch.setenv(variable, str(real))
    data = real if variable == "FOUNDRY_DATA_DIR" else real / "foundry-tui"
    before = _real_preferences_with_a_clear_request(data)
    env = {"FOUNDRY_PRINCIPAL": "user:alice"}
    shown = run_cli("--demo", "prefs", "show", env=env)
    assert shown.code == 0 and shown.out.startswith("No preferences saved for user:alice yet."), shown.out
    confirmed = run_cli("--demo", "prefs", "clear", "--confirm", env=env)
    assert confirmed.code == 2
    assert "no clear request is pending for user:alice" in confirmed.err
    assert _folder_state(data) == before


async def test_the_demo_approvals_screen_does_not_offer_the_real_clear_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = tmp_path / "real-data"
    monkeypatch.setenv("FOUNDRY_DATA_DIR", str(real))  # restored when the test ends
    before = _real_preferences_with_a_clear_request(real)
    root = make_demo_copy(history=False)
    try:
        use_demo_environment(root)  # what `foundry --demo tui` does before the app starts
        app = FoundryApp(root, TODAY, watch=False, root_label="demo", caller=ALICE)
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_mode(pilot, "f9", ApprovalsScreen)
            title = str(screen.query_one("#approvals-title", Label).render())
            assert title == "Approvals · 0 pending · you are user:alice"
            await press(pilot, "c")
            assert notifications(pilot)[-1] == "No clear request of your preferences is pending."
    finally:
        remove_demo_copy(root)
    assert _folder_state(real) == before


# ---- 18: a deeply nested proposal file ---------------------------------------------------------


def _nested(levels: int) -> object:
    """A value `levels` deep (a list counts as one level)."""
    value: object = "deep"
    for _ in range(levels):
        value = [value]
    return value


def test_a_proposal_nested_past_the_bound_is_listed_broken_and_the_rest_as_usual(project: Project) -> None:
    root = project.layout.root
    _trust_alice(root)
    (good,) = _park_write(project, "Releases are tagged vX.Y.Z", "Semver tags.")
    folder = proposals_dir(project.layout)
    data = json.loads(good.path.read_text())
    # The artifact itself is level 1, so an extra field of MAX_YAML_DEPTH - 1 levels reaches the bound exactly.
    (folder / "prop-0002.json").write_text(
        json.dumps({**data, "proposal": {**data["proposal"], "id": "prop-0002"}, "x": _nested(MAX_YAML_DEPTH - 1)})
    )
    (folder / "prop-0003.json").write_text(
        json.dumps({**data, "proposal": {**data["proposal"], "id": "prop-0003"}, "x": _nested(MAX_YAML_DEPTH)})
    )
    (folder / "prop-0004.json").write_text("[" * 100_000 + "]" * 100_000)
    listing = run_cli("--root", str(root), "proposals", "list")
    assert listing.code == 0, listing.err
    lines = listing.out.splitlines()
    assert lines[0].startswith("prop-0001  pending   write    ") and lines[2].startswith(
        "prop-0002  pending   write    "
    )
    assert lines[4:] == [
        "prop-0003  broken    its JSON is nested deeper than 16 levels (never approved; fix or replace the file)",
        "prop-0004  broken    not valid JSON (nested too deeply) (never approved; fix or replace the file)",
        "2 pending.",
    ]
    as_json = json.loads(run_cli("--root", str(root), "proposals", "list", "--json").out)["proposals"]
    assert [(p["id"], p["status"]) for p in as_json] == [
        ("prop-0001", "pending"),
        ("prop-0002", "pending"),
        ("prop-0003", "broken"),
        ("prop-0004", "broken"),
    ]
    before = (folder / "prop-0003.json").read_bytes()
    refused = run_cli("--root", str(root), "proposals", "approve", "prop-0003", env={"FOUNDRY_PRINCIPAL": "user:alice"})
    assert refused.code == 2 and refused.err.startswith(
        "foundry: error: prop-0003 is broken (its JSON is nested deeper than 16 levels), so it is never approved"
    )
    assert (folder / "prop-0003.json").read_bytes() == before


# ---- 5: one lock order; a busy indicator; a lock time-out said -----------------------------------

FEW = 4  # pending proposals approved in a row


def _park_few(project: Project) -> list[Proposal]:
    _trust_alice(project.layout.root)
    return [p for n in range(FEW) for p in _park_write(project, f"Service {n} owns its queue", f"Queue {n}.")]


def test_the_approvals_read_and_an_approval_never_wait_on_each_other(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The screen's read (reviews) in one thread, approvals in another, sharing one Project as
    the TUI's workers do: they used to deadlock until the lock time-out broke it."""
    monkeypatch.setattr(atomic, "LOCK_TIMEOUT", 1.0)  # a regression fails in a second, not 30
    parked = _park_few(project)
    stop = threading.Event()
    failures: list[BaseException] = []
    reads = 0

    def read() -> None:
        nonlocal reads
        while not stop.is_set():
            try:
                reviews(project, TODAY)
            except BaseException as exc:  # raised below, in the test's thread
                failures.append(exc)
                return
            reads += 1

    reader = threading.Thread(target=read)
    reader.start()
    try:
        results = [approve_proposal(project, ALICE, p.id, TODAY) for p in parked]
    finally:
        stop.set()
        reader.join()
    assert failures == [] and reads > 0
    assert [r.splitlines()[:2] for r in results] == [
        [f"approved: prop-{n + 1:04d} (proposed by user:bob)", f"created: fact-{n + 1:04d}"] for n in range(FEW)
    ]
    for proposal, before, _after in reviews(project, TODAY):
        assert proposal.status == "approved" and f"id: {proposal.meta['factId']}" in before


async def test_approving_several_in_the_tui_is_prompt_and_shows_each_fact(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(atomic, "LOCK_TIMEOUT", 1.0)
    project = Project(demo_root)
    parked = _park_few(project)
    app = FoundryApp(demo_root, TODAY, watch=True, root_label="demo", caller=ALICE)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_mode(pilot, "f9", ApprovalsScreen)
        options = screen.query_one("#proposals", OptionList)
        for _ in parked:
            options.highlighted = 0  # the first pending one (pending come first)
            await press(pilot, "a", "ctrl+s")
        await settle(pilot)
        assert [n for n in notifications(pilot) if "locked" in n] == []
        title = str(screen.query_one("#approvals-title", Label).render())
        assert title.startswith("Approvals · 0 pending")
        for proposal in list_proposals(project.layout):
            assert proposal.status == "approved"
            options.highlighted = next(i for i, o in enumerate(options.options) if o.id == proposal.id)
            await settle(pilot)
            active = str(screen.query_one("#active-text", Static).render())
            assert f"id: {proposal.meta['factId']}\n" in active


async def test_a_slow_approval_shows_it_is_working_then_a_time_out_in_one_line(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(atomic, "LOCK_TIMEOUT", 2.0)
    project = Project(demo_root)
    _park_few(project)
    memory_dir = demo_root / ".foundry/memory"
    app = FoundryApp(demo_root, TODAY, watch=False, root_label="demo", caller=ALICE)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_mode(pilot, "f9", ApprovalsScreen)
        panes = screen.query_one("#panes")
        with atomic.folder_lock(memory_dir):  # another writer holds the memory
            await pilot.press("a")
            await pilot.pause(0.1)
            await pilot.press("ctrl+s")
            await pilot.pause(BUSY_DELAY + 0.2)
            assert panes.loading and not screen.query_one("#approvals-title").loading
            await settle(pilot)  # the approval gives up after LOCK_TIMEOUT
        assert not panes.loading
        assert [n for n in notifications(pilot) if n.startswith("Not approved")] == [
            f"Not approved: {memory_dir} is locked by another writer for over 2 s: retry, or stop the stuck process"
        ]
        assert list_proposals(project.layout)[0].status == "pending"
        await press(pilot, "a", "ctrl+s")  # the lock is free again: it goes through
        assert list_proposals(project.layout)[0].status == "approved"


async def test_a_lock_time_out_while_reading_proposals_is_said_not_swallowed(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(atomic, "LOCK_TIMEOUT", 0.5)
    project = Project(demo_root)
    _park_few(project)
    memory_dir = demo_root / ".foundry/memory"
    app = FoundryApp(demo_root, TODAY, watch=False, root_label="demo", caller=ALICE)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        with atomic.folder_lock(memory_dir):
            await press(pilot, "f9")
        assert isinstance(app.screen, ApprovalsScreen)
        assert [n for n in notifications(pilot) if "locked" in n] == [
            f"Proposals not read: {memory_dir} is locked by another writer for over 0.5 s: retry, or stop the stuck process"
        ]
