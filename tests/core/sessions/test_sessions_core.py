"""Session memory's core (spec 004): the store, working memory, the ledger, the triggers
and the tiers, on a real SQLite file; several real processes writing one session."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from foundry_tui.core.errors import FoundryError, InputError, NotFoundError
from foundry_tui.core.paths import Layout
from foundry_tui.core.sessions.agents import check_session_id
from foundry_tui.core.sessions.context import render_tiers
from foundry_tui.core.sessions.ledger import (
    GENERATION_LAPSE_SECONDS,
    Ledger,
    begin_generation,
    check_triggers,
    ingest_transcript,
    load_ledger,
    persist_observation,
    persist_reflection,
)
from foundry_tui.core.sessions.store import SessionStore, SessionStoreError
from foundry_tui.core.sessions.transcript import parse_turn, read_turns
from foundry_tui.core.sessions.working import MAX_FACTS, memory_command, working_facts
from tests.session_helpers import SESSION, append, assistant_lines, usage, user_line


class Clock:
    def __init__(self, now: float = 1_796_025_600.0) -> None:  # 2026-11-30 08:00 UTC
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def store(root: Path) -> Iterator[SessionStore]:
    made = SessionStore(Layout(root), clock=Clock())
    yield made
    made.close()


# ---- the store ---------------------------------------------------------------------------


def test_store_is_wal_versioned_and_under_scratch(store: SessionStore, root: Path) -> None:
    memory_command(store, SESSION, "add", fact="tests need FOO=1")
    assert store.path == root / ".foundry" / "scratch" / "sessions.db"
    raw = sqlite3.connect(store.path)
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert raw.execute("PRAGMA user_version").fetchone()[0] == 1
    key, value = raw.execute("SELECT key, value FROM kv").fetchone()
    assert key == f"memory:{SESSION}"
    assert set(json.loads(value)) == {"working", "observation", "reflection"}


def test_each_tier_keeps_its_latest_record_and_the_audit_keeps_all(store: SessionStore) -> None:
    memory_command(store, SESSION, "add", fact="a")
    memory_command(store, SESSION, "add", fact="b")
    memory_command(store, SESSION, "replace", old="a", new="c")
    assert working_facts(store.memory(SESSION)) == (["c", "b"], 3)
    audit = store.audit(SESSION)
    assert [(e["kind"], e["record"]["version"], e["record"]["facts"]) for e in audit] == [
        ("working", 1, ["a"]),
        ("working", 2, ["a", "b"]),
        ("working", 3, ["c", "b"]),
    ]


def test_a_corrupt_database_is_one_line_and_left_as_it_is(root: Path) -> None:
    db = root / ".foundry" / "scratch" / "sessions.db"
    db.parent.mkdir(parents=True)
    garbage = b"this is not sqlite at all\n" * 200
    db.write_bytes(garbage)
    store = SessionStore(Layout(root))
    with pytest.raises(SessionStoreError) as caught:
        memory_command(store, SESSION, "add", fact="x")
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(".foundry/scratch/sessions.db cannot be used (file is not a database)")
    assert "move it aside or delete it" in message
    assert db.read_bytes() == garbage


def test_a_newer_schema_is_refused_not_reset(root: Path) -> None:
    db = root / ".foundry" / "scratch" / "sessions.db"
    db.parent.mkdir(parents=True)
    raw = sqlite3.connect(db)
    raw.execute("CREATE TABLE future (x)")
    raw.execute("PRAGMA user_version = 7")
    raw.commit()
    raw.close()
    with pytest.raises(SessionStoreError, match=r"written by a newer foundry \(schema 7; this one reads 1\)"):
        SessionStore(Layout(root)).memory(SESSION)
    assert sqlite3.connect(db).execute("SELECT name FROM sqlite_master").fetchall() == [("future",)]


def test_a_foreign_sqlite_file_is_refused(root: Path) -> None:
    db = root / ".foundry" / "scratch" / "sessions.db"
    db.parent.mkdir(parents=True)
    raw = sqlite3.connect(db)
    raw.execute("CREATE TABLE mine (x)")
    raw.commit()
    raw.close()
    with pytest.raises(SessionStoreError, match="not a foundry session store"):
        SessionStore(Layout(root)).memory(SESSION)


def test_no_foundry_folder_means_no_store(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError, match="run `foundry init`"):
        memory_command(SessionStore(Layout(tmp_path)), SESSION, "add", fact="x")
    assert not (tmp_path / ".foundry").exists()


# ---- working memory ----------------------------------------------------------------------


def test_remove_or_replace_a_missing_fact_lists_what_is_there(store: SessionStore) -> None:
    memory_command(store, SESSION, "add", fact="tests need FOO=1")
    memory_command(store, SESSION, "add", fact="API in src/http")
    for command, kwargs in (("remove", {"fact": "nope"}), ("replace", {"old": "nope", "new": "x"})):
        with pytest.raises(NotFoundError) as caught:
            memory_command(store, SESSION, command, **kwargs)
        assert str(caught.value) == (
            "no working fact 'nope'; working memory holds: 'tests need FOO=1'; 'API in src/http'"
        )
    assert working_facts(store.memory(SESSION))[1] == 2  # nothing written


def test_replies(store: SessionStore) -> None:
    assert memory_command(store, SESSION, "add", fact="  tests   need\nFOO=1 ") == (
        "added: tests need FOO=1\nworking memory (version 1, 1 of 40 facts):\n- tests need FOO=1"
    )
    assert memory_command(store, SESSION, "add", fact="tests need FOO=1").startswith(
        "unchanged: already in working memory\nworking memory (version 1,"
    )
    assert memory_command(store, SESSION, "replace", old="tests need FOO=1", new="tests need FOO=2") == (
        "replaced: tests need FOO=1\n     with: tests need FOO=2\n"
        "working memory (version 2, 1 of 40 facts):\n- tests need FOO=2"
    )
    assert memory_command(store, SESSION, "remove", fact="tests need FOO=2") == (
        "removed: tests need FOO=2\nworking memory (version 3): empty"
    )


def test_a_huge_fact_is_refused_with_the_numbers(store: SessionStore) -> None:
    with pytest.raises(InputError) as caught:
        memory_command(store, SESSION, "add", fact="x" * 100_000)
    assert str(caught.value) == (
        "the fact is 100,000 characters; a working fact holds at most 300: shorten it by 99,700 "
        "(one line, the fact itself)"
    )
    assert not store.has_session(SESSION)


def test_the_fact_count_limit(store: SessionStore) -> None:
    for number in range(MAX_FACTS):
        memory_command(store, SESSION, "add", fact=f"fact {number}")
    with pytest.raises(InputError, match="already holds 40 facts, the limit: remove or replace one first"):
        memory_command(store, SESSION, "add", fact="one more")
    assert working_facts(store.memory(SESSION))[1] == MAX_FACTS


@pytest.mark.parametrize(
    ("command", "kwargs", "message"),
    [
        ("add", {}, "memory add needs the argument 'fact'"),
        ("replace", {"old": "a"}, "memory replace needs the arguments 'old' and 'new'"),
        ("remove", {"fact": "a", "new": "b"}, "memory remove takes 'fact', not 'old' or 'new'"),
        ("delete", {"fact": "a"}, "unknown memory command 'delete': use add, remove or replace"),
        ("add", {"fact": " \n "}, "the fact is empty: give one short line to remember"),
    ],
)
def test_bad_commands(store: SessionStore, command: str, kwargs: dict[str, str], message: str) -> None:
    with pytest.raises(InputError) as caught:
        memory_command(store, SESSION, command, **kwargs)
    assert str(caught.value) == message


WRITER = """
import sys
from pathlib import Path
from foundry_tui.core.paths import Layout
from foundry_tui.core.sessions.store import SessionStore
from foundry_tui.core.sessions.working import memory_command

