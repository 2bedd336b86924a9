"""The curator's stale view (issue 30, item 4) on a real git repository: the facts whose cited
files were edited, deleted or renamed, each row naming the state and the ref; confirm, retire
and supersede through the door, the diff since written on a key (there and in the fact pane);
and its snapshots at 80x24 and 160x45."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.pilot import Pilot
from textual.widgets import Input, Select, Static, TabbedContent, TextArea

from foundry_tui.core.memory.model.facts import parse_fact_text
from foundry_tui.tui.common.confirm import ConfirmScreen
from foundry_tui.tui.common.row_list import RowList
from foundry_tui.tui.curator.screen import CuratorScreen
from foundry_tui.tui.memory.code_diff import CodeDiffScreen
from foundry_tui.tui.memory.write_fact import WriteFactScreen
from tests.helpers import run_cli
from tests.tui_helpers import drawn, make_app, notifications, open_mode, press, select, settle, snapshot_steps, text_of

SIZE = (120, 40)
FACTS = ".foundry/memory/facts"


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t.invalid", "-c", "commit.gpgsign=false", *args],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


def blob(root: Path, path: str) -> str:
    return git(root, "hash-object", path).strip()


def _stale_repo(root: Path) -> Path:
    """Four facts citing four files; then one file edited, one deleted, one renamed (one left alone)."""
    git(root, "init", "-q", "-b", "main")
    (root / "app.py").write_text("def main():\n    return 1\n")
    (root / "old.py").write_text("OLD = 1\n")
    (root / "ledger.py").write_text("LEDGER = 1\n")
    (root / "fresh.py").write_text("FRESH = 1\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "code")
    for title, body in (
        ("The app starts in main", "The entry point is `app.py`."),
        ("Old code holds the constant", "See `old.py`."),
        ("The ledger has one constant", "See `ledger.py`."),
        ("Fresh code stays", "See `fresh.py`."),
    ):
        done = run_cli("memory", "write", "--root", str(root), "--title", title, "--body", body, "--type", "domain")
        assert done.code == 0, done.err
    (root / "app.py").write_text("def main():\n    return 2\n")
    git(root, "rm", "-q", "old.py")
    git(root, "mv", "ledger.py", "books.py")
    return root


async def _open_stale(pilot: Pilot[Any]) -> CuratorScreen:
    return await open_mode(pilot, "f6", CuratorScreen, tab="stale-tab")


def _row_texts(pilot: Pilot[Any]) -> list[str]:
    rows = pilot.app.screen.query_one("#stale", RowList).rows
    return [(text if isinstance(text, Text) else text()).plain for _id, text in rows]


def _fact(root: Path, fact_id: str) -> dict[str, object]:
    fact = parse_fact_text((root / FACTS / f"{fact_id}.md").read_text(), fact_id)
    return {"title": fact.title, "supersedes": fact.supersedes, "expires": fact.expires, **fact.extras}


STALE_ROWS = [
    "fact-0001 changed app.py  The app starts in main",
    "fact-0002 gone old.py  Old code holds the constant",
    "fact-0003 moved ledger.py → books.py  The ledger has one constant",
]


async def test_the_stale_view_lists_the_edited_deleted_and_renamed_facts(root: Path) -> None:
    app = make_app(_stale_repo(root))
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_stale(pilot)
        assert _row_texts(pilot) == STALE_ROWS
        detail = screen.query_one("#stale-text", Static).content
        assert str(detail).splitlines()[:4] == [
            "fact-0001 · domain · changed",
            "The app starts in main",
            "",
            "changed app.py",
        ]
        footer = text_of(drawn(app, -1))
        assert "c Confirm  r Retire it  s Supersede  D Diff" in footer, footer
        screen.query_one("#curator", TabbedContent).active = "dupes-tab"
        await settle(pilot)
        assert "c Confirm" not in text_of(drawn(app, -1))  # its keys show, and answer, on its tab only


async def test_confirm_writes_a_new_version_whose_refs_are_fresh(root: Path) -> None:
    root = _stale_repo(root)
    app = make_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await _open_stale(pilot)
        await select(pilot, "fact-0003", "#stale")
        await press(pilot, "c")
        assert isinstance(app.screen, ConfirmScreen)
        assert str(app.screen.query_one("#dialog-changes", Static).content).splitlines()[2] == (
            "  • its refs re-recorded against today's code: books.py"
        )
        await pilot.click("#confirm")
        await settle(pilot)
        assert isinstance(app.screen, CuratorScreen)
        assert _row_texts(pilot) == STALE_ROWS[:2]
    written = _fact(root, "fact-0005")
    assert written["supersedes"] == "fact-0003"
    assert written["refs"] == [f"books.py@{blob(root, 'books.py')}"]
    assert run_cli("memory", "verify", "--root", str(root)).out.splitlines()[-1] == (
        "2 of 4 facts with refs stale: 2 fresh, 1 changed, 1 gone."
    )


async def test_retire_asks_as_the_other_retires_do_then_retires(root: Path) -> None:
    root = _stale_repo(root)
    app = make_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await _open_stale(pilot)
        await select(pilot, "fact-0002", "#stale")
        await press(pilot, "r")
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.query_one("#dialog-field", Input).value == "2026-11-29"
        await pilot.click("#confirm")
        await settle(pilot)
        assert _row_texts(pilot) == [STALE_ROWS[0], STALE_ROWS[2]]
    assert _fact(root, "fact-0002")["expires"] == "2026-11-29"


async def test_supersede_opens_the_write_form_pre_filled_and_writes_through_it(root: Path) -> None:
    root = _stale_repo(root)
    app = make_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await _open_stale(pilot)
        await select(pilot, "fact-0001", "#stale")
        await press(pilot, "s")
        form = app.screen
        assert isinstance(form, WriteFactScreen)
        assert form.query_one("#title", Input).value == "The app starts in main"
        assert form.query_one("#body", TextArea).text == "The entry point is `app.py`."
        assert form.query_one("#type", Select).value == "domain"
        form.query_one("#body", TextArea).text = "The entry point is `app.py`; main returns 2."
        await press(pilot, "ctrl+s")
        assert isinstance(app.screen, ConfirmScreen)  # asked over the form
        await press(pilot, "ctrl+s")
        assert isinstance(app.screen, CuratorScreen)
        assert _row_texts(pilot) == STALE_ROWS[1:]
        assert notifications(pilot)[-1].startswith("updated: fact-0005")
    written = _fact(root, "fact-0005")
    assert written["supersedes"] == "fact-0001"
    assert written["refs"] == [f"app.py@{blob(root, 'app.py')}"]


async def test_the_diff_since_written_opens_from_the_stale_view_and_the_fact_pane(root: Path) -> None:
    root = _stale_repo(root)
    recorded = git(root, "rev-parse", "HEAD:app.py").strip()
    expected = (
        f"--- app.py@{recorded[:12]} (when written)\n+++ app.py (now)\n@@ -1,2 +1,2 @@\n def main():\n"
        "-    return 1\n+    return 2"
    )
    app = make_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, "fact-0001")
        await press(pilot, "D")
        assert isinstance(app.screen, CodeDiffScreen)
        assert str(app.screen.query_one("#code-diff", Static).content) == expected
        await press(pilot, "escape")
        await _open_stale(pilot)
        await select(pilot, "fact-0002", "#stale")
        await press(pilot, "D")
        assert isinstance(app.screen, CodeDiffScreen)
        assert str(app.screen.query_one("#code-diff", Static).content) == (
            "old.py: gone since the fact was written, nothing to diff against"
        )


def test_stale_view_snapshot_at_80x24(snap_compare: Callable[..., bool], root: Path) -> None:
    app = make_app(_stale_repo(root))
    assert snap_compare(app, terminal_size=(80, 24), run_before=snapshot_steps(before=_open_stale))


def test_stale_view_snapshot_at_160x45(snap_compare: Callable[..., bool], root: Path) -> None:
    app = make_app(_stale_repo(root))
    assert snap_compare(app, terminal_size=(160, 45), run_before=snapshot_steps(before=_open_stale))
