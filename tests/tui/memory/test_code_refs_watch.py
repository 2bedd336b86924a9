"""Issue 30 in the TUI: the watcher keeps the refs' states on view current. A cited file
edited, deleted or committed on disk while the app runs changes the fact pane's state;
driven by Pilot on a real git repository."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from tests.core.code_refs_helpers import git, make_repo
from tests.helpers import write
from tests.tui_helpers import drawn, make_app, select, settle, text_of


def _refs_shown(pilot: Pilot[Any]) -> list[str]:
    """The fact pane's refs row as drawn on the terminal (one ref a line in these tests)."""
    rows = [text_of(drawn(pilot.app, row)) for row in range(40)]
    return [row.split("refs       ", 1)[1].split("│")[0].strip() for row in rows if "refs       " in row]


async def _wait_for(pilot: Pilot[Any], condition: Callable[[], bool], seconds: float = 8.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        await settle(pilot)
        if condition():
            return True
        await asyncio.sleep(0.05)
    return False


async def test_an_edit_of_a_cited_file_turns_fresh_into_changed_on_view(root: Path) -> None:
    from foundry_tui.core.memory.project import Project

    repo = make_repo(root)
    project = Project(repo)
    write(project, "Retries live in the webhook", "See `payments/webhook.py`.")
    write(project, "Payments hold a ledger", "A folder.", refs=["payments"])
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "facts")
    app = make_app(repo, watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await select(pilot, "fact-0001")
        assert _refs_shown(pilot) == ["fresh payments/webhook.py"]
        assert await _wait_for(pilot, lambda: app.code_watch is not None)
        await asyncio.sleep(0.3)  # the watcher sets up its OS watches
        (repo / "payments/webhook.py").write_text("def retry():\n    return 7\n")
        assert await _wait_for(pilot, lambda: _refs_shown(pilot) == ["changed payments/webhook.py"])
        # A sibling nobody cites changes nothing; a commit of it moves HEAD and the index,
        # which a folder's state is read from.
        (repo / "payments/other.py").write_text("z = 1\n")
        await select(pilot, "fact-0002")
        assert _refs_shown(pilot) == ["fresh payments"]
        git(repo, "add", "payments/other.py")
        git(repo, "commit", "-q", "-m", "another module")
        assert await _wait_for(pilot, lambda: _refs_shown(pilot) == ["changed payments"])
        await select(pilot, "fact-0001")
        (repo / "payments/webhook.py").unlink()
        assert await _wait_for(pilot, lambda: _refs_shown(pilot) == ["gone payments/webhook.py"])


async def test_a_fact_written_while_the_app_runs_has_its_code_watched(root: Path) -> None:
    from foundry_tui.core.memory.project import Project

    repo = make_repo(root)
    app = make_app(repo, watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert await _wait_for(pilot, lambda: app.code_watch is not None)
        assert app.code_watch is not None and app.code_watch.folders == ()  # no refs: nothing watched
        write(Project(repo), "The ledger is one constant", "See `payments/ledger.py`.")  # another process's write
        assert await _wait_for(
            pilot, lambda: app.code_watch is not None and str(repo / "payments/ledger.py") in app.code_watch.files
        )
        await select(pilot, "fact-0001")
        assert _refs_shown(pilot) == ["fresh payments/ledger.py"]
        await asyncio.sleep(0.3)
        (repo / "payments/ledger.py").write_text("LEDGER = 2\n")
        assert await _wait_for(pilot, lambda: _refs_shown(pilot) == ["changed payments/ledger.py"])


async def test_a_checkout_that_removes_and_brings_back_a_cited_folder_is_followed(root: Path) -> None:
    from foundry_tui.core.memory.project import Project

    repo = make_repo(root)
    write(Project(repo), "Retries live in the webhook", "See `payments/webhook.py`.")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "facts")
    git(repo, "checkout", "-q", "-b", "bare")
    git(repo, "rm", "-q", "-r", "payments")
    git(repo, "commit", "-q", "-m", "no payments")
    git(repo, "checkout", "-q", "main")
    app = make_app(repo, watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await select(pilot, "fact-0001")
        assert await _wait_for(pilot, lambda: app.code_watch is not None)
        await asyncio.sleep(0.3)
        git(repo, "checkout", "-q", "bare")  # payments/ removed: seen through git's index
        assert await _wait_for(pilot, lambda: _refs_shown(pilot) == ["gone payments/webhook.py"])
        git(repo, "checkout", "-q", "main")  # payments/ made anew
        assert await _wait_for(pilot, lambda: _refs_shown(pilot) == ["fresh payments/webhook.py"])
        await asyncio.sleep(0.3)
        (repo / "payments/webhook.py").write_text("def retry():\n    return 8\n")  # in the new folder
        assert await _wait_for(pilot, lambda: _refs_shown(pilot) == ["changed payments/webhook.py"])