root, name, session = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
import time
go = root / "go"
while not go.exists():  # both start together; sleeping, not spinning, leaves the CPU to the other
    time.sleep(0.001)
store = SessionStore(Layout(root))
for number in range(30):
    memory_command(store, session, "add", fact=f"{name} {number}")
    memory_command(store, session, "remove", fact=f"{name} {number}")
print("done")
"""


def test_two_processes_writing_one_session_lose_no_version(root: Path) -> None:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(root), name, SESSION],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("left", "right")
    ]
    (root / "go").touch()
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        assert out.strip() == "done"
    store = SessionStore(Layout(root))
    assert working_facts(store.memory(SESSION)) == ([], 120)
    audit = store.audit(SESSION)
    assert [e["record"]["version"] for e in audit] == list(range(1, 121))
    # Each record is the previous one with exactly one fact added or removed: no edit was lost.
    previous: set[str] = set()
    for entry in audit:
        facts = set(entry["record"]["facts"])
        assert len(facts ^ previous) == 1
        previous = facts


KILLED = """
import os, signal, sys
from pathlib import Path
from foundry_tui.core.paths import Layout
from foundry_tui.core.sessions.store import SessionStore

store = SessionStore(Layout(Path(sys.argv[1])))
with store.transaction() as conn:
    store.write_record(conn, sys.argv[2], "working", {"facts": ["half written"], "version": 2})
    os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_killed_writer_leaves_the_previous_record(store: SessionStore, root: Path) -> None:
    memory_command(store, SESSION, "add", fact="kept")
    store.close()
    proc = subprocess.run([sys.executable, "-c", KILLED, str(root), SESSION], cwd=root, capture_output=True)
    assert proc.returncode == -9
    assert working_facts(store.memory(SESSION)) == (["kept"], 1)
    assert len(store.audit(SESSION)) == 1
    memory_command(store, SESSION, "add", fact="next")
    assert working_facts(store.memory(SESSION)) == (["kept", "next"], 2)


