"""The diff since a fact was written (issue 30, item 4): the recorded blob against the file
now, through git on a real repository; its bounds (characters, input size) and what a ref
that cannot be diffed says."""

from __future__ import annotations

from pathlib import Path

import pytest

from foundry_tui.core import code_refs
from foundry_tui.core.code_refs import MAX_DIFF_CHARS, confirmed_targets, ref_diff
from foundry_tui.core.memory.model.facts import Fact
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.reports.grounding import diff_since_written, verify_active
from tests.core.code_refs_helpers import blob, git, make_repo
from tests.helpers import TODAY, write


@pytest.fixture
def repo(root: Path) -> Path:
    return make_repo(root)


def _fact(project: Project, fact_id: str = "fact-0001") -> Fact:
    project.sync()
    fact = project.store.get(fact_id)
    assert fact is not None
    return fact


def test_the_diff_shows_the_change_since_written_headed_by_the_recorded_blob(repo: Path) -> None:
    project = Project(repo)
    write(project, "The ledger is one constant", "See `payments/ledger.py`.")
    recorded = blob(repo, "payments/ledger.py")
    (repo / "payments/ledger.py").write_text("LEDGER = 2\nBOOKS = 3\n")
    assert diff_since_written(project, _fact(project)) == (
        f"--- payments/ledger.py@{recorded[:12]} (when written)\n"
        "+++ payments/ledger.py (now)\n"
        "@@ -1 +1,2 @@\n"
        "-LEDGER = 1\n"
        "+LEDGER = 2\n"
        "+BOOKS = 3"
    )


def test_a_moved_ref_is_diffed_against_its_new_path_and_a_gone_one_is_named(repo: Path) -> None:
    project = Project(repo)
    write(project, "Payments code", "See `payments/ledger.py` and `payments/webhook.py`.")
    recorded = blob(repo, "payments/ledger.py")
    git(repo, "mv", "payments/ledger.py", "payments/books.py")
    (repo / "payments/books.py").write_text("LEDGER = 1\nMORE = 1\n")
    git(repo, "rm", "-q", "payments/webhook.py")
    git(repo, "commit", "-q", "-am", "move and delete")
    assert diff_since_written(project, _fact(project)) == (
        f"--- payments/ledger.py@{recorded[:12]} (when written)\n"
        "+++ payments/books.py (now) (moved from payments/ledger.py)\n"
        "@@ -1 +1,2 @@\n"
        " LEDGER = 1\n"
        "+MORE = 1\n\n"
        "payments/webhook.py: gone since the fact was written, nothing to diff against"
    )


def test_a_fresh_fact_and_a_fact_without_refs_say_so(repo: Path) -> None:
    project = Project(repo)
    write(project, "Payments code", "See `payments/ledger.py`.")
    write(project, "No code here", "Nothing cited.")
    assert diff_since_written(project, _fact(project)) == (
        "fact-0001: the code it cites is as it was written; nothing to diff."
    )
    assert (
        diff_since_written(project, _fact(project, "fact-0002"))
        == "fact-0002 cites no code (no refs): nothing to diff."
    )


def test_the_diff_is_cut_at_the_cap_and_says_so(repo: Path) -> None:
    project = Project(repo)
    write(project, "The ledger is one constant", "See `payments/ledger.py`.")
    (repo / "payments/ledger.py").write_text("".join(f"LINE_{n} = {n}\n" for n in range(3000)))
    text = diff_since_written(project, _fact(project), max_chars=500)
    assert len(text) <= 500 + len("\n… cut at 500 characters of 99999")
    assert text.splitlines()[-1].startswith("… cut at 500 characters of ")
    whole = diff_since_written(project, _fact(project))
    assert len(whole) <= MAX_DIFF_CHARS + 60
    assert whole.splitlines()[-1] == f"… cut at {MAX_DIFF_CHARS} characters of {len(ref_full(project))}"


def ref_full(project: Project) -> str:
    state = verify_active(project, TODAY).checks["fact-0001"].refs[0]
    return ref_diff(project.layout, state, max_chars=10**9)


