"""Facts grounded in the code (issue 30): refs written, refused and verified on real git repositories."""

from __future__ import annotations

from pathlib import Path

import pytest

from foundry_tui.core.code_refs import NO_GIT_NOTE, refs_of
from foundry_tui.core.config import MAX_REFS
from foundry_tui.core.errors import InputError
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.reports.grounding import render_verification, verify_active
from tests.core.code_refs_helpers import blob, fact_refs, make_repo, states
from tests.helpers import TODAY, write


@pytest.fixture
def repo(root: Path) -> Path:
    return make_repo(root)


def test_a_write_records_the_body_paths_and_the_given_refs_with_their_blob_ids(repo: Path) -> None:
    project = Project(repo)
    reply = write(
        project,
        "Retries live in the webhook",
        "Retries live in `payments/webhook.py`, not in `nowhere.py`.",
        refs=["payments/ledger.py", "payments/webhook.py::Webhook"],
    )
    assert reply.splitlines()[0] == "created: fact-0001"
    assert reply.splitlines()[-1] == "Refs: payments/ledger.py, payments/webhook.py::Webhook, payments/webhook.py."
    webhook = blob(repo, "payments/webhook.py")
    assert fact_refs(project, "fact-0001") == [
        f"payments/ledger.py@{blob(repo, 'payments/ledger.py')}",
        f"payments/webhook.py::Webhook@{webhook}",
        f"payments/webhook.py@{webhook}",
    ]
    text = (repo / ".foundry/memory/facts/fact-0001.md").read_text()
    assert (
        f"refs: [payments/ledger.py@{blob(repo, 'payments/ledger.py')}, 'payments/webhook.py::Webhook@{webhook}',"
        in text
    )
    assert states(project) == {
        "fact-0001": ["fresh payments/ledger.py", "fresh payments/webhook.py::Webhook", "fresh payments/webhook.py"]
    }


@pytest.mark.parametrize(
    ("ref", "message"),
    [
        ("../outside.py", "ref '../outside.py' leads outside the project root: cite a path inside it"),
        ("/etc/passwd", "ref '/etc/passwd' is an absolute path: give it relative to the project root"),
        (".git/config", "ref '.git/config' is inside .git: cite the project's files, not git's"),
        ("build/out.py", "ref 'build/out.py' is a path git ignores: cite a file the repository keeps"),
        ("link/x.py", "ref 'link/x.py' goes through a symbolic link that leaves the project root: cite the real path"),
        ("missing.py", "ref 'missing.py' names no file or folder in the repository: check the path"),
        ("payments/*.rs", "ref 'payments/*.rs' matches no file the repository keeps: check the pattern"),
        ("payments::X", "ref 'payments::X': a symbol needs a file, and payments is a folder"),
        ("a.py::1bad", "ref 'a.py::1bad': the symbol after '::' must be a name such as main or Store.load"),
    ],
)
def test_a_bad_ref_is_refused_with_one_line(
    repo: Path, tmp_path_factory: pytest.TempPathFactory, ref: str, message: str
) -> None:
    outside = tmp_path_factory.mktemp("outside")
    (outside / "x.py").write_text("x\n")
    (repo / "link").symlink_to(outside)
    project = Project(repo)
    with pytest.raises(InputError) as caught:
        write(project, "A fact", "A body.", refs=[ref])
    assert str(caught.value) == message
    assert not list((repo / ".foundry/memory/facts").iterdir())


def test_a_ref_list_is_capped(repo: Path) -> None:
    for n in range(MAX_REFS + 1):
        (repo / f"f{n}.py").write_text(f"{n}\n")
    project = Project(repo)
    with pytest.raises(InputError) as caught:
        write(project, "Too many", "A body.", refs=[f"f{n}.py" for n in range(MAX_REFS + 1)])
    assert str(caught.value) == f"{MAX_REFS + 1} refs, 1 over the limit of {MAX_REFS}: cite the files the fact is about"
    body = " ".join(f"`f{n}.py`" for n in range(MAX_REFS + 1))
    reply = write(project, "Many cited", body)
    assert f"Warning: 1 of the paths cited were not recorded as refs: the limit is {MAX_REFS}" in reply
    assert len(fact_refs(project, "fact-0001")) == MAX_REFS == 32


def test_without_git_refs_are_kept_without_ids_and_unknown(root: Path) -> None:
    (root / "app.py").write_text("x\n")
    project = Project(root)
    reply = write(project, "The app is one file", "See `app.py`.")
    assert reply.splitlines()[-2:] == ["Refs: app.py.", f"Warning: {NO_GIT_NOTE}"]
    assert fact_refs(project, "fact-0001") == ["app.py"]
    verification = verify_active(project, TODAY)
    assert verification.state_of("fact-0001") == "unknown"
    assert render_verification(verification) == f"1 facts with refs: {NO_GIT_NOTE}."


def test_the_cli_takes_ref_and_mcp_takes_refs(repo: Path) -> None:
    from tests.helpers import run_cli
    from tests.mcp.test_mcp_raw import _call, running_server

    done = run_cli(
        "memory",
        "write",
        "--root",
        str(repo),
        "--title",
        "Ledger is one constant",
        "--body",
        "One.",
        "--type",
        "domain",
        "--ref",
        "payments/ledger.py",
        "--ref",
        "README.md",
    )
    assert done.code == 0, done.err
    assert done.out.splitlines()[-1] == "Refs: payments/ledger.py, README.md."
    refused = run_cli(
        "memory", "write", "--root", str(repo), "--title", "X y", "--body", "B.", "--type", "domain", "--ref", "../x"
    )
    assert (refused.code, refused.err.strip().splitlines()) == (
        2,
        ["foundry: error: ref '../x' leads outside the project root: cite a path inside it"],
    )
    for srv in running_server(repo):
        answer = _call(
            srv,
            2,
            "memory_write",
            {"title": "Webhook retries", "body": "B.", "type": "domain", "refs": ["payments/webhook.py"]},
        )
        assert answer["result"]["content"][0]["text"].splitlines()[-1] == "Refs: payments/webhook.py."
        srv.close()
    project = Project(repo)
    assert fact_refs(project, "fact-0002") == [f"payments/webhook.py@{blob(repo, 'payments/webhook.py')}"]


def test_a_long_ref_is_refused_and_a_hand_written_list_is_read_capped(repo: Path) -> None:
    from foundry_tui.core.config import MAX_REF_CHARS

    project = Project(repo)
    with pytest.raises(InputError) as caught:
        write(project, "Long", "A body.", refs=["a" * (MAX_REF_CHARS + 1)])
    assert str(caught.value) == (
        f"a ref of {MAX_REF_CHARS + 1} characters is over the {MAX_REF_CHARS}-character limit: cite a shorter path"
    )
    assert MAX_REF_CHARS == 300
    hand_written = {"refs": [f"f{n}.py" for n in range(500)] + [7, None]}
    assert [r.target for r in refs_of(hand_written)] == [f"f{n}.py" for n in range(MAX_REFS)]
    assert refs_of({"refs": "one.py"})[0].target == "one.py"
    assert refs_of({"refs": {"a": 1}}) == ()
