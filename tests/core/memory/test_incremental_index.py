"""The word index after changes: a long-lived Project re-indexes only the facts that changed
(from the store's journal) and derives the active set from what the index keeps; its answers
must stay exactly those of a full scan of the files, whatever the changes."""

from __future__ import annotations

import datetime as _dt
import itertools
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from foundry_tui.core.memory.model.facts import TYPES, Fact, render_fact_text
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.search.reply import memory_search
from foundry_tui.core.memory.search.spec import match_facts, query_terms, rank
from foundry_tui.core.memory.search.word_index import SearchIndex

TODAY = _dt.date(2026, 11, 30)
VOCABULARY = ["service", "services", "deploy", "cache", "token", "redis", "retry", "owner"]
QUERIES = ["service", "cache deploy", "token owner redis", "ice", "retry services"]

MTIMES = itertools.count(1_700_000_000_000_000_000, 1_000_000)  # every write a new stat key, however fast
word = st.sampled_from(VOCABULARY)
words = st.lists(word, min_size=1, max_size=6).map(" ".join)


@st.composite
def new_fact(draw: st.DrawFn) -> dict[str, object]:
    return {
        "number": draw(st.integers(1, 40)),
        "type": draw(st.sampled_from(TYPES)),
        "title": draw(words),
        "body": draw(words),
        "tags": tuple(draw(st.lists(word, max_size=2, unique=True))),
        "confidence": draw(st.sampled_from(["high", "medium", "low"])),
        "expires": draw(st.sampled_from([None, "2026-11-29", "2026-11-30", "2027-01-01"])),
        "supersedes": draw(st.one_of(st.none(), st.integers(1, 40))),
    }


# One change: write (create or replace) a fact through the store, as memory_write records it;
# write one behind the project's back; remove a file; break a file.
change = st.one_of(
    st.tuples(st.just("record"), new_fact()),
    st.tuples(st.just("disk"), new_fact()),
    st.tuples(st.just("remove"), st.integers(1, 40)),
    st.tuples(st.just("break"), st.integers(1, 40)),
)


def _fact(spec: dict[str, object]) -> Fact:
    supersedes = spec["supersedes"]
    return Fact(
        id=f"fact-{spec['number']:04d}",
        type=str(spec["type"]),
        title=str(spec["title"]),
        body=str(spec["body"]),
        tags=tuple(spec["tags"]),  # type: ignore[arg-type]
        confidence=str(spec["confidence"]),
        created="2026-05-01",
        expires=spec["expires"],  # type: ignore[arg-type]
        supersedes=None if supersedes is None else f"fact-{supersedes:04d}",
    )


def _answers(project: Project) -> list[object]:
    out: list[object] = [project.active_count(TODAY)]
    for query in QUERIES:
        for ftype in (None, "decision"):
            hits = project.search(query, TODAY, type=ftype, limit=8, min_score=0)
            out.append([(h.fact.id, h.score, h.matches) for h in hits])
        out.append(project.term_idf(query_terms(query), TODAY))
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(new_fact(), max_size=12), st.lists(st.lists(change, min_size=1, max_size=4), min_size=1, max_size=4))
def test_index_after_changes_answers_as_a_full_scan(
    start: list[dict[str, object]], rounds: list[list[tuple[str, Any]]]
) -> None:
    base = Path(tempfile.mkdtemp(prefix="foundry-incremental-"))
    try:
        facts_dir = base / ".foundry/memory/facts"
        facts_dir.mkdir(parents=True)
        for spec in start:
            fact = _fact(spec)
            (facts_dir / f"{fact.id}.md").write_text(render_fact_text(fact))
        live = Project(base, use_cache=False)
        live.sync()
        live.use_search_index()
        try:
            for changes in rounds:
                for kind, arg in changes:
                    if kind in ("record", "disk"):
                        fact = _fact(arg)
                        path = facts_dir / f"{fact.id}.md"
                        path.write_text(render_fact_text(fact))
                        stamp = next(MTIMES)
                        os.utime(path, ns=(stamp, stamp))
                        if kind == "record":
                            with live.lock:
                                live.store.record_written(fact)
                    elif kind == "remove":
                        (facts_dir / f"fact-{arg:04d}.md").unlink(missing_ok=True)
                    else:
                        (facts_dir / f"fact-{arg:04d}.md").write_text("---\nid: [broken\n---\n")
                live.store.refresh()  # what sync() finds on disk, watcher or not
                fresh = Project(base, use_cache=False)
                fresh.sync()
                assert _answers(live) == _answers(fresh)
        finally:
            live.close()
    finally:
        shutil.rmtree(base, ignore_errors=True)


class _CountingIndex(SearchIndex):
    def __init__(self) -> None:
        super().__init__()
        self.added: list[str] = []

    def add(self, fact: Fact) -> None:
        self.added.append(fact.id)
        super().add(fact)