# ---- session ids -------------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["../../etc/passwd", "a/b", "a\\b", "..", "", "x" * 129, "id with space", "é"])
def test_a_junk_session_id_is_refused_in_one_line(bad: str) -> None:
    with pytest.raises(InputError) as caught:
        check_session_id(bad)
    assert "\n" not in str(caught.value)


@given(st.text(max_size=200))
def test_an_accepted_session_id_is_a_plain_name(value: str) -> None:
    try:
        accepted = check_session_id(value)
    except InputError:
        return
    assert re.fullmatch(r"[A-Za-z0-9._-]{1,128}", accepted) and accepted.strip(".")


# ---- the triggers, exactly as spec 004 §3 --------------------------------------------------


@pytest.mark.parametrize(
    ("rolling", "observed", "generating", "expected"),
    [
        (0, 0, None, None),
        (29_999, 39_999, None, None),
        (30_000, 0, None, "observation"),
        (0, 40_000, None, "reflection"),
        (30_000, 40_000, None, "observation"),  # the spec checks observation first
        (50_000, 50_000, "observation", None),  # nothing while a generation is in progress
        (50_000, 50_000, "reflection", None),
    ],
)
def test_check_triggers(rolling: int, observed: int, generating: str | None, expected: str | None) -> None:
    ledger = Ledger(rolling, observed, generating=generating, generating_since=1000.0)
    assert check_triggers(ledger, 30_000, 40_000, now=1001.0) == expected


def test_an_unanswered_generation_lapses() -> None:
    ledger = Ledger(30_000, generating="observation", generating_since=1000.0)
    assert check_triggers(ledger, 30_000, 40_000, now=1000.0 + GENERATION_LAPSE_SECONDS - 1) is None
    assert check_triggers(ledger, 30_000, 40_000, now=1000.0 + GENERATION_LAPSE_SECONDS) == "observation"


