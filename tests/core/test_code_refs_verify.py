"""Facts grounded in the code (issue 30): the states of refs on real git repositories, through\nedits, renames, deletions, branches and a merge."""

from __future__ import annotations

from pathlib import Path

import pytest

from foundry_tui.core.code_refs import describe_changes
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.reports.grounding import render_verification, verify_active
from tests.core.code_refs_helpers import blob, fact_refs, git, make_repo, states
from tests.helpers import TODAY, write


@pytest.fixture
def repo(root: Path) -> Path:
    return make_repo(root)


def test_states_through_edits_renames_deletions(repo: Path) -> None:
    project = Project(repo)
    write(project, "Retries live in the webhook", "See `payments/webhook.py`.")
    write(project, "The ledger is one constant", "See `payments/ledger.py`.")
    write(project, "The readme greets", "See `README.md`.")
    write(project, "Webhook is a class", "A class.", refs=["payments/webhook.py::Webhook"])
    write(project, "Payments is a folder", "A folder.", refs=["payments", "payments/*.py"])
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "facts")
    assert {fid: c.state for fid, c in verify_active(project, TODAY).checks.items()} == dict.fromkeys(
        ["fact-0001", "fact-0002", "fact-0003", "fact-0004", "fact-0005"], "fresh"
    )
    # An edit in the working copy, not yet committed: changed at once.
    (repo / "payments" / "webhook.py").write_text("def retry():\n    return 5\n\n\nclass Webhook:\n    pass\n")
    verification = verify_active(project, TODAY)
    assert verification.state_of("fact-0001") == "changed"
    assert verification.state_of("fact-0004") == "changed"
    describe_changes(project.layout, verification)
    assert [s.line() for s in verification.checks["fact-0001"].refs] == [
        "changed payments/webhook.py (uncommitted, +1 -1)"
    ]
    git(repo, "commit", "-q", "-am", "five retries")
    (repo / "payments" / "webhook.py").write_text("def retry():\n    return 5\n\n\nclass Hook:\n    pass\n")
    git(repo, "commit", "-q", "-am", "rename the class")
    git(repo, "mv", "payments/ledger.py", "payments/books.py")
    git(repo, "rm", "-q", "README.md")
    git(repo, "commit", "-q", "-m", "move and delete")
    verification = verify_active(project, TODAY)
    describe_changes(project.layout, verification)
    assert states(project) | {"fact-0001": [s.line() for s in verification.checks["fact-0001"].refs]} == {
        "fact-0001": ["changed payments/webhook.py (2 commits since, +2 -2)"],
        "fact-0002": ["moved payments/ledger.py → payments/books.py"],
        "fact-0003": ["gone README.md"],
        "fact-0004": ["gone payments/webhook.py::Webhook"],
        "fact-0005": ["changed payments", "changed payments/*.py"],
    }
    assert render_verification(verification).splitlines() == [
        "fact-0001 changed payments/webhook.py (2 commits since, +2 -2)",
        "fact-0002 moved payments/ledger.py → payments/books.py",
        "fact-0003 gone README.md",
        "fact-0004 gone payments/webhook.py::Webhook",
        "fact-0005 changed payments",
        "fact-0005 changed payments/*.py",
        "5 of 5 facts with refs stale: 2 changed, 1 moved, 2 gone.",
    ]


def test_a_staged_rename_is_moved_and_a_plain_delete_gone(repo: Path) -> None:
    project = Project(repo)
    write(project, "The ledger is one constant", "See `payments/ledger.py`.")
    write(project, "The readme greets", "See `README.md`.")
    git(repo, "mv", "payments/ledger.py", "ledger.py")
    (repo / "README.md").unlink()
    assert states(project) == {
        "fact-0001": ["moved payments/ledger.py → ledger.py"],
        "fact-0002": ["gone README.md"],
    }


def test_states_follow_branches_and_a_merge(repo: Path) -> None:
    project = Project(repo)
    write(project, "Retries live in the webhook", "See `payments/webhook.py`.")
    write(project, "The ledger is one constant", "See `payments/ledger.py`.")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "facts")
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "payments" / "webhook.py").write_text("def retry():\n    return 9\n")
    git(repo, "commit", "-q", "-am", "feature: nine retries")
    assert verify_active(project, TODAY).state_of("fact-0001") == "changed"
    git(repo, "checkout", "-q", "main")
    assert verify_active(project, TODAY).state_of("fact-0001") == "fresh"
    (repo / "payments" / "ledger.py").write_text("LEDGER = 2\n")
    git(repo, "commit", "-q", "-am", "main: ledger two")
    git(repo, "merge", "-q", "--no-edit", "feature")
    assert {fid: c.state for fid, c in verify_active(project, TODAY).checks.items()} == {
        "fact-0001": "changed",
        "fact-0002": "changed",
    }
    # Restating a fact against today's code records today's blob: a new version, fresh again.
    reply = write(project, "Retries live in the webhook", "See `payments/webhook.py`.")
    assert reply.splitlines()[0] == "updated: fact-0003 (supersedes fact-0001)"
    assert verify_active(project, TODAY).state_of("fact-0003") == "fresh"
    # ...and the same fact again is unchanged.
    assert (
        write(project, "Retries live in the webhook", "See `payments/webhook.py`.").splitlines()[0]
        == "unchanged: fact-0003"
    )