def test_a_write_re_indexes_only_the_fact_it_changed() -> None:
    facts = {
        f"fact-{n:04d}": Fact(id=f"fact-{n:04d}", type="domain", title="cache rules", body="redis")
        for n in range(1, 200)
    }
    index = _CountingIndex()
    index.sync(facts, 1)
    index.added.clear()
    new = Fact(id="fact-0200", type="domain", title="cache", body="memcached", supersedes="fact-0007")
    facts["fact-0200"] = new
    index.sync(facts, 2, ["fact-0200"])
    assert index.added == ["fact-0200"]
    active = index.active_bits(TODAY.isoformat())
    assert not active >> 7 & 1 and active >> 200 & 1 and active.bit_count() == 199  # fact-0007 retired
    assert [h.fact.id for h in index.top(["memcached"], active, 0, 5)] == ["fact-0200"]
    facts["fact-0200"] = Fact(id="fact-0200", type="domain", title="cache", body="memcached")  # supersedes dropped
    index.sync(facts, 3, ["fact-0200"])
    assert index.active_bits(TODAY.isoformat()).bit_count() == 200


def test_memory_search_after_writes_matches_a_fresh_process(tmp_path: Path) -> None:
    """Through memory_search, with the store's own journal: writes, a retirement and a fact
    changed behind the server's back."""
    facts_dir = tmp_path / ".foundry/memory/facts"
    facts_dir.mkdir(parents=True)
    for n in range(1, 60):
        fact = Fact(
            id=f"fact-{n:04d}",
            type=TYPES[n % len(TYPES)],
            title=f"cache rule {n}",
            body="redis cache token",
            created="2026-05-01",
        )
        (facts_dir / f"{fact.id}.md").write_text(render_fact_text(fact))
    live = Project(tmp_path, use_cache=False)
    live.sync()
    live.use_search_index()
    from foundry_tui.core.memory.model.request import WriteRequest
    from foundry_tui.core.memory.writing.write import memory_write

    memory_write(live, WriteRequest(title="Cache entries expire after an hour", body="redis ttl", type="domain"), TODAY)
    edited = Fact(
        id="fact-0003", type="domain", title="token rule", body="owner", created="2026-05-01", expires="2026-01-01"
    )
    (facts_dir / "fact-0003.md").write_text(render_fact_text(edited))
    stamp = next(MTIMES)
    os.utime(facts_dir / "fact-0003.md", ns=(stamp, stamp))
    for query in ("cache", "redis token", "token owner", "expire hour", "rule"):
        fresh = Project(tmp_path, use_cache=False)
        for ftype in (None, "decision"):
            live_text, live_hits = memory_search(live, query, TODAY, type=ftype, explain=True)
            fresh_text, fresh_hits = memory_search(fresh, query, TODAY, type=ftype, explain=True)
            assert live_text == fresh_text
            assert [(h.fact.id, h.score) for h in live_hits] == [(h.fact.id, h.score) for h in fresh_hits]
    assert live.search_index_ready()


def test_a_fact_naming_itself_in_supersedes_is_found_from_a_warm_cache(tmp_path: Path) -> None:
    """The store keeps a fact that names itself in `supersedes` active (doctor flags it);
    the search served from the parse cache's columns must agree, not drop it."""
    facts_dir = tmp_path / ".foundry/memory/facts"
    facts_dir.mkdir(parents=True)
    own = Fact(
        id="fact-0001",
        type="domain",
        title="Ledger rows are immutable",
        body="append only",
        created="2026-05-01",
        supersedes="fact-0001",
    )
    other = Fact(id="fact-0002", type="domain", title="Ledger exports run nightly", body="csv", created="2026-05-01")
    for fact in (own, other):
        (facts_dir / f"{fact.id}.md").write_text(render_fact_text(fact))
        stamp = next(MTIMES)  # old enough for the parse cache to trust the file's stat
        os.utime(facts_dir / f"{fact.id}.md", ns=(stamp, stamp))
    first = Project(tmp_path)
    first.sync()  # writes the parse cache
    first.close()
    warm = Project(tmp_path)  # served from the cache's columns until the facts are built
    scanned = Project(tmp_path, use_cache=False)
    warm.sync()
    assert warm.store.pending_snapshot is not None  # the search below is the cache's
    for project in (warm, scanned):
        project.sync()
        assert sorted(h.fact.id for h in project.search("ledger", TODAY, limit=8, min_score=0)) == [
            "fact-0001",
            "fact-0002",
        ]
        assert project.active_count(TODAY) == 2


# ---- the index's own upkeep: whatever the changes, exactly what a fresh build holds ----

