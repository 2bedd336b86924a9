"""The memory's timeline over git (core/history/timeline.py) against the plain reading it
replaces: every commit's changes walked one by one (`git log --raw`), every fact blob at
each day end parsed with the full parser and the active facts counted from scratch. On a
generated history with the awkward cases (edits, deletions, supersedes and merges,
expiries, broken files, non-fact files, a merge commit, several commits a day), cold,
warm, without a cache and walked on from a cached walk, the points must be the same."""

from __future__ import annotations

import datetime as _dt
import os
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from foundry_tui.core.history import timeline
from foundry_tui.core.history.timeline import BlobSummary, _ActiveCounter, active_by_type, memory_timeline
from foundry_tui.core.memory.model.facts import FactFileError, parse_fact_text
from foundry_tui.core.memory.project import Project
from foundry_tui.core.tokens import estimate_tokens

FACTS = ".foundry/memory/facts"
INDEX = ".foundry/memory/INDEX.md"
TYPES = ("constraint", "decision", "convention", "domain")
GIT_ENV = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def _git(root: Path, *args: str, stdin: bytes | None = None, env: dict[str, str] | None = None) -> bytes:
    return subprocess.run(
        ["git", *args],
        cwd=root,
        input=stdin,
        capture_output=True,
        check=True,
        env={**os.environ, **GIT_ENV, **(env or {})},
    ).stdout


def _fact(number: int, ftype: str, expires: str | None, supersedes: str | None, merged: list[str]) -> bytes:
    merged_line = f"merged_from: [{', '.join(merged)}]\n" if merged else ""
    return (
        f"---\nid: fact-{number:04d}\ntype: {ftype}\nscope: project\ntitle: Rule number {number}\ntags: [x]\n"
        f"confidence: medium\nsource: conversation\ncreated: 2026-01-01\nexpires: {expires or 'null'}\n"
        f"supersedes: {supersedes or 'null'}\n{merged_line}---\n\nThe body of rule {number}.\n"
    ).encode()


