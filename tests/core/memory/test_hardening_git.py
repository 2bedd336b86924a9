"""Hardening of the git readers (issue 28, items 4, 16 and 17).

4: `foundry tui --at REV` writes only inside its temporary folder, whatever names a
   commit's tree holds (`..`, `.`, `.git`, a name with a `/`: git writes such trees from a
   bundle or an unchecked remote), says in one line what it skipped, and removes the folder
   however the TUI ends (quit, an error, SIGTERM).
16: `memory log` keeps a commit whose subject holds byte 0x01 (or looks like a record).
17: the history readers ask blob sizes first and never read a blob the loader would refuse.

Real git repositories (tests/test_team_git.py's), hostile trees written with
`git hash-object -t tree --literally` (git's own checks would refuse them), and the CLI as a
real subprocess, on a pseudo-terminal where the TUI runs.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from foundry_tui.core.history import git_history
from foundry_tui.core.history.git_history import (
    MATERIALISED_PREFIX,
    MAX_SKIPPED_SHOWN,
    GitError,
    Materialised,
    materialise,
    materialised,
    memory_log,
    parse_log_records,
    refused_path_reason,
)
from foundry_tui.core.history.timeline import memory_timeline
from foundry_tui.core.memory.model.facts import MAX_FACT_FILE_BYTES
from foundry_tui.core.memory.project import Project
from foundry_tui.core.paths import MAX_FILE_BYTES, Layout
from tests.helpers import REPO, run_cli
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


# ---- hostile trees -------------------------------------------------------------------------


def tree(repo: Repo, entries: list[tuple[str, bytes, str]]) -> str:
    """A tree of (mode, name, object id) entries, in the order given."""
    raw = b"".join(mode.encode() + b" " + name + b"\0" + bytes.fromhex(sha) for mode, name, sha in entries)
    return write_object(repo, "tree", raw)


def raw_entries(repo: Repo, tree_id: str) -> list[tuple[str, bytes, str]]:
    """The entries of a tree as stored (`git cat-file tree`: MODE NAME NUL 20-byte id)."""
    data = subprocess.run(
        ["git", "cat-file", "tree", tree_id], cwd=repo.root, env=repo.env, capture_output=True, check=True
    ).stdout
    entries, pos = [], 0
    while pos < len(data):
        space, nul = data.index(b" ", pos), data.index(b"\0", pos)
        entries.append((data[pos:space].decode(), data[space + 1 : nul], data[nul + 1 : nul + 21].hex()))
        pos = nul + 21
    return entries


def with_entries(repo: Repo, tree_id: str, folders: list[bytes], extra: list[tuple[str, bytes, str]]) -> str:
    """`tree_id` with `extra` added to its folder `folders` (a path, one name a level)."""
    entries = raw_entries(repo, tree_id)
    if not folders:
        return tree(repo, [*entries, *extra])
    return tree(
        repo,
        [(m, n, with_entries(repo, s, folders[1:], extra) if n == folders[0] else s) for m, n, s in entries],
    )


def commit_with_entries(repo: Repo, folder: str, extra: list[tuple[str, bytes, str]], message: str) -> str:
    """A commit on HEAD whose tree's `folder` also holds `extra`; the branch `hostile` names it."""
    head_tree = repo.git("rev-parse", "HEAD^{tree}").stdout.strip()
    new_root = with_entries(repo, head_tree, [name.encode() for name in folder.split("/")], extra)
    commit = repo.git("commit-tree", new_root, "-p", "HEAD", "-m", message).stdout.strip()
    repo.git("update-ref", "refs/heads/hostile", commit)
    return commit


def commit_with_foundry_entries(repo: Repo, extra: list[tuple[str, bytes, str]], message: str) -> str:
    return commit_with_entries(repo, ".foundry", extra, message)


def hostile_commit(repo: Repo) -> str:
    """`.foundry` also holds `..`/`..`/sentinel (two levels up from the snapshot's
    `.foundry`: beside the snapshot's folder), a blob named `../../escaped`, `.git/config`,
    `./dot` and one named `/absolute`."""
    pwned = blob(repo, b"pwned\n")
    up_two = tree(repo, [("40000", b"..", tree(repo, [("100644", b"sentinel", pwned)]))])
    return commit_with_foundry_entries(
        repo,
        [
            ("40000", b"..", up_two),
            ("100644", b"../../escaped", pwned),
            ("40000", b".git", tree(repo, [("100644", b"config", pwned)])),
            ("40000", b".", tree(repo, [("100644", b"dot", pwned)])),
            ("100644", b"/absolute", pwned),
        ],
        "hostile names",
    )


