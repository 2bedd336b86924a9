"""bm25's persisted postings (core/memory/search/postings.py): a search answered from them gives the
scan's hits, scores and counts to the last bit, and a stale or damaged file never answers."""

from __future__ import annotations

import hashlib
import json
import os
import string
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from foundry_tui.core.memory.model.facts import TYPES, Fact, render_fact_text
from foundry_tui.core.memory.model.request import WriteRequest
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.search import bm25, postings
from foundry_tui.core.memory.search.bm25 import bm25_search, query_words
from foundry_tui.core.memory.storage import cache
from foundry_tui.core.memory.storage.snapshot import Snapshot
from foundry_tui.core.memory.writing.write import memory_write
from tests.helpers import TODAY
from tests.mcp.test_mcp_raw import INIT, RawServer, _call

# Words where a whole-word scan and a tokenizer could disagree: stems the scan reaches only
# through a prefix ("flies" is "fly", found by words starting "fly"), groups of one meaning,
# words inside words, digits, underscores, hyphens and letters that lowercase.
TRICKY = [
    "flies",
    "fly",
    "tries",
    "try",
    "retries",
    "retry",
    "db",
    "database",
    "databases",
    "postgres",
    "postgresql",
    "deploy",
    "deploys",
    "deploying",
    "redeploy",
    "logging",
    "log",
    "logs",
    "catalog",
    "removed",
    "remove",
    "delete",
    "erase",
    "k8s",
    "kubernetes",
    "s3",
    "ci",
    "cd",
    "snake_case",
    "load-testing",
    "load",
    "testing",
    "approval",
    "approv",
    "naïve",
    "élan",
    "x2",
    "2fa",
    "ÉCOLE",
    "Deploy",
    "DB",
    "internally",
    "internal",
    "configs",
    "config",
    "prod",
    "production",
]
word = st.one_of(st.sampled_from(TRICKY), st.text(alphabet=string.ascii_lowercase[:4], min_size=1, max_size=5))
separator = st.sampled_from([" ", " ", " ", "-", "/", "_", ", ", ". ", "  ", "\n"])


@st.composite
def texts(draw: st.DrawFn, max_words: int = 12) -> str:
    words = draw(st.lists(word, max_size=max_words))
    out = ""
    for w in words:
        out += w + draw(separator)
    return out.strip() or "x"


@st.composite
def fact_lists(draw: st.DrawFn, min_size: int = 0) -> list[Fact]:
    facts = []
    for i in range(draw(st.integers(min_size, 12))):
        facts.append(
            Fact(
                id=f"fact-{i + 1:04d}",
                type=draw(st.sampled_from(TYPES)),
                title=draw(texts(6)),
                body=draw(texts()),
                tags=tuple(draw(st.lists(st.sampled_from(TRICKY), max_size=3))),
                confidence=draw(st.sampled_from(["high", "medium", "low"])),
                created="2026-11-01",
                expires=draw(st.sampled_from([None, None, "2026-11-15"])),
                supersedes=draw(st.sampled_from([None, None, "fact-0001"])) if i else None,
            )
        )
    return facts


queries = st.lists(word, min_size=1, max_size=4).map(" ".join)


def _snapshot(facts: list[Fact], folder: Path) -> tuple[Snapshot, Path]:
    """The snapshot of these facts as a process loads it (with its identity) and its postings file."""
    names = [f"{f.id}.md" for f in facts]
    built = Snapshot.build(names, [1, 2, 3] * len(names), {f"{f.id}.md": f for f in facts})
    data = built.dumps("/root")
    loaded = Snapshot.loads(data, "/root")
    assert loaded is not None and loaded.identity == built.identity
    path = folder / "facts.postings"
    fields = loaded.fields
    assume(fields is not None)  # None: no facts, or text whose length changes when lowercased (no scan fields)
    assert fields is not None
    postings.write(path, fields, built.identity or b"")
    return loaded, path


def _found(hits: Sequence[object]) -> list[tuple[object, ...]]:
    return [(h.fact.id, h.score, h.points, tuple((m.term, m.counts, m.weight) for m in h.matches)) for h in hits]  # type: ignore[attr-defined]


