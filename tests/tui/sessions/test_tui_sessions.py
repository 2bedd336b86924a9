"""The Sessions screen (F7): a snapshot with two sessions, and Pilot flows: switching
sessions, promoting a working fact through the pre-filled dialog, an empty store and a
corrupt one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Static

from foundry_tui.core.memory.project import Project
from foundry_tui.core.paths import Layout
from foundry_tui.core.sessions.ledger import ingest_transcript, persist_observation, persist_reflection
from foundry_tui.core.sessions.store import SessionStore
from foundry_tui.core.sessions.working import memory_command, working_facts
from foundry_tui.tui.sessions.screen import SessionsScreen
from tests.session_helpers import OTHER_SESSION, SESSION, assistant_lines, usage
from tests.tui_helpers import make_app, notices, settle, snapshot_steps

SIZE = (120, 40)
Compare = Callable[..., bool]


class Clock:
    def __init__(self) -> None:
        self.now = 1_796_025_600.0  # 2026-11-30 08:00 UTC

    def __call__(self) -> float:
        return self.now


def seed(root: Path) -> None:
    """Two sessions written through the core with a frozen clock."""
    clock = Clock()
    store = SessionStore(Layout(root), clock=clock)
    memory_command(store, OTHER_SESSION, "add", fact="staging deploys need the VPN")
    clock.now += 3_600
    transcript = root / "transcript.jsonl"
    transcript.write_text(
        assistant_lines("msg_1", usage(6, 24_000, 0, 900)) + assistant_lines("msg_2", usage(4, 5_000, 24_000, 120))
    )
    with store.transaction() as conn:
        ingest_transcript(store, conn, SESSION, str(transcript))
    for fact in ("migrations run with make migrate", "orders tests need FOO=1", "Orders are archived after 90 days"):
        clock.now += 60
        memory_command(store, SESSION, "add", fact=fact)
    clock.now += 60
    persist_observation(store, SESSION, ["ran the orders suite: 3 failures, all in fixtures"], 30_030)
    clock.now += 300
    persist_reflection(store, SESSION, ["the orders fixtures are stale since the archive change"])
    clock.now += 120
    persist_observation(store, SESSION, ["regenerated the fixtures; suite green"], 9_000)
    store.close()
    transcript.unlink()


def test_sessions_screen(snap_compare: Compare, demo_root: Path) -> None:
    seed(demo_root)
    assert snap_compare(make_app(demo_root), terminal_size=SIZE, run_before=snapshot_steps("f7"))


def _text(pilot: Pilot[Any], widget_id: str) -> str:
    return str(pilot.app.screen.query_one(widget_id, Static).render())


async def test_switch_session_and_promote_a_working_fact(demo_root: Path) -> None:
    seed(demo_root)
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await snapshot_steps("f7")(pilot)
        assert _text(pilot, "#session-head").startswith(SESSION)
        assert "[observation]\n- 2026-11-30 09:11 regenerated the fixtures; suite green" in _text(
            pilot, "#session-tiers"
        )
        assert "#7 2026-11-30 09:11:00  observation: 1 entry, 9,000 tokens" in _text(pilot, "#session-audit")

        sessions = pilot.app.screen.query_one("#sessions", DataTable)
        sessions.focus()
        await pilot.press("down")
        await settle(pilot)
        assert _text(pilot, "#session-head").startswith(OTHER_SESSION)
        await pilot.press("up")
        await settle(pilot)

        working = pilot.app.screen.query_one("#working", DataTable)
        working.focus()
        await pilot.press("down", "down")
        screen = pilot.app.screen
        assert isinstance(screen, SessionsScreen)
        screen.load()  # what the 5-second refresh does: the cursor stays on its fact
        await settle(pilot)
        assert working.cursor_row == 2
        await pilot.press("p")
        await settle(pilot)
        title = pilot.app.screen.query_one("#title", Input)
        assert title.value == "Orders are archived after 90 days"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "promoted to fact-" in _text(pilot, "#session-audit")

    project = Project(demo_root)
    project.sync()
    promoted = [f for f in project.store.facts.values() if f.title == "Orders are archived after 90 days"]
    assert len(promoted) == 1
    assert f"Promoted from session {SESSION}'s working memory." in promoted[0].body
    store = SessionStore(Layout(demo_root))
    assert working_facts(store.memory(SESSION))[0][2] == "Orders are archived after 90 days"  # the working fact stays
    assert store.audit(SESSION)[-1]["kind"] == "promoted"


async def test_no_sessions_and_a_corrupt_store(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await snapshot_steps("f7")(pilot)
        assert _text(pilot, "#session-head") == (
            "No sessions in .foundry/scratch/sessions.db yet: they appear when an agent's foundry hooks run."
        )
        await pilot.press("p")  # nothing to promote: a warning, not a crash
        await settle(pilot)
    db = demo_root / ".foundry/scratch/sessions.db"
    db.parent.mkdir(parents=True, exist_ok=True)
    db.write_bytes(b"garbage" * 100)
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await snapshot_steps("f7")(pilot)
        messages = [n.message for n in notices(pilot.app)]
        assert any(m.startswith("Sessions not read: .foundry/scratch/sessions.db cannot be used") for m in messages)
    assert db.read_bytes() == b"garbage" * 100
