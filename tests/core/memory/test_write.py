"""memory_write: the three outcomes, ids, supersedes, refusals, concurrency and crashes."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from foundry_tui.core.errors import InputError
from foundry_tui.core.memory.model.facts import parse_fact_text
from foundry_tui.core.memory.model.request import WriteRequest
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.storage.store import open_store
from foundry_tui.core.memory.writing.write import memory_write
from foundry_tui.core.tokens import estimate_tokens
from tests.helpers import TODAY, write

WHY = "**Why:** we need MERGE.\n**How to apply:** plain SQL migrations."


def test_created_unchanged_updated_replies(project: Project) -> None:
    reply = write(project, "PostgreSQL 16 is the only database", WHY, "decision", tags=["db"])
    tokens = estimate_tokens(project.layout.index_path.read_text())
    assert reply == f"created: fact-0001\nIndex: 1/1 facts listed, ~{tokens} tokens."
    # Same title and body, differently spaced and cased: nothing is written.
    before = sorted(p.name for p in project.layout.facts_dir.iterdir())
    assert write(project, "postgresql 16 is  the only database", WHY.replace(" ", "  "), "decision").startswith(
        "unchanged: fact-0001\nIndex: 1/1 facts listed"
    )
    assert sorted(p.name for p in project.layout.facts_dir.iterdir()) == before
    reply = write(project, "PostgreSQL 16 is the only database", WHY + " Also pgvector.", "decision")
    assert reply.splitlines()[0] == "updated: fact-0002 (supersedes fact-0001)"
    tokens = estimate_tokens(project.layout.index_path.read_text())
    assert reply.splitlines()[1] == f"Index: 1/1 facts listed, ~{tokens} tokens."
    fact = parse_fact_text((project.layout.facts_dir / "fact-0002.md").read_text(), "fact-0002")
    assert fact.supersedes == "fact-0001" and fact.created == "2026-11-30"
    assert "fact-0001" not in project.layout.index_path.read_text()


def test_warning_line_for_decision_without_why(project: Project) -> None:
    lines = write(project, "We use Celery", "Jobs run on Celery.", "decision").splitlines()
    assert lines[0] == "created: fact-0001"
    assert (
        lines[2]
        == "Warning: decision fact-0001 has no **Why:** line; doctor fails and prune lists it until one is added."
    )
    assert len(write(project, "Celery is fine", "Jobs run on Celery.", "convention").splitlines()) == 2


def test_unbolded_why_is_bolded_before_fingerprinting(project: Project) -> None:
    write(project, "Use Redis as broker", "Why: it is already there.\nHow to apply: use redis://", "decision")
    text = (project.layout.facts_dir / "fact-0001.md").read_text()
    assert "**Why:** it is already there.\n**How to apply:** use redis://" in text
    assert write(
        project, "Use Redis as broker", "**Why:** it is already there.\n**How to apply:** use redis://", "decision"
    ).startswith("unchanged: fact-0001")


def test_ids_come_from_every_file_on_disk(project: Project) -> None:
    write(project, "First", "One.")
    write(project, "Expired one", "Gone.", expires="2026-01-01")
    (project.layout.facts_dir / "fact-0007.md").write_text("---\nbroken: [\n---\n")
    assert write(project, "Third", "Three.").startswith("created: fact-0008")


def test_over_budget_clause(project: Project) -> None:
    project.layout.config_path.write_text('{"indexTokenBudget": 60}')
    for n in range(4):
        reply = write(project, f"Fact number {n} about something", "Body.")
    tokens = estimate_tokens(project.layout.index_path.read_text())
    assert tokens <= 60 + 40  # the note is appended after the budget check
    assert reply.splitlines()[1] == f"Index: 2/4 facts listed, ~{tokens} tokens, 2 omitted over budget."


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"title": "t" * 81}, "title is 81 characters, 1 over the 80-character limit: state the fact more briefly"),
        ({"body": "w " * 121}, "body is 121 words, 1 over the 120-word limit: shorten it or split it into two facts"),
        (
            {"type": "opinion"},
            "unknown type 'opinion': use one of decision, constraint, convention, domain, risk, metric, glossary",
        ),
        ({"confidence": "certain"}, "unknown confidence 'certain': use one of high, medium, low"),
        ({"expires": "next week"}, "expires 'next week' is not a date: use YYYY-MM-DD"),
        ({"title": ""}, "title is empty: give the fact a title that states the fact itself"),
        ({"body": " \n "}, "body is empty: state the claim, and for a decision or risk its **Why:** line"),
    ],
)
def test_refusals_write_nothing(project: Project, fields: dict[str, str], message: str) -> None:
    req = {"title": "A title", "body": "A body.", "type": "convention", **fields}
    with pytest.raises(InputError) as info:
        memory_write(project, WriteRequest(**req), TODAY)  # type: ignore[arg-type]
    assert str(info.value) == message
    assert list(project.layout.facts_dir.iterdir()) == []
    assert not project.layout.index_path.exists()


WORKER = """
import sys, time
from pathlib import Path
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.writing.write import memory_write
from foundry_tui.core.memory.model.request import WriteRequest
from foundry_tui.core.paths import resolve_today
root, worker, count, go, same = sys.argv[1], sys.argv[2], int(sys.argv[3]), Path(sys.argv[4]), sys.argv[5] == "same"
while not go.exists():
    time.sleep(0.001)