@settings(max_examples=150, deadline=None)
@given(
    fact_lists(),
    queries,
    st.one_of(st.none(), st.sampled_from(TYPES)),
    st.sampled_from([0.0, 0.5, 2.0]),
    st.one_of(st.none(), st.integers(1, 25)),
    st.sampled_from([(16, 16), (0, 0), (10**9, 0), (0, 10**9)]),
)
def test_postings_give_the_scans_counts_hits_and_scores(
    facts: list[Fact],
    query: str,
    ftype: str | None,
    min_score: float,
    limit: int | None,
    thresholds: tuple[int, int],
) -> None:
    """Every stem's counts per field, and every search's hits, scores, points and per-term
    counts and weights, on every scoring path (sparse, dense, pruned)."""
    words = query_words(query)
    stems = list(words)
    with tempfile.TemporaryDirectory() as folder:
        snapshot, path = _snapshot(facts, Path(folder))
        identity = snapshot.identity
        assert identity is not None
        stored = postings.load(path, identity)
        assert stored is not None
        scan = snapshot.scan(TODAY.isoformat())
        for term in stems:
            assert bm25._stem_counts(scan, term, stored) == bm25._occurrences(scan, (term,))
        original = bm25.DENSE_FROM, bm25.PRUNE_FROM
        bm25.DENSE_FROM, bm25.PRUNE_FROM = thresholds
        try:
            fast = bm25_search(snapshot.scan(TODAY.isoformat()), stems, min_score, limit, ftype, words, stored)
            fresh = Snapshot.loads(snapshot_bytes(facts), "/root")
            assert fresh is not None
            scanned = bm25_search(fresh.scan(TODAY.isoformat()), stems, min_score, limit, ftype, words)
        finally:
            bm25.DENSE_FROM, bm25.PRUNE_FROM = original
            stored.close()
        assert _found(fast) == _found(scanned)


def snapshot_bytes(facts: list[Fact]) -> bytes:
    names = [f"{f.id}.md" for f in facts]
    return Snapshot.build(names, [1, 2, 3] * len(names), {f"{f.id}.md": f for f in facts}).dumps("/root")


def test_tokenizer_is_pinned_to_its_version() -> None:
    """The postings are keyed to bm25.TOKENIZER_VERSION: a change to how words become stems
    must bump it (and then this pin), or old files would answer with the old stems."""
    sample = sorted(
        {
            *TRICKY,
            *(w for group in bm25.SAME_MEANING for w in group),
            *[
                "running",
                "runs",
                "ran",
                "stopped",
                "studies",
                "studying",
                "caches",
                "caching",
                "policies",
                "policy",
                "classes",
                "analysis",
                "status",
            ],
            *[
                "weekly",
                "monthly",
                "notation",
                "migrations",
                "migrated",
                "retrieval",
                "renewal",
                "buses",
                "boss",
                "focus",
                "thesis",
                "aliases",
            ],
        }
    )
    lines = [f"{w} {bm25.stem(w)} {','.join(bm25.prefixes(bm25.stem(w)))}" for w in sample if bm25.WORD_RE.fullmatch(w)]
    lines.append(bm25.WORD_RE.pattern)
    digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]
    assert (bm25.TOKENIZER_VERSION, digest) == (1, "dd640a5fb0935f72"), (
        "the tokenizer changed: bump TOKENIZER_VERSION, then this pin"
    )


# ---- through a Project: files on disk, the parse cache, writes and edits ---------------------


def _age(root: Path) -> None:
    """Fact files older than the snapshot's racy window, so the next process trusts their stats."""
    old = time.time() - 60
    for path in (root / ".foundry/memory/facts").iterdir():
        os.utime(path, (old, old))


def _write_facts(root: Path, facts: list[Fact]) -> None:
    folder = root / ".foundry/memory/facts"
    folder.mkdir(parents=True, exist_ok=True)
    for fact in facts:
        (folder / f"{fact.id}.md").write_text(render_fact_text(fact))