def test_a_restatement_keeps_the_refs_it_leaves_out(repo: Path) -> None:
    project = Project(repo)
    write(project, "Ledger rules", "One constant.", refs=["payments/ledger.py"])
    reply = write(project, "Ledger rules", "One constant, never two.")
    assert reply.splitlines()[0] == "updated: fact-0002 (supersedes fact-0001)"
    assert [r.partition("@")[0] for r in fact_refs(project, "fact-0002")] == ["payments/ledger.py"]


def test_doctor_warns_on_changed_and_fails_on_gone_prune_lists_them(repo: Path) -> None:
    from foundry_tui.core.memory.reports.doctor import run_doctor
    from foundry_tui.core.memory.reports.prune import prune_candidates, render_prune

    project = Project(repo)
    write(project, "Retries live in the webhook", "See `payments/webhook.py`.")
    write(project, "The readme greets", "See `README.md`.")
    write(project, "No refs here", "Plain.")
    code_refs = [c for c in run_doctor(project, TODAY).checks if c.name == "code refs"]
    assert [(c.status, c.summary) for c in code_refs] == [("ok", "the code 2 facts cite is as it was written")]
    (repo / "payments" / "webhook.py").write_text("def retry():\n    return 4\n")
    (repo / "README.md").unlink()
    code_refs = [c for c in run_doctor(project, TODAY).checks if c.name == "code refs"]
    assert [(c.status, c.summary, c.problems) for c in code_refs] == [
        (
            "FAIL",
            "1 active fact citing code that is gone",
            ["fact-0002: gone README.md: check it, then confirm or supersede it"],
        ),
        (
            "warn",
            "1 active fact citing code changed since written",
            ["fact-0001: changed payments/webhook.py: check it, then confirm or supersede it"],
        ),
    ]
    project.sync()
    entries = prune_candidates(project.store, TODAY, verify_active(project, TODAY))
    assert render_prune(entries).splitlines() == [
        "Prune candidates (nothing is deleted automatically):",
        "",
        "  code gone:",
        "    - fact-0002 — gone README.md: check it, confirm or supersede it",
        "  code changed:",
        "    - fact-0001 — changed payments/webhook.py: check it, confirm or supersede it",
    ]


def test_doctor_says_nothing_of_refs_when_no_fact_has_them(repo: Path) -> None:
    from foundry_tui.core.memory.reports.doctor import run_doctor

    project = Project(repo)
    write(project, "No refs here", "Plain, see `nowhere/at/all.py`.")
    assert [c for c in run_doctor(project, TODAY).checks if c.name == "code refs"] == []


def test_the_served_index_marks_stale_facts_and_counts_them(repo: Path) -> None:
    from foundry_tui.core.memory.reports.index_file import served_index

    project = Project(repo)
    write(project, "Retries live in the webhook", "See `payments/webhook.py`.")
    write(project, "The ledger is one constant", "See `payments/ledger.py`.")
    on_disk = (repo / ".foundry/memory/INDEX.md").read_text()
    assert served_index(project, TODAY) == on_disk  # all fresh: the served index is INDEX.md
    (repo / "payments" / "webhook.py").write_text("def retry():\n    return 4\n")
    served = served_index(project, TODAY).splitlines()
    assert served[3:7] == [
        "> 1 fact cites code that changed since written (marked ⚠): check them, or run `foundry memory verify`.",
        "",
        "- **fact-0001** · convention · Retries live in the webhook · ⚠ code changed",
        "- **fact-0002** · convention · The ledger is one constant",
    ]
    assert (repo / ".foundry/memory/INDEX.md").read_text() == on_disk  # the file never carries marks


def test_the_served_index_marks_stay_within_the_budget(repo: Path) -> None:
    from foundry_tui.core.memory.reports.index_file import build_index
    from foundry_tui.core.tokens import estimate_tokens

    project = Project(repo)
    for n in range(40):
        write(project, f"Webhook fact number {n}", f"Number {n} of `payments/webhook.py`.")
    project.sync()
    active = project.active_facts(TODAY)
    marks = {f.id: "⚠ code changed" for f in active}
    text, report = build_index(active, 200, marks, "> 40 facts cite code that changed.")
    assert report.omitted > 0
    assert estimate_tokens(text.split("\n\n> ")[0]) <= 200


