"""Hardening of the git readers (issue 28).

16: `memory log` keeps a commit whose subject holds byte 0x01 (or looks like a record).
17: the history readers ask blob sizes first and never read a blob the loader would refuse.

Real git repositories (tests/test_team_git.py's), and the CLI as a real subprocess.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from foundry_tui.core.memory import git_history
from foundry_tui.core.memory.facts import MAX_FACT_FILE_BYTES
from foundry_tui.core.memory.git_history import (
    GitError,
    memory_log,
    parse_log_records,
)
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.timeline import memory_timeline
from foundry_tui.core.paths import MAX_FILE_BYTES, Layout
from tests.helpers import REPO
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


# ---- item 17: sizes before contents --------------------------------------------------------


def test_read_blobs_leaves_out_what_the_loader_refuses(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, init=False)
    at_limit, over = blob(repo, b"a" * MAX_FACT_FILE_BYTES), blob(repo, b"b" * (MAX_FACT_FILE_BYTES + 1))
    git = git_history.Repo(Layout(repo.root))
    assert git.blob_sizes([at_limit, over, "0" * 39 + "1"]) == {
        at_limit: MAX_FACT_FILE_BYTES,
        over: MAX_FACT_FILE_BYTES + 1,
    }
    assert set(git.read_blobs([at_limit, over])) == {at_limit}
    assert set(git.read_blobs([at_limit, over], limits={over: MAX_FILE_BYTES})) == {at_limit, over}
    tree_id = repo.git("rev-parse", "HEAD^{tree}").stdout.strip()
    assert git.read_blobs([tree_id], limit=MAX_FILE_BYTES) == {}  # only blobs


def test_history_agrees_with_the_disk_at_the_fact_size_limit(tmp_path: Path) -> None:
    """A fact file of MAX_FACT_FILE_BYTES loads, one byte more does not: on disk, in the
    history's facts, in memory log and in the timeline."""
    repo = make_repo(tmp_path, init=False)
    (repo.root / FACTS / "fact-0003.md").write_bytes(fact_text("fact-0003", MAX_FACT_FILE_BYTES))
    (repo.root / FACTS / "fact-0004.md").write_bytes(fact_text("fact-0004", MAX_FACT_FILE_BYTES + 1))
    repo.commit("two padded facts")
    project = Project(repo.root, use_cache=False)
    project.sync()
    assert sorted(project.store.facts) == ["fact-0001", "fact-0002", "fact-0003"]
    layout = Layout(repo.root)
    assert sorted(git_history.Repo(layout).facts_at(repo.git("rev-parse", "HEAD").stdout.strip())) == sorted(
        project.store.facts
    )
    assert [e.fact_id for e in memory_log(layout).events] == ["fact-0003", "fact-0002", "fact-0001"]
    assert memory_timeline(layout).points[-1].active == {"convention": 3}


BIG_BLOB_BYTES = 256 * 1024 * 1024  # compresses to about 250 KiB in the repository


def zeros_blob(repo: Repo, size: int) -> str:
    """A blob of `size` zero bytes, written as git's loose object (zlib of `blob SIZE NUL`
    and the bytes, at objects/ID[:2]/ID[2:]) a megabyte at a time: quicker than hash-object."""
    import hashlib
    import zlib

    header, chunk = f"blob {size}\0".encode(), bytes(2**20)
    assert size % len(chunk) == 0
    digest, packer = hashlib.sha1(header), zlib.compressobj(1)
    packed = [packer.compress(header)]
    for _ in range(size // len(chunk)):
        digest.update(chunk)
        packed.append(packer.compress(chunk))
    packed.append(packer.flush())
    sha = digest.hexdigest()
    target = repo.root / ".git" / "objects" / sha[:2] / sha[2:]
    target.parent.mkdir(exist_ok=True)
    target.write_bytes(b"".join(packed))
    assert repo.git("cat-file", "-s", sha).stdout.strip() == str(size)
    return sha


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads its peak memory from /proc")
def test_memory_log_never_holds_a_huge_blob(tmp_path: Path) -> None:
    """A 256 MiB fact blob (zeros: small in git) in the history: `memory log` lists the
    other facts, and its peak memory stays far under the blob's size (it was never read)."""
    repo = make_repo(tmp_path, init=False)
    (repo.root / FACTS / "fact-0003.md").write_bytes(b"")
    huge = zeros_blob(repo, BIG_BLOB_BYTES)
    repo.git("update-index", "--add", "--cacheinfo", f"100644,{huge},{FACTS}/fact-0003.md")
    repo.git("commit", "-qm", "a huge fact")
    # The process's own peak (VmHWM: its memory since it started, not the forking test's).
    peak = "print([l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1], file=sys.stderr)"
    script = f"import sys; from foundry_tui.cli import main; code = main(sys.argv[1:]); {peak}; sys.exit(code)"
    proc = subprocess.run(
        [sys.executable, "-c", script, "memory", "log", "--root", str(repo.root)],
        env={**repo.env, "PYTHONPATH": str(REPO)},
        cwd=repo.root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert [line.split()[3:5] for line in proc.stdout.splitlines()] == [
        ["created", "fact-0002"],
        ["created", "fact-0001"],
    ]
    peak_kib = int(proc.stderr.split()[-1])
    assert peak_kib * 1024 < BIG_BLOB_BYTES // 4, peak_kib