def test_begin_generation_guards_against_asking_twice(store: SessionStore) -> None:
    with store.transaction() as conn:
        assert begin_generation(store, conn, SESSION, "observation") is True
        assert begin_generation(store, conn, SESSION, "observation") is False
    persist_observation(store, SESSION, ["done"], 10)
    with store.transaction() as conn:
        assert begin_generation(store, conn, SESSION, "reflection") is True


def _ledger(store: SessionStore) -> Ledger:
    with store.read() as conn:
        return load_ledger(conn, SESSION)


def test_persisting_moves_the_counters(store: SessionStore, tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(
        assistant_lines("msg_a", usage(10, 20_000, 0, 990)) + assistant_lines("msg_b", usage(0, 5_000, 20_000, 0))
    )
    with store.transaction() as conn:
        assert ingest_transcript(store, conn, SESSION, str(transcript)) == 26_000
    assert (_ledger(store).rolling, _ledger(store).observation) == (26_000, 0)
    persist_observation(store, SESSION, ["migrations run with make migrate"], 26_000)
    assert (_ledger(store).rolling, _ledger(store).observation) == (0, 26_000)
    persist_observation(store, SESSION, ["second"])  # token_count defaults to the rolling count (0 now)
    assert _ledger(store).observation == 26_000
    persist_reflection(store, SESSION, ["the work is about migrations"])
    assert (_ledger(store).rolling, _ledger(store).observation, _ledger(store).total) == (0, 0, 26_000)


def test_observation_is_shown_only_when_newer_than_the_reflection(store: SessionStore) -> None:
    clock = store.clock
    assert isinstance(clock, Clock)
    assert render_tiers(store.memory(SESSION)) == ""  # empty tiers print nothing
    memory_command(store, SESSION, "add", fact="tests need FOO=1")
    persist_observation(store, SESSION, ["ran the suite: 3 failures in test_orders"], 100)
    assert render_tiers(store.memory(SESSION)) == (
        "[working_memory]\n- tests need FOO=1\n\n"
        "[observation]\n- 2026-11-30 08:00 ran the suite: 3 failures in test_orders"
    )
    clock.now += 60
    persist_reflection(store, SESSION, ["the failures are all in the orders fixtures"])
    assert render_tiers(store.memory(SESSION)) == (
        "[working_memory]\n- tests need FOO=1\n\n[reflection]\n- the failures are all in the orders fixtures"
    )
    clock.now += 60
    persist_observation(store, SESSION, ["fixed the fixtures"], 100)
    tiers = render_tiers(store.memory(SESSION))
    assert tiers.endswith("[observation]\n- 2026-11-30 08:02 fixed the fixtures")  # a fresh list after the reflection
    assert tiers.index("[working_memory]") < tiers.index("[reflection]") < tiers.index("[observation]")


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ([], "memory_observe: entries is empty: give at least one short line"),
        ("text", "memory_observe: entries must be a list of strings"),
        (["x" * 5000], "memory_observe: entry 1 is 5,000 characters; at most 1,000: shorten it"),
        (["x"] * 51, "memory_observe: 51 entries; at most 50: condense them further"),
    ],
)
def test_bad_observations_write_nothing(store: SessionStore, entries: object, message: str) -> None:
    with pytest.raises(InputError) as caught:
        persist_observation(store, SESSION, entries, 10)
    assert str(caught.value) == message
    assert not store.has_session(SESSION)


# ---- the transcript ------------------------------------------------------------------------


