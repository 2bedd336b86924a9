"""Hardening of the approvals path (issue 28): one lock order, a busy indicator, a lock
time-out surfaced; the demo kept away from the user's real preferences; proposals shown
from what approval applies; a deeply nested proposal listed as broken."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import threading
from pathlib import Path

import pytest
from textual.widgets import Label, OptionList, Static

from foundry_tui.core import atomic
from foundry_tui.core.gate.changes import Change, RetireChange, WriteChange
from foundry_tui.core.gate.guard import guarded_write
from foundry_tui.core.gate.proposals import Proposal, approve_proposal, list_proposals, reviews
from foundry_tui.core.memory.model.request import WriteRequest
from foundry_tui.core.memory.project import Project
from foundry_tui.core.reserved import proposals_dir
from foundry_tui.core.trust.preferences import request_clear, save_preferences
from foundry_tui.core.trust.principal import Caller, Principal
from foundry_tui.core.yaml_bounds import MAX_YAML_DEPTH
from foundry_tui.demo import make_demo_copy, remove_demo_copy, use_demo_environment
from foundry_tui.tui.app import FoundryApp
from foundry_tui.tui.common.base import BUSY_DELAY
from foundry_tui.tui.curator.approvals import ApprovalsScreen
from tests.helpers import TODAY, run_cli
from tests.tui_helpers import notifications, open_mode, press, settle

SIZE = (120, 40)
ALICE = Caller(Principal("user", "alice"))
BOB = Caller(Principal("user", "bob"))


def _trust_alice(root: Path) -> None:
    config_path = root / ".foundry/config.json"
    config = json.loads(config_path.read_text()) if config_path.exists() else {}
    config_path.write_text(json.dumps({**config, "trust": {"trusted": ["user:alice"]}}))


def _park(project: Project, change: Change[object]) -> list[Proposal]:
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
    for seen in reviews(project, TODAY):
        assert seen.proposal.status == "approved" and f"id: {seen.proposal.meta['factId']}" in seen.before


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


# ---- 8: what is shown is what approval applies -------------------------------------------------


def _forged_retire(project: Project) -> Path:
    """bob's retire of fact-0003 edited by hand: request.ids now lists three facts, and the
    file claims alice wrote it and that it retires fact-0003 alone."""
    for n in range(1, 4):
        guarded_write(project, ALICE, WriteChange(WriteRequest(f"Fact {n} stands", f"Body {n}.", "convention")), TODAY)
    (parked,) = _park(project, RetireChange(["fact-0003"], "2026-11-29"))
    data = json.loads(parked.path.read_text())
    data["proposal"].update(author="user:alice", wouldDo="retire fact-0003 (expires 2026-11-29)")
    data["proposal"]["request"]["ids"] = ["fact-0001", "fact-0002", "fact-0003"]
    parked.path.write_text(json.dumps(data))
    return parked.path


def test_a_proposal_is_shown_as_what_it_applies_not_as_it_says(project: Project) -> None:
    root = project.layout.root
    _trust_alice(root)
    _forged_retire(project)
    listing = run_cli("--root", str(root), "proposals", "list", "--today", TODAY.isoformat()).out.splitlines()
    assert listing[0] == (
        "prop-0001  pending   retire   claimed by user:alice (not committed to git), today: "
        "fact-0001, fact-0002, fact-0003 (expires 2026-11-29)"
    )
    assert listing[1] == (
        "           would: retire fact-0001 (expires 2026-11-29); retire fact-0002 (expires 2026-11-29); "
        "retire fact-0003 (expires 2026-11-29)"
    )
    shown = run_cli("--root", str(root), "proposals", "show", "prop-0001", "--today", TODAY.isoformat()).out
    assert "--- active fact-0001, fact-0002, fact-0003\n" in shown
    assert shown.count("+expires: 2026-11-29") == 3
    listed = run_cli("--root", str(root), "proposals", "list", "--json", "--today", TODAY.isoformat()).out
    (entry,) = json.loads(listed)["proposals"]
    # the machine-readable listing keeps the file's own words apart, as claims
    assert not {"author", "title", "wouldDo"} & set(entry)
    assert entry["claimed"]["author"] == "user:alice" and entry["request"]["ids"] == [
        "fact-0001",
        "fact-0002",
        "fact-0003",
    ]


def _git(root: Path, *args: str, name: str) -> None:
    """git as `name` (author and committer)."""
    people = {
        f"GIT_{who}_{what}": value
        for who in ("AUTHOR", "COMMITTER")
        for what, value in (("NAME", name), ("EMAIL", f"{name}@example.com"))
    }
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, env={**os.environ, **people})


def test_the_author_is_checked_against_git(project: Project) -> None:
    root = project.layout.root
    _trust_alice(root)
    _git(root, "init", "-q", name="x")
    (bob,) = _park_write(project, "Releases are tagged vX.Y.Z", "Semver tags.")
    _git(root, "add", "-A", name="bob")
    _git(root, "commit", "-q", "-m", "bob proposes", name="bob")
    path = _forged_retire(project)  # prop-0002, claiming alice
    _git(root, "add", "-A", name="mallory")
    _git(root, "commit", "-q", "-m", "a pull request", name="mallory")
    listing = run_cli("--root", str(root), "proposals", "list", "--today", TODAY.isoformat()).out.splitlines()
    assert listing[0].startswith(f"{bob.id}  pending   write    by user:bob, today: ")
    assert listing[2].startswith(
        "prop-0002  pending   retire   claimed by user:alice (added in git by mallory <mallory@example.com>), "
    )
    bob.path.write_text(bob.path.read_text().replace("Semver tags.", "Semver tags, signed."))
    assert (
        run_cli("--root", str(root), "proposals", "list")
        .out.splitlines()[0]
        .startswith(f"{bob.id}  pending   write    claimed by user:bob (changed since it was committed), ")
    )
    assert path.exists()


async def test_the_proposed_pane_is_exactly_the_fact_approval_writes(demo_root: Path) -> None:
    project = Project(demo_root)
    _trust_alice(demo_root)
    project.sync()
    fact = project.store.get("fact-0007")
    assert fact is not None and fact.confidence != "medium"  # carried over, not the default
    (parked,) = _park_write(project, fact.title, "All API responses use snake_case keys, including error bodies.")
    app = FoundryApp(demo_root, TODAY, watch=False, root_label="demo", caller=ALICE)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_mode(pilot, "f9", ApprovalsScreen)
        proposed = str(screen.query_one("#proposed-text", Static).render())
        await press(pilot, "a", "ctrl+s")
    written = (demo_root / ".foundry/memory/facts/fact-0017.md").read_text()
    assert proposed == written
    assert f"confidence: {fact.confidence}" in written and f"proposed by user:bob in {parked.id}" in written
