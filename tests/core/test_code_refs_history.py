"""Facts grounded in the code (issue 30) across history, on real git repositories: what a
commit did to the code facts cite (the History screen's drill-down), and the states through
branches that rename cited files or write facts with refs, once merged."""

from __future__ import annotations

from pathlib import Path

import pytest

from foundry_tui.core.history.git_history import MAX_CODE_LINES, commit_changes, memory_log
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.reports.grounding import verify_active
from foundry_tui.core.paths import Layout
from tests.core.code_refs_helpers import blob, fact_refs, git, make_repo, states
from tests.helpers import TODAY, write


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


def test_a_branch_renaming_a_cited_file_merged_into_main_leaves_it_moved(repo: Path) -> None:
    project = Project(repo)
    write(project, "The ledger is one constant", "See `payments/ledger.py`.")
    write(project, "Retries live in the webhook", "See `payments/webhook.py`.")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "facts")
    git(repo, "checkout", "-q", "-b", "rename")
    git(repo, "mv", "payments/ledger.py", "payments/books.py")
    git(repo, "commit", "-q", "-m", "books, not ledger")
    git(repo, "checkout", "-q", "main")
    (repo / "payments/webhook.py").write_text("def retry():\n    return 4\n")
    git(repo, "commit", "-q", "-am", "main: four retries")
    assert states(project) == {
        "fact-0001": ["fresh payments/ledger.py"],
        "fact-0002": ["changed payments/webhook.py"],
    }
    git(repo, "merge", "-q", "--no-edit", "rename")
    assert states(project) == {
        "fact-0001": ["moved payments/ledger.py → payments/books.py"],
        "fact-0002": ["changed payments/webhook.py"],
    }
    # The merge commit's drill-down (against its first parent, main) names the rename it brought.
    assert _code_lines(repo) == ["code       payments/ledger.py renamed to payments/books.py, cited by fact-0001"]


def test_a_fact_written_on_a_branch_with_refs_merged_into_main(repo: Path) -> None:
    project = Project(repo)
    git(repo, "checkout", "-q", "-b", "feature")
    write(project, "Retries live in the webhook", "See `payments/webhook.py`.")
    recorded = blob(repo, "payments/webhook.py")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "feature: a fact")
    feature_commit = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "main")
    assert verify_active(project, TODAY).checks == {}  # main has no fact yet
    (repo / "README.md").write_text("hello, main\n")
    git(repo, "commit", "-q", "-am", "main: readme")
    git(repo, "merge", "-q", "--no-edit", "feature")
    assert fact_refs(project, "fact-0001") == [f"payments/webhook.py@{recorded}"]
    assert states(project) == {"fact-0001": ["fresh payments/webhook.py"]}
    events = memory_log(project.layout).events
    assert [(e.line(), e.commit) for e in events] == [
        ("created    fact-0001  Retries live in the webhook (refs payments/webhook.py)", feature_commit)
    ]
    # main changes the cited file after the merge: changed, at once and once committed.
    (repo / "payments/webhook.py").write_text("def retry():\n    return 6\n")
    assert states(project) == {"fact-0001": ["changed payments/webhook.py"]}
    git(repo, "commit", "-q", "-am", "main: six retries")
    assert states(project) == {"fact-0001": ["changed payments/webhook.py"]}
    assert _code_lines(repo) == ["code       payments/webhook.py modified, cited by fact-0001"]