SKIPPED = [
    (".foundry/../../sentinel", "a part named '..'"),
    (".foundry/../../escaped", "a part named '..'"),
    (".foundry/.git/config", "a part named '.git'"),
    (".foundry/./dot", "a part named '.'"),
    (".foundry//absolute", "an empty part"),
]


SNAPSHOT = [".foundry/memory/INDEX.md", f"{FACTS}/fact-0001.md", f"{FACTS}/fact-0002.md"]


def written(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def test_hostile_names_are_never_written_and_the_rest_opens(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, init=False)
    commit = hostile_commit(repo)
    box = tmp_path / "box"
    past = box / "past"
    past.mkdir(parents=True)
    done = materialise(Layout(repo.root), "hostile", past)
    assert list(box.iterdir()) == [past]  # no sentinel, no `escaped` beside the snapshot
    assert not (tmp_path / "escaped").exists() and not (tmp_path / "sentinel").exists()
    assert written(past) == SNAPSHOT
    assert done == Materialised(commit[:8], SKIPPED)
    assert done.warning() == (
        f"{commit[:8]}: 5 paths not written from git: '.foundry/../../sentinel' (a part named '..'), "
        "'.foundry/../../escaped' (a part named '..'), '.foundry/.git/config' (a part named '.git') and 2 more"
    )
    assert MAX_SKIPPED_SHOWN == 3
    project = Project(past, use_cache=False)  # the rest of the snapshot opens
    project.sync()
    assert sorted(f.body for f in project.store.facts.values()) == ["base-cache", "base-queue"]
    assert not project.store.broken
    assert repo.git("status", "--porcelain").stdout == ""


def test_one_skipped_path_is_named_in_full(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, init=False)
    commit = commit_with_foundry_entries(repo, [("100644", b"..", blob(repo, b"x"))], "a file named ..")
    past = tmp_path / "past"
    past.mkdir()
    assert materialise(Layout(repo.root), commit, past).warning() == (
        f"{commit[:8]}: 1 path not written from git: '.foundry/..' (a part named '..')"
    )
    assert not (tmp_path / ".foundry").exists()


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("a/../b", "a part named '..'"),
        ("..", "a part named '..'"),
        ("a/./b", "a part named '.'"),
        ("a/.git/config", "a part named '.git'"),
        ("a/.GIT/config", "a part named '.git'"),  # one folder on a case-blind file system
        (".git", "a part named '.git'"),
        ("/etc/passwd", "an absolute path"),
        ("a//b", "an empty part"),
        ("a/", "an empty part"),
        (".foundry/memory/facts/fact-0001.md", None),
        (".foundry/..md/x.gitkeep", None),
        ("a/.gitignore", None),
    ],
)
def test_refused_path_reason(path: str, reason: str | None) -> None:
    assert refused_path_reason(path) == reason


def test_a_file_where_a_folder_is_wanted_is_skipped(tmp_path: Path) -> None:
    """Two entries of one name (a file, then a folder): the second is skipped, nothing raised."""
    repo = make_repo(tmp_path, init=False)
    x = blob(repo, b"x")
    commit = commit_with_foundry_entries(
        repo, [("100644", b"twice", x), ("40000", b"twice", tree(repo, [("100644", b"inner", x)]))], "twice"
    )
    past = tmp_path / "past"
    past.mkdir()
    done = materialise(Layout(repo.root), commit, past)
    assert done.skipped == [(".foundry/twice/inner", "a file and a folder of the same name")]
    assert (past / ".foundry/twice").read_bytes() == b"x"


def test_a_blob_over_the_file_limit_is_not_read(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, init=False)
    big = blob(repo, b"\0" * (MAX_FILE_BYTES + 1))
    fits = blob(repo, b"y" * MAX_FILE_BYTES)
    commit = commit_with_foundry_entries(repo, [("100644", b"big", big), ("100644", b"fits", fits)], "big")
    past = tmp_path / "past"
    past.mkdir()
    done = materialise(Layout(repo.root), commit, past)
    assert done.skipped == [(".foundry/big", "over the 16 MiB limit")]
    assert not (past / ".foundry/big").exists() and (past / ".foundry/fits").stat().st_size == MAX_FILE_BYTES


def test_the_temporary_folder_goes_after_the_block_and_after_an_error(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, init=False)
    with materialised(Layout(repo.root), "HEAD") as (past, done):
        assert past.name.startswith(MATERIALISED_PREFIX) and done.skipped == []
        assert written(past) == SNAPSHOT
    assert not past.exists()
    with pytest.raises(RuntimeError), materialised(Layout(repo.root), "HEAD") as (past, _done):
        raise RuntimeError("the app failed")
    assert not past.exists()