project = Project(Path(root))
for i in range(count):
    title = "Everyone writes this" if same else f"Worker {worker} records fact {i}"
    body = "The same body." if same else f"Body {worker}-{i}."
    r = memory_write(project, WriteRequest(title=title, body=body, type="convention"), resolve_today("2026-11-30"))
    print(r.action, r.fact_id, flush=True)
"""


def _run_workers(root: Path, workers: int, count: int, same: bool) -> list[str]:
    go = root / "go"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(root), str(w), str(count), str(go), "same" if same else "distinct"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(workers)
    ]
    time.sleep(0.5)  # let every interpreter start, then release them together
    go.touch()
    lines: list[str] = []
    for proc in procs:
        out, err = proc.communicate(timeout=240)
        assert proc.returncode == 0, err
        lines += out.split()
    return lines


def test_four_processes_writing_at_once_lose_nothing(root: Path) -> None:
    lines = _run_workers(root, workers=4, count=50, same=False)
    ids = sorted(lines[1::2])
    assert lines[0::2] == ["created"] * 200
    assert ids == [f"fact-{n:04d}" for n in range(1, 201)]  # distinct and contiguous
    store = open_store(Project(root).layout)
    assert len(store.facts) == 200 and not store.broken
    titles = {f.title for f in store.facts.values()}
    assert titles == {f"Worker {w} records fact {i}" for w in range(4) for i in range(50)}
    assert (
        "200/200 facts listed"
        in subprocess.run(
            [sys.executable, "-m", "foundry_tui", "--root", str(root), "memory", "index"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    assert not [p for p in root.joinpath(".foundry/memory/facts").iterdir() if p.name.startswith(".")]


def test_same_fact_from_many_processes_is_created_once(root: Path) -> None:
    lines = _run_workers(root, workers=5, count=1, same=True)
    actions = sorted(lines[0::2])
    assert actions == ["created", "unchanged", "unchanged", "unchanged", "unchanged"]
    assert set(lines[1::2]) == {"fact-0001"}


CRASH = """
import os, sys
from pathlib import Path
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.writing.write import memory_write
from foundry_tui.core.memory.model.request import WriteRequest
from foundry_tui.core.paths import resolve_today
which = sys.argv[2]
real = getattr(os, which)
def crash(src, dst, *args, **kwargs):
    if which == "link" or str(dst).endswith("INDEX.md"):
        os._exit(9)  # the process dies between writing the temp file and renaming it
    return real(src, dst, *args, **kwargs)
setattr(os, which, crash)
memory_write(Project(Path(sys.argv[1])), WriteRequest(title="Interrupted", body="Never lands.", type="domain"), resolve_today("2026-11-30"))
"""


@pytest.mark.parametrize("step", ["link", "replace"])
def test_interrupted_write_leaves_old_state(project: Project, step: str) -> None:
    write(project, "Existing fact", "Stays.")
    facts_dir = project.layout.facts_dir
    before = {p.name: p.read_bytes() for p in facts_dir.iterdir()}
    index_before = project.layout.index_path.read_bytes()
    proc = subprocess.run(
        [sys.executable, "-c", CRASH, str(project.root), step], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 9
    after = {p.name: p.read_bytes() for p in facts_dir.iterdir() if not p.name.startswith(".")}
    if step == "link":  # died before the fact's name appeared: nothing changed
        assert after == before
        assert project.layout.index_path.read_bytes() == index_before
    else:  # died rebuilding the index: the new fact is whole, the old index is whole
        assert set(after) == {*before, "fact-0002.md"}
        assert parse_fact_text(after["fact-0002.md"].decode(), "fact-0002").title == "Interrupted"
        assert project.layout.index_path.read_bytes() == index_before
    store = open_store(project.layout)
    assert not store.broken
    # The next write works and repairs the index.
    assert write(project, "After the crash", "Fine.").startswith("created: fact-000")
    assert "After the crash" in project.layout.index_path.read_text()


def test_threads_in_one_process_share_the_lock(project: Project) -> None:
    import threading

    replies: list[str] = []

    def worker(n: int) -> None:
        own = Project(project.root)
        for i in range(10):
            replies.append(write(own, f"Thread {n} fact {i}", "x"))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ids = sorted(r.split()[1] for r in replies)
    assert ids == [f"fact-{n:04d}" for n in range(1, 31)]
