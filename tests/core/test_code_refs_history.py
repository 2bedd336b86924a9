"""Facts grounded in the code (issue 30) across history, on real git repositories: what a
commit did to the code facts cite (the History screen's drill-down)."""

from __future__ import annotations

from pathlib import Path

import pytest

from foundry_tui.core.history.git_history import MAX_CODE_LINES, commit_changes
from foundry_tui.core.memory.project import Project
from foundry_tui.core.paths import Layout
from tests.core.code_refs_helpers import git, make_repo
from tests.helpers import write


@pytest.fixture
def repo(root: Path) -> Path:
    return make_repo(root)


def _code_lines(repo: Path, rev: str = "HEAD") -> list[str]:
    diff, _patch = commit_changes(Layout(repo), rev)
    return [line for line in diff.text().splitlines() if line.startswith("code ")]


def test_a_commit_names_the_cited_files_it_added_changed_and_deleted(repo: Path) -> None:
    project = Project(repo)
    write(project, "The readme greets", "See `README.md`.")
    write(project, "Payments code is Python", "All of it.", refs=["payments/*.py"])
    (repo / "payments/refunds.py").write_text("R = 1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "facts and a module")
    assert _code_lines(repo) == ["code       payments/refunds.py added, cited by fact-0002"]
    git(repo, "rm", "-q", "README.md")
    (repo / "payments/ledger.py").write_text("LEDGER = 2\n")
    git(repo, "commit", "-q", "-am", "drop the readme")
    assert _code_lines(repo) == [
        "code       README.md deleted, cited by fact-0001",
        "code       payments/ledger.py modified, cited by fact-0002",
    ]
    diff, _patch = commit_changes(Layout(repo), "HEAD")
    assert diff.text().splitlines()[0].endswith(": 2 → 2 facts; no fact changed")
    assert diff.to_dict()["code"] == [
        {"path": "README.md", "change": "deleted", "moved_to": None, "facts": ["fact-0001"]},
        {"path": "payments/ledger.py", "change": "modified", "moved_to": None, "facts": ["fact-0002"]},
    ]


def test_the_root_commit_and_superseded_facts(root: Path) -> None:
    (root / "app.py").write_text("x = 1\n")
    project = Project(root)
    git(root, "init", "-q", "-b", "main")
    write(project, "The app is one module", "See `app.py`.")
    write(project, "The app is one module", "See `app.py`, still.")  # fact-0002 supersedes fact-0001
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "root")
    assert _code_lines(root) == ["code       app.py added, cited by fact-0002"]


def test_a_commit_names_at_most_max_code_lines_cited_files(repo: Path) -> None:
    paths = [f"m{n:03d}.py" for n in range(MAX_CODE_LINES + 2)]
    for path in paths:
        (repo / path).write_text("a\n")
    git(repo, "add", "-A")  # a glob matches what the index keeps
    project = Project(repo)
    write(project, "Every module at the top", "All.", refs=["m*.py"])
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "modules")
    for path in paths:
        (repo / path).write_text("b\n")
    git(repo, "commit", "-q", "-am", "all of them")
    lines = _code_lines(repo)
    assert (len(lines), MAX_CODE_LINES) == (51, 50)
    assert lines[0] == "code       m000.py modified, cited by fact-0001"
    assert lines[-1] == "code       … and 2 more cited files changed (`foundry memory verify`)"