def _search(project: Project, query: str, limit: int = 25) -> list[tuple[object, ...]]:
    project.sync()  # as memory_search does
    return _found(project.search(query, TODAY, limit=limit, min_score=0.0, ranker="bm25"))


def _scanned(root: Path, query: str, limit: int = 25) -> list[tuple[object, ...]]:
    """Today's scan: no parse cache, so no snapshot and no postings."""
    return _search(Project(root, use_cache=False), query, limit)


def _postings_path(root: Path) -> Path:
    snapshot = cache.cache_file(root)
    assert snapshot is not None
    return cache.postings_file(snapshot)


def _build(root: Path) -> Project:
    """What a bm25 server does: load, search, then build the postings of its snapshot."""
    server = Project(root)
    server.sync()
    assert server.store.pending_snapshot is not None
    server.search("anything", TODAY, ranker="bm25")
    server.keep_postings()
    server.postings_built()
    assert _postings_path(root).exists()
    return server


def _answered_from_postings(project: Project) -> bool:
    return project._postings is not None and project._postings[1] is not None


def _listing(folder: Path) -> list[tuple[str, int, int, int]]:
    return sorted((p.name, p.stat().st_mtime_ns, p.stat().st_size, p.stat().st_ino) for p in folder.iterdir())


Operation = tuple[str, int, str]
operations = st.lists(
    st.tuples(st.sampled_from(["write", "edit", "remove"]), st.integers(0, 11), texts()),
    min_size=1,
    max_size=4,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(fact_lists(min_size=1), operations, st.lists(queries, max_size=2).map(lambda asked: ["database x", *asked]))
def test_after_writes_edits_and_removals_the_postings_never_answer_for_other_facts(
    tmp_path_factory: pytest.TempPathFactory, facts: list[Fact], ops: list[Operation], asked: list[str]
) -> None:
    root = tmp_path_factory.mktemp("project")
    _write_facts(root, facts)
    _age(root)
    Project(root).sync()  # a previous session left the parse cache
    server = _build(root)
    fresh = Project(root)
    for query in asked:
        assert _search(fresh, query) == _scanned(root, query)
    assert _answered_from_postings(fresh)

    folder = root / ".foundry/memory/facts"
    before = _listing(folder)
    for kind, index, text in ops:
        names = sorted(p.name for p in folder.iterdir())
        target = folder / names[index % len(names)] if names else None
        if kind == "write":  # through the core, as memory_write records it
            memory_write(
                server, WriteRequest(f"Written {' '.join(text.split())[:60]}", f"About {text}.", "convention"), TODAY
            )
        elif kind == "remove" and target is not None and len(names) > 1:
            target.unlink()
        elif target is not None:  # behind the server's back
            fact = Project(root, use_cache=False).store.facts.get(target.name[:-3])
            if fact is None:
                continue
            edited = Fact(fact.id, fact.type, fact.title, text, tags=fact.tags, created=fact.created)
            target.write_text(render_fact_text(edited))

    server.sync()
    later = Project(root)  # loads the old snapshot, finds the changes, writes a new one
    for query in asked:
        expected = _scanned(root, query)
        assert _search(server, query) == expected
        assert _search(later, query) == expected
    # Any change to the files: a new snapshot, which the old postings do not answer for. (Files
    # changed and changed back may still be answered for, by the snapshot of the same files.)
    if _listing(folder) != before:
        assert not _answered_from_postings(later)
    _age(root)
    Project(root).sync()
    clean = Project(root)  # the new snapshot, unchanged: its postings are not built yet
    for query in asked:
        assert _search(clean, query) == _scanned(root, query)
    assert not _answered_from_postings(clean)


def _demo_facts() -> list[Fact]:
    words = [
        "deploy",
        "database",
        "retries",
        "logging",
        "cache",
        "migration",
        "approval",
        "kubernetes",
        "billing",
        "invoices",
    ]
    return [
        Fact(
            f"fact-{n:04d}",
            TYPES[n % len(TYPES)],
            f"{words[n % 10].title()} notes {n}",
            f"We use {words[(n * 3) % 10]} and {words[(n * 7) % 10]} for the {words[n % 10]} work; db and k8s too.",
            tags=(words[(n * 5) % 10],),
            created="2026-11-01",
        )
        for n in range(1, 61)
    ]


QUERIES = ["deploy database", "retries logging cache", "kubernetes db", "approval invoices billing", "migrations"]


@pytest.fixture
def built(root: Path) -> Path:
    _write_facts(root, _demo_facts())
    _age(root)
    Project(root).sync()
    _build(root)
    return root


def _flip(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x40
    path.write_bytes(bytes(data))


def test_a_fresh_process_answers_from_the_postings(built: Path) -> None:
    fresh = Project(built)
    for query in QUERIES:
        assert _search(fresh, query) == _scanned(built, query)
    assert _answered_from_postings(fresh)


@pytest.mark.parametrize("where", ["header", "data", "end"])
def test_a_damaged_postings_file_never_answers(built: Path, where: str) -> None:
    path = _postings_path(built)
    size = path.stat().st_size
    if where == "end":
        path.write_bytes(path.read_bytes()[: size - 7])  # torn
    else:
        _flip(path, 30 if where == "header" else size - 5)
    fresh = Project(built)
    for query in QUERIES:
        assert _search(fresh, query) == _scanned(built, query)
    if where == "header":
        assert not _answered_from_postings(fresh)


def test_damaged_stem_data_falls_back_to_the_scan(built: Path) -> None:
    """Flip one byte in every stem's data: each stem's checksum fails and the scan answers."""
    path = _postings_path(built)
    fresh = Project(built)
    fresh.sync()
    snapshot = fresh.store.pending_snapshot
    assert snapshot is not None and snapshot.identity is not None
    stored = postings.load(path, snapshot.identity)
    assert stored is not None
    base, directory = stored._base, stored._directory
    stored.close()
    for offset, sizes, _crc in directory.values():
        if sum(sizes):
            _flip(path, base + offset)
    stored = postings.load(path, snapshot.identity)
    assert stored is not None
    assert all(stored.counts(term) is None for term, (_o, sizes, _c) in directory.items() if sum(sizes))
    stored.close()
    for query in QUERIES:
        assert _search(fresh, query) == _scanned(built, query)


def test_postings_of_another_snapshot_or_tokenizer_never_answer(built: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _postings_path(built)
    old = path.read_bytes()
    # Another snapshot of the same facts (say a process re-read one file and wrote it again).
    snapshot = cache.cache_file(built)
    assert snapshot is not None
    snapshot.unlink()
    Project(built).sync()
    path.write_bytes(old)  # the postings of the snapshot before
    fresh = Project(built)
    for query in QUERIES:
        assert _search(fresh, query) == _scanned(built, query)
    assert not _answered_from_postings(fresh)
    # A tokenizer other than the one that built them.
    _build(built)
    monkeypatch.setattr(bm25, "TOKENIZER_VERSION", bm25.TOKENIZER_VERSION + 1)
    fresh = Project(built)
    for query in QUERIES:
        assert _search(fresh, query) == _scanned(built, query)
    assert not _answered_from_postings(fresh)


def test_the_bm25_server_leaves_postings_for_the_next_one(root: Path) -> None:
    _write_facts(root, _demo_facts())
    _age(root)
    (root / ".foundry/config.json").write_text(json.dumps({"memoryRetrieval": {"ranker": "bm25"}}))
    Project(root).sync()  # a previous session left the parse cache
    answers = []
    for _ in range(2):
        srv = RawServer(root)
        srv.ask(INIT)
        answers.append(_call(srv, 2, "memory_search", {"query": "deploy database"}))
        code, _out = srv.close()
        assert code == 0
        assert _postings_path(root).exists()
    assert answers[0]["result"] == answers[1]["result"]
    assert "fact-" in answers[0]["result"]["content"][0]["text"]


def test_the_spec_server_builds_no_postings(root: Path) -> None:
    _write_facts(root, _demo_facts())
    _age(root)
    Project(root).sync()
    srv = RawServer(root)
    srv.ask(INIT)
    _call(srv, 2, "memory_search", {"query": "deploy database"})
    srv.close()
    assert not _postings_path(root).exists()
