"""Facts grounded in the code (issue 30) across history, on real git repositories: what a
commit did to the code facts cite (the History screen's drill-down), and the states through
branches that rename cited files or write facts with refs, once merged."""

from __future__ import annotations

from pathlib import Path

import pytest

from foundry_tui.core.code_refs import Ref
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


# ---- `memory log` and the History list: commits that changed only cited code (issue 30, item 5)


def _log_lines(repo: Path) -> list[str]:
    return [line.split(" ", 3)[3].lstrip() for line in memory_log(Layout(repo)).text().splitlines()]


def _facts_commit(repo: Path) -> Project:
    project = Project(repo)
    write(project, "Retries live in the webhook", "See `payments/webhook.py`.")
    write(project, "Payments hold a ledger", "A folder.", refs=["payments"])
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "facts")
    return project


def test_a_commit_changing_only_cited_code_is_a_code_event_naming_its_facts(repo: Path) -> None:
    _facts_commit(repo)
    (repo / "payments/webhook.py").write_text("def retry():\n    return 5\n")
    git(repo, "commit", "-q", "-am", "five retries")
    (repo / "README.md").write_text("nobody cites this\n")
    git(repo, "commit", "-q", "-am", "an uncited file")
    head = git(repo, "rev-parse", "HEAD~1").strip()
    log = memory_log(Layout(repo))
    assert _log_lines(repo) == [
        "code       2 facts  refs changed: payments/webhook.py modified (cited by fact-0001, fact-0002)",
        "created    fact-0001  Retries live in the webhook (refs payments/webhook.py)",
        "created    fact-0002  Payments hold a ledger (refs payments)",
    ]
    code = log.events[0]
    assert (code.commit, code.subject, code.shown_id) == (head, "five retries", "2 facts")
    assert code.to_dict() == {
        "action": "code",
        "id": "",
        "title": "refs changed: payments/webhook.py modified",
        "detail": "cited by fact-0001, fact-0002",
        "facts": ["fact-0001", "fact-0002"],
        "code": [
            {"path": "payments/webhook.py", "change": "modified", "moved_to": None, "facts": ["fact-0001", "fact-0002"]}
        ],
        "code_more": 0,
        "commit": head,
        "author": "t",
        "date": code.date,
        "subject": "five retries",
    }
    # The commit's drill-down names the same file and facts.
    assert _code_lines(repo, head) == ["code       payments/webhook.py modified, cited by fact-0001, fact-0002"]


def test_a_cited_file_renamed_or_deleted_and_code_before_the_fact(repo: Path) -> None:
    (repo / "payments/webhook.py").write_text("def retry():\n    return 4\n")
    git(repo, "commit", "-q", "-am", "before any fact")  # the refs are recorded after it: not listed
    _facts_commit(repo)
    git(repo, "mv", "payments/ledger.py", "payments/books.py")
    git(repo, "commit", "-q", "-m", "books, not ledger")
    git(repo, "rm", "-q", "payments/webhook.py")
    git(repo, "commit", "-q", "-m", "no webhook")
    assert _log_lines(repo) == [
        "code       2 facts  refs changed: payments/webhook.py deleted (cited by fact-0001, fact-0002)",
        "code       1 fact  refs changed: payments/ledger.py renamed to payments/books.py (cited by fact-0002)",
        "created    fact-0001  Retries live in the webhook (refs payments/webhook.py)",
        "created    fact-0002  Payments hold a ledger (refs payments)",
    ]


def test_a_commit_writing_a_fact_and_the_code_it_cites_has_no_code_event(repo: Path) -> None:
    project = Project(repo)
    (repo / "payments/refunds.py").write_text("R = 1\n")
    git(repo, "add", "-A")
    write(project, "Refunds are one constant", "See `payments/refunds.py`.")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a module and its fact")
    (repo / "payments/refunds.py").write_text("R = 2\n")
    write(project, "Retries live in the webhook", "See `payments/webhook.py`.")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a fact and a change")  # fact events first, then the code event
    assert _log_lines(repo) == [
        "created    fact-0002  Retries live in the webhook (refs payments/webhook.py)",
        "code       1 fact  refs changed: payments/refunds.py modified (cited by fact-0001)",
        "created    fact-0001  Refunds are one constant (refs payments/refunds.py)",
    ]