def test_a_side_over_the_input_bound_is_not_diffed(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = Project(repo)
    write(project, "The ledger is one constant", "See `payments/ledger.py`.")
    (repo / "payments/ledger.py").write_text("x" * 200 + "\n")
    monkeypatch.setattr(code_refs, "MAX_DIFF_INPUT", 100)
    assert diff_since_written(project, _fact(project)) == "payments/ledger.py: over 100 bytes on one side, not diffed"


def test_a_recorded_blob_git_never_stored_is_said(repo: Path) -> None:
    project = Project(repo)
    (repo / "payments/ledger.py").write_text("LEDGER = 9\n")  # never added: its blob is not in git
    write(project, "The ledger is one constant", "See `payments/ledger.py`.")
    recorded = blob(repo, "payments/ledger.py")
    (repo / "payments/ledger.py").write_text("LEDGER = 10\n")
    assert diff_since_written(project, _fact(project)) == (
        f"payments/ledger.py: the blob recorded ({recorded[:12]}) is not in this repository (never committed or added)"
    )


def test_git_over_the_time_bound_is_said(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = Project(repo)
    write(project, "The ledger is one constant", "See `payments/ledger.py`.")
    (repo / "payments/ledger.py").write_text("LEDGER = 2\n")
    state = verify_active(project, TODAY).checks["fact-0001"].refs[0]
    assert ref_diff(project.layout, state, timeout=0.0) == "payments/ledger.py: git did not answer within 0 s"


def test_a_confirm_keeps_fresh_and_changed_refs_follows_a_move_and_drops_a_gone_one(repo: Path) -> None:
    project = Project(repo)
    write(
        project,
        "Payments",
        "See `payments/ledger.py`, `README.md` and `payments/webhook.py`.",
        refs=["payments/webhook.py::Webhook"],
    )
    git(repo, "mv", "payments/webhook.py", "payments/hooks.py")
    (repo / "README.md").write_text("changed\n")
    git(repo, "rm", "-q", "payments/ledger.py")
    git(repo, "commit", "-q", "-am", "changes")
    check = verify_active(project, TODAY).checks["fact-0001"]
    assert [s.line() for s in check.refs] == [
        "moved payments/webhook.py::Webhook → payments/hooks.py",
        "gone payments/ledger.py",
        "changed README.md",
        "moved payments/webhook.py → payments/hooks.py",
    ]
    assert confirmed_targets(check.refs) == ["payments/hooks.py::Webhook", "README.md", "payments/hooks.py"]


def test_a_folder_ref_and_a_file_missing_from_the_working_copy_have_no_file_diff(repo: Path) -> None:
    project = Project(repo)
    oid = blob(repo, "payments/ledger.py")
    folder = code_refs.RefState(code_refs.Ref("payments", oid), code_refs.CHANGED)
    missing = code_refs.RefState(code_refs.Ref("nowhere.py", oid), code_refs.CHANGED)
    assert ref_diff(project.layout, folder) == "payments: a folder, no file diff (its tree changed)"
    assert ref_diff(project.layout, missing) == "nowhere.py: nowhere.py is not in the working copy, no diff"


def test_as_of_a_revision_the_diff_is_against_that_revision_never_the_working_copy(repo: Path) -> None:
    """`foundry tui --at REV` (git_history.memory_at): a moved and edited file is diffed against
    the blob the revision holds at its new path, a folder has no file diff, and the working
    copy's later edits (and deletions) are never read."""
    from foundry_tui.core.history.git_history import memory_at

    project = Project(repo)
    write(project, "Payments code", "See `payments/ledger.py`.", refs=["payments"])
    recorded = blob(repo, "payments/ledger.py")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a fact")
    git(repo, "mv", "payments/ledger.py", "payments/books.py")
    (repo / "payments/books.py").write_text("LEDGER = 1\nMORE = 1\n")
    git(repo, "commit", "-q", "-am", "move and grow")
    later = git(repo, "rev-parse", "HEAD").strip()
    (repo / "payments/books.py").write_text("LEDGER = 7\n")  # the working copy moves on: unseen
    with memory_at(project.layout, later) as (past, _done):
        past_project = Project(past)
        assert diff_since_written(past_project, _fact(past_project)) == (
            "payments: a folder, no file diff (its tree changed)\n\n"
            f"--- payments/ledger.py@{recorded[:12]} (when written)\n"
            f"+++ payments/books.py (at {later[:8]}) (moved from payments/ledger.py)\n"
            "@@ -1 +1,2 @@\n"
            " LEDGER = 1\n"
            "+MORE = 1"
        )
        (repo / "payments/books.py").unlink()  # deleted in the working copy: the revision still has it
        assert diff_since_written(past_project, _fact(past_project)).splitlines()[3] == (
            f"+++ payments/books.py (at {later[:8]}) (moved from payments/ledger.py)"
        )
        gone = code_refs.RefState(code_refs.Ref("nowhere.py", recorded), code_refs.CHANGED)
        assert ref_diff(past_project.layout, gone) == f"nowhere.py: nowhere.py is not in {later[:8]}, no diff"