def test_each_turn_counts_once_at_its_largest_usage(store: SessionStore, tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(
        user_line("how do the migrations run?")
        + assistant_lines("msg_1", usage(4, 1_000, 15_000, 50), blocks=3)  # one message, three lines
        + assistant_lines("msg_sub", usage(4, 9_999, 0, 9_999), sidechain=True)  # a subagent's: not this context
        + "{not json\n"
        + json.dumps({"type": "summary", "summary": "x"})
        + "\n"
    )

    def ingest() -> int:
        with store.transaction() as conn:
            return ingest_transcript(store, conn, SESSION, str(transcript))

    assert ingest() == 1_054
    assert ingest() == 0  # a second hook sees nothing new
    append(transcript, assistant_lines("msg_1", usage(4, 1_000, 15_000, 80)))  # the same turn, more output
    append(transcript, assistant_lines("msg_2", usage(2, 300, 16_000, 20))[:-40])  # a line still being written
    assert ingest() == 30
    line = assistant_lines("msg_2", usage(2, 300, 16_000, 20))
    append(transcript, line[len(line) - 40 :])
    assert ingest() == 322  # the line is whole now: read once, from where the last read stopped
    append(transcript, assistant_lines("msg_3", usage(1, 0, 0, 9)))
    assert ingest() == 10
    transcript.write_text(assistant_lines("msg_1", usage(4, 1_000, 15_000, 80)))  # rewritten shorter
    assert ingest() == 0
    assert _ledger(store).rolling == 1_416


def test_a_missing_transcript_counts_nothing(store: SessionStore, tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    with store.transaction() as conn:
        assert ingest_transcript(store, conn, SESSION, str(tmp_path / "gone.jsonl")) == 0
        assert ingest_transcript(store, conn, SESSION, str(tmp_path)) == 0  # a folder
        assert ingest_transcript(store, conn, SESSION, str(fifo)) == 0  # would block a reader forever
        assert ingest_transcript(store, conn, SESSION, "/dev/zero") == 0
    assert _ledger(store).rolling == 0


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5_000), st.integers(0, 3)), max_size=25), st.data())
def test_reading_in_any_pieces_counts_what_reading_at_once_does(
    turns: list[tuple[int, int, int]], data: st.DataObject
) -> None:
    text = "".join(assistant_lines(f"msg_{m}", usage(0, tokens, 0, extra)) for m, tokens, extra in turns)
    expected: dict[str, int] = {}
    for line in text.splitlines(keepends=True):
        turn = parse_turn(line.encode())
        if turn:
            expected[turn[0]] = max(expected.get(turn[0], 0), turn[1])
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=6)))
    seen: dict[str, int] = {}
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.jsonl"
        path.write_text("")
        position = 0
        for cut in [*cuts, len(text)]:
            append(path, text[position:cut])
            position = max(position, cut)
            found, position_read = read_turns(str(path), seen.get("__offset__", 0))
            seen["__offset__"] = position_read
            for turn_id, tokens in found:
                seen[turn_id] = max(seen.get(turn_id, 0), tokens)
    seen.pop("__offset__")
    assert seen == expected


def test_a_store_error_is_a_foundry_error() -> None:
    assert issubclass(SessionStoreError, FoundryError)


FACTS = st.sampled_from(["a", "b", "c", "tests need FOO=1", "  spaced   out "])


@given(st.lists(st.tuples(st.sampled_from(["add", "remove", "replace"]), FACTS, FACTS), max_size=30))
def test_working_memory_follows_a_list_model(ops: list[tuple[str, str, str]]) -> None:
    """Any sequence of commands leaves what a plain list would, and bumps the version once
    per change (refusals and no-op adds write nothing)."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / ".foundry").mkdir()
        store = SessionStore(Layout(Path(folder)))
        model: list[str] = []
        changes = 0
        for command, first, second in ops:
            one, two = " ".join(first.split()), " ".join(second.split())
            try:
                if command == "replace":
                    memory_command(store, SESSION, command, old=first, new=second)
                else:
                    memory_command(store, SESSION, command, fact=first)
            except NotFoundError:
                assert one not in model
                continue
            if command == "add" and one not in model:
                model.append(one)
                changes += 1
            elif command == "remove":
                model.remove(one)
                changes += 1
            elif command == "replace":
                model = (
                    [f for f in model if f != one]
                    if two in model and two != one
                    else [two if f == one else f for f in model]
                )
                changes += 1
        assert working_facts(store.memory(SESSION)) == (model, changes)
        store.close()
