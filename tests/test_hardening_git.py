"""Hardening of the git readers (issue 28).

16: `memory log` keeps a commit whose subject holds byte 0x01 (or looks like a record).

Real git repositories (tests/test_team_git.py's).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from foundry_tui.core.memory.git_history import (
    GitError,
    memory_log,
    parse_log_records,
)
from foundry_tui.core.paths import Layout
from tests.test_team_git import FACTS, Repo, make_repo

# ---- git objects ------------------------------------------------------------------------


def write_object(repo: Repo, kind: str, data: bytes) -> str:
    """An object written as given: --literally skips git's checks of a tree's names."""
    proc = subprocess.run(
        ["git", "hash-object", "-t", kind, "--literally", "-w", "--stdin"],
        cwd=repo.root,
        env=repo.env,
        input=data,
        capture_output=True,
        check=True,
    )
    return proc.stdout.decode().strip()


def blob(repo: Repo, data: bytes) -> str:
    return write_object(repo, "blob", data)


def fact_text(fact_id: str, size: int) -> bytes:
    """A fact file of exactly `size` bytes (its body padded)."""
    head = f"---\nid: {fact_id}\ntype: convention\ntitle: Padded {fact_id}\ncreated: 2026-11-30\n---\n".encode()
    return head + b"x" * (size - len(head) - 1) + b"\n"


# ---- item 16: memory log's records --------------------------------------------------------


def commit_subject(repo: Repo, subject: bytes) -> None:
    repo.git("add", "-A")
    subprocess.run(
        [b"git", b"commit", b"-q", b"--allow-empty-message", b"-m", subject],
        cwd=repo.root,
        env=repo.env,
        check=True,
        capture_output=True,
    )


def test_memory_log_keeps_a_commit_whose_subject_holds_0x01(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, init=False)
    subjects = ["a\x01b", ":100644 100644 " + "0" * 40, "f" * 40, ""]  # a separator, a change, an id, nothing
    for number, subject in enumerate(subjects, start=3):
        repo.write(f"Fact {number}", f"body-{number}", commit=False)
        commit_subject(repo, subject.encode())
    code, out, err = repo.cli("memory", "log", "--json")
    assert code == 0, err
    events = json.loads(out)["events"]
    assert [(e["action"], e["id"], e["subject"]) for e in events] == [
        ("created", "fact-0006", ""),
        ("created", "fact-0005", "f" * 40),
        ("created", "fact-0004", ":100644 100644 " + "0" * 40),
        ("created", "fact-0003", "a\x01b"),
        ("created", "fact-0002", "fact: base-queue"),
        ("created", "fact-0001", "fact: base-cache"),
    ]
    code, out, err = repo.cli("memory", "log")
    assert code == 0 and [line.split()[3:5] for line in out.splitlines()] == [
        ["created", f"fact-000{n}"] for n in (6, 5, 4, 3, 2, 1)
    ]


def test_memory_log_keeps_a_merge_that_changed_nothing_of_its_own(tmp_path: Path) -> None:
    """A merge that only joins two branches' new facts has no change of its own: its record
    is its header and an empty field, and the records after it are read as before."""
    repo = make_repo(tmp_path, init=False)
    repo.git("checkout", "-qb", "side")
    (repo.root / FACTS / "fact-0008.md").write_bytes(fact_text("fact-0008", 200))
    repo.commit("side fact")
    repo.git("checkout", "-q", "main")
    (repo.root / FACTS / "fact-0007.md").write_bytes(fact_text("fact-0007", 200))
    repo.commit("main fact")
    repo.git("merge", "-q", "--no-edit", "side")
    assert "Merge branch 'side'" in repo.git("log", "--format=%s", "-c", "--", FACTS).stdout
    events = memory_log(Layout(repo.root)).events
    assert sorted((e.fact_id, e.subject) for e in events) == [
        ("fact-0001", "fact: base-cache"),
        ("fact-0002", "fact: base-queue"),
        ("fact-0007", "main fact"),
        ("fact-0008", "side fact"),
    ]


SHA = "1" * 40
HEADER = f"{SHA}\0Alice\x002026-11-30\0sub\x01ject\0"
CHANGE = f"\n:100644 100644 {'2' * 40} {'3' * 40} M\0.foundry/memory/facts/fact-0001.md\0"


def test_log_records_are_fields_in_order() -> None:
    assert parse_log_records(HEADER + CHANGE + HEADER + "\0" + HEADER + CHANGE) == [
        ([SHA, "Alice", "2026-11-30", "sub\x01ject"], [(["2" * 40], "3" * 40, ".foundry/memory/facts/fact-0001.md")]),
        ([SHA, "Alice", "2026-11-30", "sub\x01ject"], []),
        ([SHA, "Alice", "2026-11-30", "sub\x01ject"], [(["2" * 40], "3" * 40, ".foundry/memory/facts/fact-0001.md")]),
    ]
    merge = f"\n::100644 100644 100644 {'2' * 40} {'4' * 40} {'3' * 40} MM\0path\0"
    assert parse_log_records(HEADER + merge)[0][1] == [(["2" * 40, "4" * 40], "3" * 40, "path")]
    assert parse_log_records("") == []


@pytest.mark.parametrize(
    ("out", "message"),
    [
        (f"{SHA}\0Alice\x002026-11-30\0", f"git log gave a record this reader does not understand: '{SHA}'"),
        ("not-an-id\0a\0b\0c\0", "git log gave a record this reader does not understand: 'not-an-id'"),
        (HEADER + f"\n:100644 100644 {'2' * 40} M\0path\0", "git log gave a change this reader does not understand: "),
        (
            HEADER + f"\n:100644 100644 {'2' * 40} {'3' * 40} M\0",
            "git log gave a change this reader does not understand: ",
        ),
        (HEADER + CHANGE + "extra\0", "git log gave a record this reader does not understand: 'extra'"),
    ],
)
def test_log_records_of_the_wrong_shape_are_one_error(out: str, message: str) -> None:
    with pytest.raises(GitError) as caught:
        parse_log_records(out)
    assert str(caught.value).startswith(message) and "\n" not in str(caught.value)