DENSE_WORDS = ["service", "services", "deploy", "cache", "token", "redis", "Éclair", "x1y"]
TERMS = ["service", "ice", "deploy", "cache", "token", "redis", "éclair", "x1y", "cac", "absent"]
dense_text = st.lists(st.sampled_from(DENSE_WORDS), max_size=5).map(" ".join)


@st.composite
def dense_fact(draw: st.DrawFn) -> Fact:
    """A fact among at most 70 numbers sharing a few words: a word's facts outgrow the 16 an
    array holds (it becomes a bitset) and shrink again as facts are replaced and removed."""
    number = draw(st.integers(1, 70))
    supersedes = draw(st.one_of(st.none(), st.integers(1, 70)))
    return Fact(
        id=f"fact-{number:04d}",
        type=draw(st.sampled_from(TYPES)),
        title=draw(dense_text),
        body=draw(dense_text),
        tags=tuple(draw(st.lists(st.sampled_from(DENSE_WORDS), max_size=2, unique=True))),
        confidence=draw(st.sampled_from(["high", "medium", "low"])),
        expires=draw(st.sampled_from([None, "2026-11-29", "2027-01-01"])),
        supersedes=None if supersedes is None else f"fact-{supersedes:04d}",
    )


# One round of changes: facts set (new or replacing one), numbers removed, or every fact dropped;
# then the index syncs with the journal of changed ids or without it (a full pass).
index_round = st.tuples(
    st.lists(st.one_of(dense_fact(), st.integers(1, 70), st.just("clear")), max_size=25),
    st.booleans(),
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(dense_fact(), max_size=60), st.lists(index_round, min_size=1, max_size=5))
def test_index_kept_in_step_holds_what_a_fresh_build_holds(
    start: list[Fact], rounds: list[tuple[list[Any], bool]]
) -> None:
    facts = {f.id: f for f in start}
    live = SearchIndex()
    live.sync(dict(facts), 1)
    for generation, (changes, journal) in enumerate(rounds, 2):
        before = dict(facts)
        for change in changes:
            if change == "clear":
                facts.clear()
            elif isinstance(change, int):
                facts.pop(f"fact-{change:04d}", None)
            else:
                facts[change.id] = change
        changed = [i for i in before.keys() | facts.keys() if before.get(i) is not facts.get(i)] if journal else None
        live.sync(dict(facts), generation, changed)
        fresh = SearchIndex()
        fresh.sync(dict(facts), 1)
        assert len(live) == len(facts)
        for term in TERMS:
            assert live.term_bits(term) == fresh.term_bits(term), term
        assert live.active_bits(TODAY.isoformat()) == fresh.active_bits(TODAY.isoformat())
        assert live.active_bits(TODAY.isoformat(), "decision") == fresh.active_bits(TODAY.isoformat(), "decision")
        for query in ("service cache", "ice token x1y", "éclair deploy redis"):
            terms = query_terms(query)
            hits = live.top(terms, live.eligible_bits(facts), 0, 10)
            scanned = rank(match_facts(list(facts.values()), terms), 10, 0)
            assert [(h.fact.id, h.score, h.matches) for h in hits] == [(h.fact.id, h.score, h.matches) for h in scanned]


def test_the_index_leaves_no_lowercased_copy_on_the_facts() -> None:
    """The index holds every fact: a lowercased copy of each text kept on them would cost as
    much as the facts' bodies again (issue 13); only searches that scan keep one."""
    facts = {
        f"fact-{n:04d}": Fact(id=f"fact-{n:04d}", type="domain", title="Cache Rules", body="Redis")
        for n in range(1, 40)
    }
    index = SearchIndex()
    index.sync(facts, 1)
    assert all(f.search_text is None for f in facts.values())
    assert [h.fact.id for h in index.top(["redis"], index.eligible_bits(facts), 0, 2)] == ["fact-0039", "fact-0038"]
    index.sync({i: f for i, f in facts.items() if i != "fact-0039"}, 2, ["fact-0039"])
    assert [h.fact.id for h in index.top(["rules"], index.active_bits(TODAY.isoformat()), 0, 1)] == ["fact-0038"]


def test_a_posting_holds_fact_numbers_past_32_bits() -> None:
    """fact-4294967296 and up do not fit the 4-byte array a rare word's facts are kept in."""
    from foundry_tui.core.memory.search.word_index import Postings

    def members(table: Postings, word: str) -> list[int]:
        posting = table[word]
        assert not isinstance(posting, int)
        return list(posting)

    index = SearchIndex()
    table: Postings = {}
    index._put(table, "ledger", 7)
    index._put(table, "ledger", 2**32 + 5)
    index._put(table, "audit", 2**40)
    assert members(table, "ledger") == [7, 2**32 + 5] and members(table, "audit") == [2**40]
    index._take(table, "ledger", 7)
    assert members(table, "ledger") == [2**32 + 5]
    index._take(table, "audit", 2**40)
    assert "audit" not in table