def test_a_search_hit_shows_its_stale_code(repo: Path) -> None:
    from foundry_tui.core.memory.search.reply import search_page

    project = Project(repo)
    write(project, "Retries live in the webhook", "See `payments/webhook.py`.")
    write(project, "Retries are counted in the ledger", "See `payments/ledger.py`.")
    (repo / "payments" / "webhook.py").write_text("def retry():\n    return 4\n")
    page = search_page(project, "retries", TODAY)
    blocks = {block.splitlines()[0].split(" ")[1]: block.splitlines() for block in page.text.split("\n\n")}
    assert blocks["fact-0001"][-1] == "_code: changed payments/webhook.py; check it still holds, or supersede it_"
    assert blocks["fact-0002"][-1] == "_source: conversation · scope: project_"


def test_foundry_memory_verify_text_and_json(repo: Path) -> None:
    import json

    from tests.helpers import run_cli

    project = Project(repo)
    write(project, "Retries live in the webhook", "See `payments/webhook.py`.")
    write(project, "The readme greets", "See `README.md`.")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "facts")
    recorded = blob(repo, "payments/webhook.py")
    (repo / "payments" / "webhook.py").write_text("def retry():\n    return 4\n")
    git(repo, "commit", "-q", "-am", "four")
    done = run_cli("memory", "verify", "--root", str(repo), "--today", TODAY.isoformat())
    assert (done.code, done.out) == (
        0,
        "fact-0001 changed payments/webhook.py (1 commit since, +1 -5)\n1 of 2 facts with refs stale: 1 fresh, 1 changed.\n",
    )
    data = json.loads(run_cli("memory", "verify", "--json", "--root", str(repo), "--today", TODAY.isoformat()).out)
    assert data["counts"] == {"fresh": 1, "changed": 1, "moved": 0, "gone": 0, "unknown": 0}
    assert data["facts"][0] == {
        "id": "fact-0001",
        "state": "changed",
        "refs": [
            {
                "ref": "payments/webhook.py",
                "state": "changed",
                "recorded": recorded,
                "current": blob(repo, "payments/webhook.py"),
                "moved_to": None,
                "detail": "1 commit since, +1 -5",
            }
        ],
    }


def test_memory_show_lists_the_refs_with_their_states(repo: Path) -> None:
    from tests.helpers import run_cli

    project = Project(repo)
    write(project, "Retries live in the webhook", "See `payments/webhook.py` and `README.md`.")
    (repo / "README.md").unlink()
    (repo / "payments" / "webhook.py").write_text("def retry():\n    return 4\n")
    done = run_cli("memory", "show", "fact-0001", "--root", str(repo), "--today", TODAY.isoformat())
    assert done.out.splitlines()[:3] == [
        "fact-0001 · convention · active",
        "file: .foundry/memory/facts/fact-0001.md",
        "refs: changed payments/webhook.py (uncommitted, +1 -5); gone README.md",
    ]


def test_memory_log_says_when_a_facts_refs_were_recorded_and_changed(repo: Path) -> None:
    from foundry_tui.core.history.git_history import memory_log
    from foundry_tui.core.memory.model.facts import parse_fact_text, render_fact_text

    project = Project(repo)
    write(project, "Retries live in the webhook", "See `payments/webhook.py`.")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "fact")
    (repo / "payments" / "webhook.py").write_text("def retry():\n    return 4\n")
    git(repo, "commit", "-q", "-am", "code")
    write(project, "Retries live in the webhook", "See `payments/webhook.py`.")  # confirmed: a new version
    path = repo / ".foundry/memory/facts/fact-0002.md"
    fact = parse_fact_text(path.read_text(), "fact-0002")
    recorded = fact.extras["refs"]
    assert isinstance(recorded, list)
    fact.extras["refs"] = [*recorded, "payments/ledger.py"]  # a ref added by hand, in place
    path.write_text(render_fact_text(fact))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "confirm")
    assert [e.line() for e in memory_log(project.layout).events] == [
        "created    fact-0002  Retries live in the webhook (supersedes fact-0001; refs payments/webhook.py, payments/ledger.py)",
        "superseded fact-0001  (by fact-0002)",
        "created    fact-0001  Retries live in the webhook (refs payments/webhook.py)",
    ]
    git(repo, "commit", "-q", "--allow-empty", "-m", "nothing")
    fact.extras["refs"] = ["payments/ledger.py"]
    path.write_text(render_fact_text(fact))
    git(repo, "commit", "-q", "-am", "drop a ref")
    assert memory_log(project.layout).events[0].line() == (
        "changed    fact-0002  Retries live in the webhook (refs -payments/webhook.py)"
    )