def _history(root: Path, commits: int, seed: int) -> None:
    """A first-parent history made with one `git fast-import`: facts created, edited,
    deleted, superseded and merged, expiring, broken (bad type, no frontmatter, not
    UTF-8), files beside the facts that are not facts, INDEX.md rewritten (non-ASCII
    too) and deleted, commits that leave the memory alone, and a merge from a branch."""
    rng = random.Random(seed)
    day = _dt.date(2026, 1, 1)
    live: list[int] = []
    next_number = 1
    stream = bytearray()
    mark = 0

    def commit(ref: str, moment: int, changes: list[tuple[str, bytes | None]], parents: list[int]) -> int:
        nonlocal mark
        mark += 1
        stream.extend(f"commit {ref}\nmark :{mark}\ncommitter T <t@t> {moment} +0000\ndata 2\nc\n".encode())
        if parents:
            stream.extend(f"from :{parents[0]}\n".encode())
        for parent in parents[1:]:
            stream.extend(f"merge :{parent}\n".encode())
        for path, data in changes:
            current[path] = data
            if data is None:
                stream.extend(f"D {path}\n".encode())
            else:
                mode = "100755" if path in executable else "100644"
                stream.extend(f"M {mode} inline {path}\ndata {len(data)}\n".encode() + data + b"\n")
        return mark

    head = 0
    current: dict[str, bytes | None] = {}  # each path's content on main (and the branches)
    put_back: tuple[str, bytes | None] | None = None
    for n in range(commits):
        step = rng.choice([0, 0, 1, 1, 2, 5])
        day += _dt.timedelta(days=0 if n - commits // 3 in (5, 6) else step)
        executable: set[str] = set()
        moment = int(_dt.datetime.combine(day, _dt.time(8), _dt.UTC).timestamp()) + n * 60
        changes: list[tuple[str, bytes | None]] = []
        for _ in range(rng.randint(1, 3)):
            roll = rng.random()
            expires = rng.choice([None, None, None, (day + _dt.timedelta(days=rng.randint(-5, 20))).isoformat()])
            if roll < 0.4 or not live:
                olds = rng.sample(live, min(len(live), rng.choice([0, 0, 1, 2])))
                supersedes = f"fact-{olds[0]:04d}" if olds and rng.random() < 0.6 else None
                merged = [f"fact-{o:04d}" for o in olds] if olds and supersedes is None else []
                if rng.random() < 0.1:
                    merged.append(f"fact-{next_number:04d}")  # a fact that names itself: not replaced by it
                changes.append(
                    (
                        f"{FACTS}/fact-{next_number:04d}.md",
                        _fact(next_number, rng.choice(TYPES), expires, supersedes, merged),
                    )
                )
                live.append(next_number)
                next_number += 1
            elif roll < 0.55:
                number = rng.choice(live)
                changes.append((f"{FACTS}/fact-{number:04d}.md", _fact(number, rng.choice(TYPES), expires, None, [])))
            elif roll < 0.62:
                number = rng.choice(live)
                live.remove(number)
                changes.append((f"{FACTS}/fact-{number:04d}.md", None))
            elif roll < 0.68:
                number = rng.choice(live)
                broken = rng.choice(
                    [b"no frontmatter\n", _fact(number, "nonsense", None, None, []), b"---\nid: \xff\n---\n"]
                )
                changes.append((f"{FACTS}/fact-{number:04d}.md", broken))
            elif roll < 0.8:
                words = " ".join(rng.choice(["orders", "billing", "→", "café", "x"]) for _ in range(rng.randint(0, 40)))
                changes.append((INDEX, f"# INDEX\n\n{words}\n".encode()))
            elif roll < 0.83:
                changes.append((INDEX, None))
            elif roll < 0.9:
                path = rng.choice([f"{FACTS}/notes.txt", f"{FACTS}/.draft.md", f"{FACTS}/sub/fact-0999.md"])
                changes.append((path, _fact(999, "decision", None, None, [])))
            else:
                changes.append(("src/app.py", f"print({n})\n".encode()))
        special = n - commits // 3
        if special == 0:
            changes = [(INDEX, b"# INDEX\n\nsame words\n")]
        elif special == 1:  # INDEX.md made executable: a change of mode alone changes the memory, as for git log
            changes = [(INDEX, b"# INDEX\n\nsame words\n")]
            executable.add(INDEX)
        elif special == 2:  # INDEX.md becomes a folder, a file changes inside it, then it is a file again
            changes = [(INDEX, None), (f"{INDEX}/inner.md", b"one\n")]
        elif special == 3:
            changes = [(f"{INDEX}/inner.md", b"two\n")]
        elif special == 4:
            changes = [(f"{INDEX}/inner.md", None), (INDEX, b"# INDEX\n\nback\n")]
        elif special == 5 and live:  # a fact changed, then put back the same day: the day ends as it began
            path = f"{FACTS}/fact-{live[0]:04d}.md"
            put_back = (path, current.get(path))
            changes = [(path, _fact(live[0], "domain", "2026-01-01", None, []))]
        elif special == 6 and put_back:
            changes = [put_back]
        elif special == 7:  # the facts folder replaced by a file (a path filter `facts/` sees no file), then back
            changes = [(FACTS, None), (FACTS, b"not a folder\n")]
            live.clear()
        elif special == 8:
            changes = [(FACTS, b"still not a folder\n")]
        elif special == 9:
            changes = [
                (FACTS, None),
                (f"{FACTS}/fact-{next_number:04d}.md", _fact(next_number, "domain", None, None, [])),
            ]
            live.append(next_number)
            next_number += 1
        if n == commits // 2 - 1:  # a branch changing a fact, merged back with no change of main's own:
            # the merge's memory is the branch's (the same as its second parent's, not its first's)
            side = commit("refs/heads/side0", moment, [(INDEX, b"# INDEX\n\nfrom the branch\n")], [head])
            head = commit("refs/heads/main", moment + 10, [(INDEX, b"# INDEX\n\nfrom the branch\n")], [head, side])
            continue
        if n == commits // 2:  # a branch with a fact of its own, merged back
            side = commit(
                "refs/heads/side", moment, [(f"{FACTS}/fact-0500.md", _fact(500, "domain", None, None, []))], [head]
            )
            changes.append((f"{FACTS}/fact-0500.md", _fact(500, "domain", None, None, [])))
            head = commit("refs/heads/main", moment + 30, changes, [head, side])
        else:
            head = commit("refs/heads/main", moment, changes, [head] if head else [])
    _git(root, "init", "-q", "-b", "main")
    _git(root, "fast-import", "--quiet", stdin=bytes(stream))
    _git(root, "checkout", "-q", "-f", "main")


def _summary(data: bytes | None) -> BlobSummary:
    if data is None:
        return None
    try:
        fact = parse_fact_text(data.decode("utf-8"), None)
    except (FactFileError, UnicodeDecodeError):
        return None
    return (fact.id, fact.type, fact.expires, list(fact.replaced_ids()))


def _reference(root: Path) -> tuple[list[dict[str, Any]], int]:
    """The points as the first timeline computed them: each commit's changes applied in
    turn, each day end's blobs read and parsed one by one, the active facts counted anew."""
    out = _git(
        root, "log", "--first-parent", "--reverse", "--raw", "--no-renames", "--no-abbrev", "-z",
        "--format=%x01%H %cs", "HEAD", "--", f"{FACTS}/", INDEX,
    ).decode("utf-8", "replace")  # fmt: skip
    commits = []
    for chunk in out.split("\x01")[1:]:
        fields = chunk.split("\0")
        sha, _, date = fields[0].strip().partition(" ")
        rest = fields[1:]
        changes = [
            (rest[i + 1], raw.strip("\n")[1:].split()[3])
            for i, raw in enumerate(rest)
            if raw.strip("\n").startswith(":")
        ]
        commits.append((sha, date.strip(), changes))
    contents = _read_all(root, [blob for _s, _d, changes in commits for _p, blob in changes if blob.strip("0")])
    state: dict[str, str] = {}
    index: str | None = None
    points = []
    for number, (sha, date, changes) in enumerate(commits):
        for path, blob in changes:
            gone = not blob.strip("0")
            if path == INDEX:
                index = None if gone else blob
            elif path.startswith(FACTS + "/"):
                name = path[len(FACTS) + 1 :]
                if "/" not in name and name.endswith(".md") and not name.startswith("."):
                    if gone:
                        state.pop(path, None)
                    else:
                        state[path] = blob
        if number + 1 == len(commits) or commits[number + 1][1] != date:
            summaries = [_summary(contents[blob]) for blob in state.values()]
            tokens = estimate_tokens(contents[index].decode("utf-8", "replace")) if index else None
            points.append(
                {"date": date, "commit": sha, "index_tokens": tokens, "active": active_by_type(summaries, date)}
            )
    return points, len(commits)


def _read_all(root: Path, blobs: list[str]) -> dict[str, bytes]:
    """Every blob's content (`git cat-file --batch`, read here without the product's reader)."""
    out = _git(root, "cat-file", "--batch", stdin="".join(f"{b}\n" for b in blobs).encode())
    contents = {}
    for blob in blobs:
        header, _, out = out.partition(b"\n")
        size = int(header.split()[2])
        contents[blob], out = out[:size], out[size + 1 :]
    return contents


def _points(root: Path) -> tuple[list[dict[str, Any]], int]:
    timeline = memory_timeline(Project(root).layout)
    return [p.to_dict() for p in timeline.points], timeline.commits


def _commit_on_top(root: Path, day: str, files: dict[str, bytes | None]) -> None:
    for name, data in files.items():
        path = root / name
        if data is None:
            path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    _git(root, "add", "-A")
    stamp = f"{day}T12:00:00Z"
    _git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "more",
         env={"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})  # fmt: skip


@pytest.mark.parametrize(("seed", "parallel_from"), [(1, 200), (2, 200), (3, 2)])
def test_the_timeline_is_the_reference_reading_cold_warm_and_walked_on(
    tmp_path: Path, seed: int, parallel_from: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(parallel_from 2: every read is split between two git processes.)"""
    monkeypatch.setattr(timeline, "PARALLEL_FROM", parallel_from)
    root = tmp_path / "repo"
    root.mkdir()
    _history(root, 160, seed)
    expected = _reference(root)
    assert len(expected[0]) > 40 and any(p["active"] for p in expected[0])
    assert _points(root) == expected  # cold: nothing cached
    assert _points(root) == expected  # warm: the walk and the points from the cache
    # Walked on from the cached walk: a commit the same day as the last point, then a new day.
    last_day = expected[0][-1]["date"]
    _commit_on_top(root, last_day, {f"{FACTS}/fact-0901.md": _fact(901, "decision", None, "fact-0001", [])})
    later = (_dt.date.fromisoformat(last_day) + _dt.timedelta(days=3)).isoformat()
    _commit_on_top(root, later, {f"{FACTS}/fact-0902.md": _fact(902, "domain", later, None, []), INDEX: b"# one\n"})
    expected = _reference(root)
    assert _points(root) == expected
    monkeypatch.setenv("FOUNDRY_NO_CACHE", "1")
    assert _points(root) == expected


def test_a_history_rewritten_under_the_cache_is_read_again(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    _history(root, 60, 3)
    _points(root)
    _git(root, "reset", "-q", "--hard", "HEAD~5")
    _commit_on_top(root, "2027-01-01", {f"{FACTS}/fact-0903.md": _fact(903, "decision", None, None, [])})
    assert _points(root) == _reference(root)


# ---- the counter kept as files come and go is active_by_type -------------------------------

_ids = st.sampled_from([f"fact-{n:04d}" for n in range(1, 7)])
_days = st.sampled_from(["2026-01-01", "2026-01-05", "2026-01-09"])
_summaries: st.SearchStrategy[BlobSummary] = st.one_of(
    st.none(),
    st.tuples(
        _ids,
        st.sampled_from(TYPES[:3]),
        st.one_of(st.none(), _days),
        st.lists(_ids, max_size=3),
    ).map(lambda t: (t[0], t[1], t[2], t[3])),
)


@given(steps=st.lists(st.tuples(st.sampled_from(["a", "b", "c", "d", "e"]), _summaries, _days), max_size=40))
def test_the_kept_counts_are_the_counts_made_anew(steps: list[tuple[str, BlobSummary, str]]) -> None:
    """Files (a…e) get a new content, or lose theirs (None: a file that does not load or
    is gone), one after another; after each step the kept counts are counted anew."""
    counter = _ActiveCounter()
    files: dict[str, BlobSummary] = {}
    for path, summary, day in steps:
        if path in files:
            counter.remove(files.pop(path))
        if summary is not None:
            files[path] = summary
            counter.add(summary)
        assert counter.active(day) == active_by_type(list(files.values()), day)
