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


def _on_screen(pilot: Pilot[Any], selector: str) -> bool:
    """Whether the widget is displayed and its whole region lies on the screen."""
    from textual.geometry import Region

    widget = pilot.app.screen.query_one(selector)
    width, height = pilot.app.size
    region = widget.region
    return widget.display and region.area > 0 and Region(0, 0, width, height).contains_region(region)


async def test_at_80x24_the_list_keeps_readable_titles_and_the_highlighted_row_shows_whole(demo_repo: Path) -> None:
    """Issue 31, item 7: below 100 columns the list is commit, action, fact and a title as
    wide as the rest; the highlighted row's date, author, subject and whole line show under
    it, on the screen; Enter's drill-down fits the screen too."""
    from foundry_tui.core.history.git_history import memory_log

    newest = memory_log(Layout(demo_repo)).events[0]
    app = make_app(demo_repo)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_mode(pilot, "f8", HistoryScreen)
        table = screen.query_one(DataTable)
        assert [str(c.label) for c in table.columns.values()] == ["commit", "action", "fact", "title"]
        # The title takes what the padding, the scrollbar and the other columns leave: no scrolling sideways.
        assert [c.width for c in table.columns.values()] == [10, 10, 9, 39]
        assert table.max_scroll_x == 0
        assert _rows(pilot)[0] == [newest.commit[:8], "created", "fact-0015", newest.title]
        assert _on_screen(pilot, "#history-row-line") and _on_screen(pilot, "#history-row-head")
        head = str(screen.query_one("#history-row-head", Static).render())
        assert head.startswith(f"{newest.commit[:8]} · {newest.date} · {newest.author} · ")
        assert str(screen.query_one("#history-row-line", Static).render()).replace("\n", " ") == newest.line()
        await press(pilot, "down")
        second = screen.events[1]
        assert str(screen.query_one("#history-row-line", Static).render()).replace("\n", " ") == second.line()
        await press(pilot, "enter")
        assert isinstance(app.screen, ArtifactDiffScreen)
        assert _on_screen(pilot, "#dialog")
        assert _dialog_text(pilot)[0].startswith("memory ")


async def test_a_resize_across_100_columns_changes_the_layout_and_keeps_the_rows(demo_repo: Path) -> None:
    app = make_app(demo_repo)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_mode(pilot, "f8", HistoryScreen)
        rows = len(screen.commits)
        await pilot.resize_terminal(160, 45)
        await settle(pilot)
        table = screen.query_one(DataTable)
        assert len(table.columns) == 7 and table.row_count == rows
        assert not screen.query_one("#history-row").display
        await pilot.resize_terminal(90, 30)
        await settle(pilot)
        assert len(table.columns) == 4 and table.row_count == rows
        assert [c.width for c in table.columns.values()] == [10, 10, 9, 49]
        assert table.max_scroll_x == 0
        assert _on_screen(pilot, "#history-row-line")


async def test_a_commit_changing_only_cited_code_is_a_code_row_that_opens_its_files(root: Path) -> None:
    """Issue 30, item 5: a commit that changed cited code and no fact is a "code" row, with
    how many facts' refs it changed; Enter names the files and the facts citing each."""
    from foundry_tui.core.memory.project import Project
    from tests.core.code_refs_helpers import git, make_repo
    from tests.helpers import write

    repo = make_repo(root)
    project = Project(repo)
    write(project, "Retries live in the webhook", "See `payments/webhook.py`.")
    write(project, "Payments hold a ledger", "A folder.", refs=["payments"])
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "facts")
    (repo / "payments/webhook.py").write_text("def retry():\n    return 7\n")
    git(repo, "commit", "-q", "-am", "seven retries")
    (repo / "README.md").write_text("nobody cites this\n")
    git(repo, "commit", "-q", "-am", "readme")
    head = _git(repo, "rev-parse", "HEAD~1").strip()
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_mode(pilot, "f8", HistoryScreen)
        assert _rows(pilot)[0][3:] == [
            "code",
            "2 facts",
            "refs changed: payments/webhook.py modified",
            "cited by fact-0001, fact-0002",
        ]
        assert _rows(pilot)[0][0] == head[:8] and len(_rows(pilot)) == 3  # the readme's commit is no row
        assert str(screen.query_one("#history-summary", Static).render()).startswith(
            "2 fact events and 1 code change in 2 commits (foundry memory log)"
        )
        await press(pilot, "enter")
        assert _dialog_text(pilot)[:2] == [
            f"memory {_git(repo, 'rev-parse', 'HEAD~2').strip()}..{head}: 2 → 2 facts; no fact changed",
            "code       payments/webhook.py modified, cited by fact-0001, fact-0002",
        ]