def test_superseded_facts_and_globs_and_a_root_below_the_repository(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    root = tmp_path / "service"
    (root / ".foundry/memory/facts").mkdir(parents=True)
    (root / "app").mkdir()
    (root / "app/main.py").write_text("x = 1\n")
    (root / "app/notes.md").write_text("n\n")
    git(repo, "add", "-A")  # a glob matches what the index keeps
    project = Project(root)
    write(project, "The app is Python", "All of it.", refs=["app/*.py"])
    write(project, "Main is the entry", "See `app/main.py`.")
    write(project, "Main is the entry", "See `app/main.py`, still.")  # fact-0003 supersedes fact-0002
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "facts")
    (root / "app/main.py").write_text("x = 2\n")
    (root / "app/notes.md").write_text("m\n")  # not matched by the glob
    (repo / "payments/webhook.py").write_text("outside the root\n")
    git(repo, "commit", "-q", "-am", "main and notes")
    assert (
        _log_lines(root)[0] == "code       2 facts  refs changed: app/main.py modified (cited by fact-0003, fact-0001)"
    )


def test_the_log_lists_at_most_max_code_commits_code_events(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from foundry_tui.core.history import git_history

    monkeypatch.setattr(git_history, "MAX_CODE_COMMITS", 2)
    _facts_commit(repo)
    for n in range(4):
        (repo / "payments/ledger.py").write_text(f"LEDGER = {n + 2}\n")
        git(repo, "commit", "-q", "-am", f"ledger {n}")
    log = memory_log(Layout(repo))
    assert [e.subject for e in log.events if e.action == "code"] == ["ledger 3", "ledger 2"]
    assert log.text().splitlines()[-1] == "… and 2 more commits changed code that facts cite (older than the 2 listed)"
    assert log.to_dict()["code_more"] == 2


def test_a_code_event_names_at_most_max_log_code_files(repo: Path) -> None:
    from foundry_tui.core.history.git_history import MAX_LOG_CODE_FILES

    _facts_commit(repo)
    for n in range(MAX_LOG_CODE_FILES + 2):
        (repo / f"payments/m{n}.py").write_text("a\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "modules")
    event = memory_log(Layout(repo)).events[0]
    assert event.title == (
        "refs changed: payments/m0.py added, payments/m1.py added, payments/m2.py added and 2 more files"
    )
    assert len(event.code) == MAX_LOG_CODE_FILES + 2


def test_past_max_code_pathspecs_the_log_reads_the_top_folders(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from foundry_tui.core.history import git_history

    monkeypatch.setattr(git_history, "MAX_CODE_PATHSPECS", 2)
    assert git_history._code_pathspecs("", [("fact-0001", fact_refs_of("a/x.py", "b/*.py"))]) == [
        ":(literal)a/x.py",
        ":(glob)b/*.py",
    ]
    assert git_history._code_pathspecs("s/", [("fact-0001", fact_refs_of("a/x.py", "a/z.py", "b/*.py"))]) == [
        ":(literal)s/a",
        ":(literal)s/b",
    ]
    assert git_history._code_pathspecs("s/", [("fact-0001", fact_refs_of("a/x", "b/y", "c/z"))]) == [":(literal)s/"]
    monkeypatch.setattr(git_history, "MAX_CODE_PATHSPECS", 1)
    _facts_commit(repo)  # two paths cited (payments/webhook.py, payments): one top folder
    (repo / "payments/webhook.py").write_text("x = 9\n")
    git(repo, "commit", "-q", "-am", "nine")
    assert (
        _log_lines(repo)[0]
        == "code       2 facts  refs changed: payments/webhook.py modified (cited by fact-0001, fact-0002)"
    )


def fact_refs_of(*paths: str) -> tuple[Ref, ...]:
    return tuple(Ref(p) for p in paths)


def test_foundry_memory_log_prints_the_code_event_as_text_and_json(repo: Path) -> None:
    import json

    from tests.helpers import run_cli

    _facts_commit(repo)
    (repo / "payments/ledger.py").write_text("LEDGER = 3\n")
    git(repo, "commit", "-q", "-am", "three")
    run = run_cli("memory", "log", "--root", str(repo))
    assert run.code == 0, run.err
    assert run.out.splitlines()[0].split(" ", 3)[3].lstrip() == (
        "code       1 fact  refs changed: payments/ledger.py modified (cited by fact-0002)"
    )
    run = run_cli("memory", "log", "--json", "--root", str(repo))
    first = json.loads(run.out)["events"][0]
    assert (first["action"], first["facts"], first["subject"]) == ("code", ["fact-0002"], "three")
