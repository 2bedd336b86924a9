"""What the TUI's watcher watches for the code active facts cite (issue 30): bounded by the
refs, never the repository; on a real git repository."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from foundry_tui.core.code_refs import MAX_WATCHED, Ref, watch_places
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.reports.grounding import code_watch
from foundry_tui.core.paths import Layout
from tests.core.code_refs_helpers import make_repo
from tests.helpers import TODAY, write


@pytest.fixture
def repo(root: Path) -> Path:
    return make_repo(root)


def test_the_cited_files_folders_are_watched_flat_and_git_for_folders_and_globs(repo: Path) -> None:
    project = Project(repo)
    write(project, "Retries live in the webhook", "See `payments/webhook.py` and `README.md`.")
    write(project, "Payments is a folder", "A folder.", refs=["payments", "payments/*.py"])
    write(project, "Old", "Gone.", refs=["payments/ledger.py"])
    old = repo / ".foundry/memory/facts/fact-0003.md"
    old.write_text(old.read_text().replace("expires: null", "expires: 2026-01-01"))  # inactive: not watched
    project.sync()  # code_watch never syncs: the TUI's loads do, and report what changed
    plan = code_watch(project, TODAY)
    git_dir = str(repo / ".git")
    assert plan.folders == (str(repo), str(repo / "payments"), git_dir)
    assert plan.files == frozenset({str(repo / "README.md"), str(repo / "payments/webhook.py")})
    assert plan.omitted == 0
    # Only the cited files and git's index and HEAD count, never a sibling or git's other files.
    assert plan.relevant(
        [
            str(repo / "payments/webhook.py"),
            str(repo / "payments/ledger.py"),
            str(repo / "notes.txt"),
            f"{git_dir}/index",
            f"{git_dir}/index.lock",
            f"{git_dir}/HEAD",
            f"{git_dir}/refs/heads/main",
        ]
    ) == frozenset({str(repo / "payments/webhook.py"), f"{git_dir}/index", f"{git_dir}/HEAD"})
    # The same refs again: the plan in place, git not asked; another ref: a new plan.
    assert code_watch(project, TODAY, plan) is plan
    write(project, "The ledger counts", "See `payments/ledger.py`.")
    project.sync()
    again = code_watch(project, TODAY, plan)
    assert again is not plan and str(repo / "payments/ledger.py") in again.files


def test_ignored_memory_and_git_paths_are_not_watched_and_no_refs_watch_nothing(repo: Path) -> None:
    layout = Layout(repo)
    # Hand-written refs may cite what a write refuses: ignored, .git, the memory itself.
    plan = watch_places(layout, [Ref("build/out.py"), Ref(".git/config"), Ref(".foundry/memory/INDEX.md")])
    assert (plan.folders, plan.files, plan.git_dir) == ((), frozenset(), None)
    assert code_watch(Project(repo), TODAY).folders == ()


def test_outside_git_the_files_are_watched_without_a_git_folder(root: Path) -> None:
    (root / "app.py").write_text("x = 1\n")
    (root / "lib").mkdir()
    # A path missing now is watched as a file: its coming back changes its state too.
    plan = watch_places(Layout(root), [Ref("app.py"), Ref("lib"), Ref("gone.py")])
    files = frozenset({str(root / "app.py"), str(root / "gone.py")})
    assert (plan.folders, plan.files, plan.git_dir) == ((str(root),), files, None)


def test_the_folders_watched_are_capped(repo: Path) -> None:
    refs = []
    for n in range(MAX_WATCHED + 3):
        folder = repo / "many" / f"d{n:04d}"
        folder.mkdir(parents=True)
        (folder / "a.py").write_text("a\n")
        refs.append(Ref(f"many/d{n:04d}/a.py"))
    plan = watch_places(Layout(repo), refs)
    assert (MAX_WATCHED, plan.omitted) == (512, 3)
    assert len(plan.folders) == MAX_WATCHED + 1  # and git's own
    assert plan.folders[-1] == str(repo / ".git")
    assert str(repo / "many/d0511/a.py") in plan.files and str(repo / "many/d0512/a.py") not in plan.files
    assert len(plan.files) == MAX_WATCHED
    assert all(os.path.isdir(folder) for folder in plan.folders)