# ---- the TUI in a real process, on a pseudo-terminal ---------------------------------------


class Terminal:
    """`foundry ARGS` on a pseudo-terminal of 120 x 40, its output collected as it comes."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: Path) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "foundry_tui", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env={**env, "TERM": "xterm-256color", "PYTHONPATH": str(REPO)},
            cwd=cwd,
            start_new_session=True,
        )
        os.close(slave)
        self.output = b""

    def read_until(self, text: bytes, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.output:
            left = deadline - time.monotonic()
            assert left > 0, f"{text!r} never came: {self.output[-2000:]!r}"
            if select.select([self.master], [], [], left)[0]:
                try:
                    self.output += os.read(self.master, 65536)
                except OSError:  # the process ended: its side of the terminal is closed
                    assert text in self.output, f"{text!r} never came: {self.output[-2000:]!r}"

    def wait(self) -> int:
        deadline = time.monotonic() + 60
        while self.proc.poll() is None and time.monotonic() < deadline:
            if select.select([self.master], [], [], 0.1)[0]:  # drain: a full terminal would block it
                with contextlib.suppress(OSError):  # the process ended: its side of the terminal is closed
                    self.output += os.read(self.master, 65536)
        code = self.proc.wait(timeout=1)
        os.close(self.master)
        return code


def tui_at(tmp_path: Path, repo: Repo, rev: str) -> tuple[Terminal, Path]:
    temp = tmp_path / "tmp"
    temp.mkdir(exist_ok=True)
    terminal = Terminal(["tui", "--at", rev, "--root", str(repo.root)], {**repo.env, "TMPDIR": str(temp)}, repo.root)
    terminal.read_until(b"read-only")  # the header's label: the app is up
    assert [p for p in temp.iterdir() if p.name.startswith(MATERIALISED_PREFIX)] != []
    return terminal, temp


def test_tui_at_warns_in_one_line_and_leaves_nothing_when_terminated(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, init=False)
    commit = hostile_commit(repo)
    terminal, temp = tui_at(tmp_path, repo, "hostile")
    terminal.proc.send_signal(signal.SIGTERM)
    assert terminal.wait() == 128 + signal.SIGTERM  # (the signal's own end would be -15)
    assert list(temp.iterdir()) == []  # the snapshot is gone, and nothing was written beside it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["origin", "tmp"]
    expected = Materialised(commit[:8], SKIPPED).warning()
    assert f"foundry: warning: {expected}\r\n".encode() in terminal.output  # before the app took the screen


def test_tui_at_leaves_nothing_when_its_terminal_hangs_up(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, init=False)
    terminal, temp = tui_at(tmp_path, repo, "HEAD")
    terminal.proc.send_signal(signal.SIGHUP)
    assert terminal.wait() == 128 + signal.SIGHUP
    assert list(temp.iterdir()) == []


def test_tui_at_leaves_nothing_when_quit(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, init=False)
    terminal, temp = tui_at(tmp_path, repo, "HEAD")
    assert b"foundry: warning" not in terminal.output
    os.write(terminal.master, b"q")
    assert terminal.wait() == 0
    assert list(temp.iterdir()) == []


def test_tui_at_an_unknown_revision_leaves_nothing(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, init=False)
    temp = tmp_path / "tmp"
    temp.mkdir()
    run = run_cli("tui", "--at", "no-such-rev", "--root", str(repo.root), env={**repo.env, "TMPDIR": str(temp)})
    assert run.code == 2 and run.out == ""
    assert run.err == (
        "foundry: error: revision 'no-such-rev' does not exist in this repository: give a commit, branch or tag\n"
    )
    assert list(temp.iterdir()) == []


def test_history_readers_pass_over_fact_files_behind_hostile_names(tmp_path: Path) -> None:
    """A fact file named `../fact-0009.md` in the facts folder, and one in a folder named
    `..` inside it: neither is a fact of the memory's, in facts at a revision, memory diff
    or memory log (the name alone would pass for a fact file)."""
    repo = make_repo(tmp_path, init=False)
    stray = blob(repo, fact_text("fact-0009", 200))
    commit = commit_with_entries(
        repo,
        FACTS,
        [("100644", b"../fact-0009.md", stray), ("40000", b"..", tree(repo, [("100644", b"fact-0010.md", stray)]))],
        "stray facts",
    )
    layout = Layout(repo.root)
    assert sorted(git_history.Repo(layout).facts_at(commit)) == ["fact-0001", "fact-0002"]
    assert git_history.memory_diff(layout, "main", "hostile").events == []
    repo.git("update-ref", "refs/heads/main", commit)
    assert [e.fact_id for e in memory_log(layout).events] == ["fact-0002", "fact-0001"]