def test_a_memory_as_of_a_revision_is_verified_against_that_revision(
    repo: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    from foundry_tui.core.code_refs import verify_at
    from foundry_tui.core.history.git_history import materialise

    project = Project(repo)
    write(project, "Retries live in the webhook", "See `payments/webhook.py`.")
    write(project, "The ledger is one constant", "See `payments/ledger.py`.")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "facts")
    first = git(repo, "rev-parse", "HEAD").strip()
    (repo / "payments" / "webhook.py").write_text("def retry():\n    return 4\n")
    git(repo, "mv", "payments/ledger.py", "payments/books.py")
    git(repo, "commit", "-q", "-am", "code moves on")
    second = git(repo, "rev-parse", "HEAD").strip()
    (repo / "payments" / "books.py").unlink()  # the working copy moves on too: not seen as of a revision
    for rev, expected in (
        (first, {"fact-0001": "fresh", "fact-0002": "fresh"}),
        (second, {"fact-0001": "changed", "fact-0002": "moved"}),
    ):
        past = tmp_path_factory.mktemp("past")
        done = materialise(project.layout, rev, past)
        verify_at(past, repo, done.commit)
        verification = verify_active(Project(past), TODAY)
        assert {fid: c.state for fid, c in verification.checks.items()} == expected
    assert [s.line() for s in verification.checks["fact-0002"].refs] == ["moved payments/ledger.py → payments/books.py"]


def test_the_details_are_given_to_at_most_max_detailed_refs(repo: Path) -> None:
    from foundry_tui.core.code_refs import MAX_DETAILED, Ref, verify
    from foundry_tui.core.paths import Layout

    paths = [f"m{n}.py" for n in range(MAX_DETAILED + 5)]
    for path in paths:
        (repo / path).write_text("a\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "many")
    facts = [(f"fact-{n:04d}", [Ref(p, blob(repo, p))]) for n, p in enumerate(paths, start=1)]
    for path in paths:
        (repo / path).write_text("b\n")
    verification = verify(Layout(repo), facts)
    assert verification.counts()["changed"] == MAX_DETAILED + 5
    describe_changes(Layout(repo), verification)
    detailed = [s for c in verification.checks.values() for s in c.refs if s.detail]
    assert (len(detailed), MAX_DETAILED) == (50, 50)
    assert detailed[0].detail == "uncommitted, +1 -1"


def test_rename_detection_reads_at_most_max_rename_commits(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from foundry_tui.core import code_refs

    project = Project(repo)
    write(project, "The ledger is one constant", "See `payments/ledger.py`.")
    git(repo, "mv", "payments/ledger.py", "payments/books.py")
    git(repo, "commit", "-q", "-m", "rename")
    git(repo, "mv", "README.md", "READ.md")
    git(repo, "commit", "-q", "-m", "a later rename")
    assert verify_active(project, TODAY).state_of("fact-0001") == "moved"
    assert code_refs.MAX_RENAME_COMMITS == 2000
    monkeypatch.setattr(code_refs, "MAX_RENAME_COMMITS", 1)  # only the newest renaming commit is read
    code_refs._RENAMES.clear()
    assert verify_active(project, TODAY).state_of("fact-0001") == "gone"


def test_a_folder_cited_beside_a_path_inside_it_keeps_its_own_state(
    repo: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A folder ref read with a ref inside it (a nested folder, a file gone from it) is the
    folder's own state, in the working copy and as of a revision: `git ls-tree` given both
    lists the inside instead, which once made the folder gone."""
    from foundry_tui.core.code_refs import verify_at
    from foundry_tui.core.history.git_history import materialise

    (repo / "payments" / "sub").mkdir()
    (repo / "payments" / "sub" / "deep.py").write_text("DEEP = 1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a sub-folder")
    project = Project(repo)
    write(project, "Payments, nested", "A folder in a folder.", refs=["payments", "payments/sub"])
    write(project, "Payments and its ledger", "See `payments/ledger.py`.", refs=["payments"])
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "facts")
    git(repo, "rm", "-q", "payments/ledger.py")
    git(repo, "commit", "-q", "-m", "no ledger")
    expected = {
        "fact-0001": ["changed payments", "fresh payments/sub"],  # ledger.py left the folder
        "fact-0002": ["changed payments", "gone payments/ledger.py"],
    }
    assert states(project) == expected
    tree = git(repo, "rev-parse", "HEAD:payments").strip()
    past = tmp_path_factory.mktemp("past")
    verify_at(past, repo, materialise(project.layout, "HEAD", past).commit)
    verification = verify_active(Project(past), TODAY)
    assert {fid: [s.line() for s in c.refs] for fid, c in verification.checks.items()} == expected
    assert verification.checks["fact-0002"].refs[0].current == tree
