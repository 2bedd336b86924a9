"""The history screen (F8) on the demo's real git history (issue 31, item 12): the work
tree's uncommitted changes first, Enter opens a commit with what it did to each fact and
the line diff, and `m` then `d` compares any two commits as `foundry memory diff` does."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from foundry_tui.core.history.git_history import MAX_PATCH_CHARS, commit_changes, memory_diff
from foundry_tui.core.paths import Layout
from foundry_tui.tui.board.artifact_diff import ArtifactDiffScreen
from foundry_tui.tui.history.screen import HistoryScreen
from tests.tui_helpers import make_app, open_mode, press, settle

SIZE = (140, 40)


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


def _rows(pilot: Pilot[Any]) -> list[list[str]]:
    table = pilot.app.screen.query_one(DataTable)
    return [[str(cell) for cell in table.get_row_at(row)] for row in range(table.row_count)]


def _dialog_text(pilot: Pilot[Any]) -> list[str]:
    return str(pilot.app.screen.query_one("#diff-lines", Static).render()).splitlines()


async def test_enter_opens_a_commit_with_its_facts_and_their_diff(demo_repo: Path) -> None:
    newest = _git(demo_repo, "log", "-1", "--format=%H", "--", ".foundry/memory/facts/").strip()
    diff, _patch = commit_changes(Layout(demo_repo), newest)
    app = make_app(demo_repo)
    async with app.run_test(size=SIZE) as pilot:
        await open_mode(pilot, "f8", HistoryScreen)
        assert _rows(pilot)[0][0] == newest[:8]
        await press(pilot, "enter")
        assert isinstance(app.screen, ArtifactDiffScreen)
        text = _dialog_text(pilot)
        assert text[0] == diff.text().splitlines()[0]
        assert any(line.startswith("diff --git a/.foundry/memory/facts/") for line in text)
        assert any(line.startswith("+title: ") for line in text)


async def test_uncommitted_changes_are_listed_first(demo_repo: Path) -> None:
    fact = demo_repo / ".foundry/memory/facts/fact-0003.md"
    fact.write_text(fact.read_text().replace("expires: null", "expires: 2026-11-01"))
    app = make_app(demo_repo)
    async with app.run_test(size=SIZE) as pilot:
        await open_mode(pilot, "f8", HistoryScreen)
        first = _rows(pilot)[0]
        assert first[0] == "work tree"
        assert first[3:5] == ["expired", "fact-0003"]
        assert str(app.screen.query_one("#history-summary", Static).render()).startswith(
            "1 uncommitted change first, then "
        )
        await press(pilot, "enter")
        text = _dialog_text(pilot)
        assert text[0] == "the work tree against HEAD (not committed)"
        assert "-expires: null" in text and "+expires: 2026-11-01" in text


async def test_mark_then_diff_compares_two_commits_as_memory_diff_does(demo_repo: Path) -> None:
    app = make_app(demo_repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_mode(pilot, "f8", HistoryScreen)
        commits = list(dict.fromkeys(screen.commits))
        assert len(commits) >= 3
        oldest, newest = commits[-1], commits[0]
        table = screen.query_one(DataTable)
        table.move_cursor(row=len(screen.commits) - 1)
        await press(pilot, "m")
        assert _rows(pilot)[-1][0] == f"▸ {oldest[:8]}"
        table.move_cursor(row=0)
        await settle(pilot)
        await press(pilot, "d")
        assert isinstance(app.screen, ArtifactDiffScreen)
        expected = memory_diff(Layout(demo_repo), oldest, newest).text()
        expected = expected.replace(f"{oldest}..{newest}", f"{oldest[:8]}..{newest[:8]}")
        assert _dialog_text(pilot) == expected.splitlines()


def test_a_commit_patch_is_bounded(demo_repo: Path) -> None:
    big = demo_repo / ".foundry/memory/facts/fact-0050.md"
    big.write_text("---\nid: fact-0050\n---\n" + "word " * (MAX_PATCH_CHARS // 4))
    _git(demo_repo, "add", "-A")
    _git(demo_repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "big")
    _diff, patch = commit_changes(Layout(demo_repo), "HEAD")
    assert len(patch) < MAX_PATCH_CHARS + 100
    assert patch.endswith(f"… (cut at {MAX_PATCH_CHARS} characters: `git show` gives the rest)\n")


async def test_a_commit_says_when_it_changed_a_facts_refs_and_the_code_facts_cite(root: Path) -> None:
    """Issue 30, across history: a commit's drill-down names the refs it changed on a fact and
    the cited files it changed, renamed or deleted, with the facts that cite them."""
    from foundry_tui.core.memory.model.facts import parse_fact_text, render_fact_text
    from foundry_tui.core.memory.project import Project
    from tests.core.code_refs_helpers import git, make_repo
    from tests.helpers import write

    repo = make_repo(root)
    project = Project(repo)
    write(project, "Retries live in the webhook", "See `payments/webhook.py`.")
    write(project, "Payments hold a ledger", "A folder.", refs=["payments"])
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "facts")
    path = repo / ".foundry/memory/facts/fact-0002.md"
    fact = parse_fact_text(path.read_text(), "fact-0002")
    recorded = fact.extras["refs"]
    assert isinstance(recorded, list)
    fact.extras["refs"] = [*recorded, "README.md"]  # a ref added in place
    path.write_text(render_fact_text(fact))
    (repo / "payments/webhook.py").write_text("def retry():\n    return 7\n")
    git(repo, "mv", "payments/ledger.py", "payments/books.py")
    (repo / "notes.txt").write_text("nobody cites this\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "code and a ref")
    commits = _git(repo, "rev-list", "HEAD").split()
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        await open_mode(pilot, "f8", HistoryScreen)
        assert _rows(pilot)[0][:5] == [commits[0][:8], _rows(pilot)[0][1], "t", "changed", "fact-0002"]
        await press(pilot, "enter")
        assert isinstance(app.screen, ArtifactDiffScreen)
        assert _dialog_text(pilot)[:4] == [
            f"memory {commits[1]}..{commits[0]}: 2 → 2 facts",
            "changed    fact-0002  Payments hold a ledger (refs +README.md)",
            "code       payments/ledger.py renamed to payments/books.py, cited by fact-0002",
            "code       payments/webhook.py modified, cited by fact-0001, fact-0002",
        ]
        assert _dialog_text(pilot)[4].startswith("diff --git a/.foundry/memory/facts/fact-0002.md")
