"""The spec ranker's persisted word postings (core/memory/search/word_postings.py, issue 33): a
search answered from them gives the scan's hits, scores and matches to the last bit, with every
ranker, and a stale, damaged, truncated or oversized file is refused and the scan answers."""

from __future__ import annotations

import marshal
import tempfile
import zlib
from array import array
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from foundry_tui.core.memory.model.facts import TYPES, Fact
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.search import word_postings
from foundry_tui.core.memory.search.spec import query_terms
from foundry_tui.core.memory.storage import cache
from foundry_tui.core.memory.storage.snapshot import Snapshot
from tests.core.memory.test_bm25_postings import TRICKY, _age, _demo_facts, _write_facts
from tests.helpers import TODAY
from tests.mcp.test_mcp_raw import INIT, RawServer, _call

# Words in words ("log" in "catalog"), digits, underscores, hyphens, case, accents, punctuation.
WORDS = [*TRICKY, "Catalogue", "LOG", "dog", "Dogs", "hotdog", "déjà", "DÉJÀ", "v2", "x2y", "a_b", "über", "ÜBER"]
word = st.one_of(st.sampled_from(WORDS), st.text(alphabet="abcdé1", min_size=1, max_size=5))
separator = st.sampled_from([" ", " ", "-", "/", "_", ", ", ". ", "!", "  ", "\n", "'"])


@st.composite
def texts(draw: st.DrawFn, max_words: int = 10) -> str:
    out = ""
    for w in draw(st.lists(word, max_size=max_words)):
        out += w + draw(separator)
    return out.strip() or "x"


@st.composite
def fact_lists(draw: st.DrawFn, min_size: int = 0) -> list[Fact]:
    facts = []
    for i in range(draw(st.integers(min_size, 14))):
        facts.append(
            Fact(
                id=f"fact-{i + 1:04d}",
                type=draw(st.sampled_from(TYPES)),
                title=draw(texts(5)),
                body=draw(texts()),
                tags=tuple(draw(st.lists(st.sampled_from(WORDS), max_size=3))),
                confidence=draw(st.sampled_from(["high", "medium", "low"])),
                created="2026-11-01",
                expires=draw(st.sampled_from([None, None, "2026-11-15"])),  # TODAY is past it: expired
                supersedes=draw(st.sampled_from([None, None, "fact-0001", "fact-0002"])) if i else None,
            )
        )
    return facts


queries = st.lists(st.one_of(word, st.sampled_from(["og", "atal", "ogs", "éj", "2f", "EPL"])), min_size=1, max_size=4)


def _found(hits: Sequence[object]) -> list[tuple[object, ...]]:
    return [(h.fact.id, h.score, tuple((m.term, m.title, m.tags, m.body) for m in h.matches)) for h in hits]  # type: ignore[attr-defined]


def _loaded(facts: list[Fact]) -> Snapshot:
    names = [f"{f.id}.md" for f in facts]
    built = Snapshot.build(names, [1, 2, 3] * len(names), {f"{f.id}.md": f for f in facts})
    loaded = Snapshot.loads(built.dumps("/root"), "/root")
    assert loaded is not None and loaded.identity == built.identity
    return loaded


@settings(max_examples=200, deadline=None)
@given(
    fact_lists(),
    queries,
    st.one_of(st.none(), st.sampled_from(TYPES)),
    st.sampled_from([0.0, 1.0, 3.0]),
    st.one_of(st.none(), st.integers(1, 20)),
)
def test_words_give_the_scans_sets_and_hits(
    facts: list[Fact], asked: list[str], ftype: str | None, min_score: float, limit: int | None
) -> None:
    """Every term's facts per field, every document frequency and every match (scores, order,
    which field each term matched), against a fresh snapshot scanned as today."""
    terms = query_terms(" ".join(asked))
    with tempfile.TemporaryDirectory() as folder:
        snapshot = _loaded(facts)
        fields = snapshot.fields
        assume(fields is not None)  # None: no facts, or text whose length changes when lowercased
        assert fields is not None and snapshot.identity is not None
        path = Path(folder) / "facts.words"
        word_postings.write(path, fields, snapshot.identity, len(snapshot))
        stored = word_postings.load(path, snapshot.identity, len(snapshot))
        assert stored is not None
        try:
            fast = snapshot.scan(TODAY.isoformat(), ftype)
            fast.words = stored.find
            fresh = _loaded(facts).scan(TODAY.isoformat(), ftype)  # never decoded: the bytes' scan
            for term in terms:
                assert stored.find(term) is not None
                assert fast._find_term(term) == fresh._find_term(term)
                assert fast.document_frequency(term) == fresh.document_frequency(term)
            assert _found(fast.match(terms, min_score, limit)) == _found(fresh.match(terms, min_score, limit))
        finally:
            stored.close()


# ---- through a Project: the parse cache on disk, every ranker ---------------------------------


def _words_path(root: Path) -> Path:
    snapshot = cache.cache_file(root)
    assert snapshot is not None
    return cache.words_file(snapshot)


def _search(project: Project, query: str, ranker: str) -> list[tuple[object, ...]]:
    project.sync()  # as memory_search does
    return _found(project.search(query, TODAY, limit=25, min_score=0.0, ranker=ranker))


def _answered_from_words(project: Project) -> bool:
    return project._words is not None and project._words[1] is not None


def _build(root: Path) -> None:
    """What a spec server does after its first answer: the word postings of its snapshot."""
    server = Project(root)
    server.sync()
    assert server.store.pending_snapshot is not None
    server.search("anything", TODAY)
    server.keep_words()
    server.postings_built()
    assert _words_path(root).exists()


RANKERS = ["spec", "bm25", "hybrid"]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(fact_lists(min_size=1), st.lists(queries.map(" ".join), min_size=1, max_size=3))
def test_a_project_answers_from_the_words_as_from_the_scan(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, facts: list[Fact], asked: list[str]
) -> None:
    monkeypatch.setenv("FOUNDRY_SEMANTIC", "off")  # hybrid without its model: bm25's lexical ranking
    root = tmp_path_factory.mktemp("project")
    _write_facts(root, facts)
    _age(root)
    Project(root).sync()  # a previous session left the parse cache
    _build(root)
    for ranker in RANKERS:
        for query in asked:
            fresh = Project(root)
            assert _search(fresh, query, ranker) == _search(Project(root, use_cache=False), query, ranker)
    fresh = Project(root)
    _search(fresh, asked[0], "spec")
    assert _answered_from_words(fresh) == (fresh.store.pending_snapshot is not None)


QUERIES = [
    "deploy database",
    "retries logging cache",
    "kubernetes db",
    "approval invoices billing",
    "migrations",
    "ing",
]


@pytest.fixture
def built(root: Path) -> Path:
    _write_facts(root, _demo_facts())
    _age(root)
    Project(root).sync()
    _build(root)
    return root


def _check_all(root: Path, answered: bool | None) -> None:
    fresh = Project(root)
    for ranker in RANKERS:
        for query in QUERIES:
            assert _search(fresh, query, ranker) == _search(Project(root, use_cache=False), query, ranker)
    if answered is not None:
        assert _answered_from_words(fresh) is answered


def test_a_fresh_process_answers_from_the_words(built: Path) -> None:
    _check_all(built, True)


def _flip(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x40
    path.write_bytes(bytes(data))


def _sections(path: Path) -> tuple[int, int, int, int]:
    """Where the vocabulary, the table and the data start, and the file's length."""
    data = path.read_bytes()
    head = len(b"foundry-words\n") + 8
    header_length = int.from_bytes(data[head - 8 : head - 4], "big")
    _key, _size, (_n, vocab, table, _data), _c1, _c2 = marshal.loads(data[head : head + header_length])
    base = head + header_length
    return base, base + vocab, base + vocab + table, len(data)


@pytest.mark.parametrize("where", ["magic", "header", "vocabulary", "table", "torn", "longer"])
def test_a_damaged_words_file_is_refused(built: Path, where: str) -> None:
    path = _words_path(built)
    vocab, table, _data, size = _sections(path)
    if where == "torn":
        path.write_bytes(path.read_bytes()[: size - 7])
    elif where == "longer":
        path.write_bytes(path.read_bytes() + b"\0" * 4)
    else:
        _flip(path, {"magic": 2, "header": 30, "vocabulary": vocab + 3, "table": table + 5}[where])
    _check_all(built, False)


def test_damaged_word_data_falls_back_to_the_scan(built: Path) -> None:
    """One byte flipped in every word's positions: each read fails its CRC, the scan answers."""
    path = _words_path(built)
    _vocab, table_at, data_at, size = _sections(path)
    raw = path.read_bytes()
    table = array("I", raw[table_at:data_at])
    data = bytearray(raw)
    for i in range(0, len(table) - 1, 6):
        if sum(table[i + 2 : i + 5]):
            data[data_at + table[i + 1]] ^= 0x01
    path.write_bytes(bytes(data))
    assert len(data) == size
    fresh = Project(built)
    fresh.sync()
    snapshot = fresh.store.pending_snapshot
    assert snapshot is not None and snapshot.identity is not None
    stored = word_postings.load(path, snapshot.identity, len(snapshot))
    assert stored is not None  # opened (header, vocabulary and table intact), each word refused
    assert stored.find("deploy") is None
    stored.close()
    _check_all(built, None)


Forge = Callable[[list[Any], bytearray, "array[int]", bytearray], None]


def _rewrite(path: Path, change: Forge) -> None:
    """Rewrite the file with valid checksums after `change(header_tuple, vocab, table, data)`."""
    raw = path.read_bytes()
    vocab_at, table_at, data_at, _size = _sections(path)
    head = len(b"foundry-words\n") + 8
    header = list(marshal.loads(raw[head:vocab_at]))
    vocab_part, table_part, data_part = (
        bytearray(raw[vocab_at:table_at]),
        array("I", raw[table_at:data_at]),
        bytearray(raw[data_at:]),
    )
    change(header, vocab_part, table_part, data_part)
    vocab, table, data = bytes(vocab_part), table_part.tobytes(), bytes(data_part)
    header[2] = (header[2][0], len(vocab), len(table), len(data))
    header[3], header[4] = zlib.crc32(vocab), zlib.crc32(table)
    blob = marshal.dumps(tuple(header))
    path.write_bytes(
        b"foundry-words\n"
        + len(blob).to_bytes(4, "big")
        + zlib.crc32(blob).to_bytes(4, "big")
        + blob
        + vocab
        + table
        + data
    )


def test_a_position_past_the_snapshots_facts_is_refused(built: Path) -> None:
    """A forged file, checksums right, naming fact 1,000,000 of a 60-fact snapshot: refused per word."""

    def forge(_header: list[Any], _vocab: bytearray, _table: array[int], data: bytearray) -> None:
        data[0:4] = (10**6).to_bytes(4, "little" if array("I", [1]).tobytes()[0] == 1 else "big")

    _rewrite(_words_path(built), forge)
    fresh = Project(built)
    fresh.sync()
    snapshot = fresh.store.pending_snapshot
    assert snapshot is not None and snapshot.identity is not None
    stored = word_postings.load(_words_path(built), snapshot.identity, len(snapshot))
    assert stored is not None
    first_word = stored._vocabulary.split("\n")[1]
    assert stored.find(first_word) is None
    stored.close()
    _check_all(built, None)


def test_a_table_past_the_vocabulary_is_refused(built: Path) -> None:
    """A forged table (checksums right) whose last start is not the vocabulary's end."""

    def forge(_header: list[Any], _vocab: bytearray, table: array[int], _data: bytearray) -> None:
        table[-1] += 1

    _rewrite(_words_path(built), forge)
    _check_all(built, False)


def test_more_words_than_the_bound_is_refused(built: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fresh = Project(built)
    fresh.sync()
    snapshot = fresh.store.pending_snapshot
    assert snapshot is not None and snapshot.identity is not None
    path = _words_path(built)
    stored = word_postings.load(path, snapshot.identity, len(snapshot))
    assert stored is not None
    words = len(stored._vocabulary.strip("\n").split("\n"))
    stored.close()
    assert word_postings.MAX_WORDS == 1 << 24
    monkeypatch.setattr(word_postings, "MAX_WORDS", words)
    at_bound = word_postings.load(path, snapshot.identity, len(snapshot))
    assert at_bound is not None
    at_bound.close()
    monkeypatch.setattr(word_postings, "MAX_WORDS", words - 1)
    assert word_postings.load(path, snapshot.identity, len(snapshot)) is None
    _check_all(built, False)


def test_a_file_over_the_size_bound_is_refused(built: Path) -> None:
    path = _words_path(built)
    fresh = Project(built)
    fresh.sync()
    snapshot = fresh.store.pending_snapshot
    assert snapshot is not None and snapshot.identity is not None
    size = path.stat().st_size
    assert word_postings.MAX_FILE_BYTES == 1 << 30
    at_bound = word_postings.load(path, snapshot.identity, len(snapshot), max_bytes=size)
    assert at_bound is not None
    at_bound.close()
    assert word_postings.load(path, snapshot.identity, len(snapshot), max_bytes=size - 1) is None


def test_a_term_in_too_many_words_is_scanned_for(built: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fresh = Project(built)
    fresh.sync()
    snapshot = fresh.store.pending_snapshot
    assert snapshot is not None and snapshot.identity is not None
    stored = word_postings.load(_words_path(built), snapshot.identity, len(snapshot))
    assert stored is not None
    assert stored.find("notes") is not None  # one word
    monkeypatch.setattr(word_postings, "MAX_WORDS_PER_TERM", 1)
    assert stored.find("notes") is not None  # one word still
    assert stored.find("ing") is None  # "logging", "billing": two words
    stored.close()
    _check_all(built, True)


def test_words_of_another_snapshot_never_answer(built: Path) -> None:
    path = _words_path(built)
    old = path.read_bytes()
    snapshot = cache.cache_file(built)
    assert snapshot is not None
    snapshot.unlink()
    Project(built).sync()  # the same facts, another snapshot (another identity)
    path.write_bytes(old)
    _check_all(built, False)


def test_the_spec_server_leaves_words_for_the_next_one(root: Path) -> None:
    _write_facts(root, _demo_facts())
    _age(root)
    Project(root).sync()  # a previous session left the parse cache
    answers = []
    for _ in range(2):
        srv = RawServer(root)
        srv.ask(INIT)
        answers.append(_call(srv, 2, "memory_search", {"query": "deploy database"}))
        code, _out = srv.close()
        assert code == 0
        assert _words_path(root).exists()
    assert answers[0]["result"] == answers[1]["result"]
    assert "fact-" in answers[0]["result"]["content"][0]["text"]


# ---- the snapshot's joined fields, checked when first read (issue 33) -------------------------


def _snapshot_sections(path: Path) -> dict[str, tuple[int, int]]:
    """Each section of the snapshot file: where it starts and its length."""
    data = path.read_bytes()
    magic = len(b"foundry-snapshot\n")
    header_length = int.from_bytes(data[magic : magic + 4], "big")
    _version, _root, _identity, sections = marshal.loads(data[magic + 8 : magic + 8 + header_length])
    at, places = magic + 8 + header_length, {}
    for name, length, _crc in sections:
        places[name] = (at, length)
        at += length
    return places


@pytest.mark.parametrize("section", ["title", "tags", "body", "starts", "body from the file"])
def test_a_damaged_joined_field_is_found_when_read_and_the_file_dropped(
    root: Path, section: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if section == "body from the file":  # past FILE_FIELD_FROM: checked in chunks, then searched in the file
        from foundry_tui.core.memory.storage import snapshot

        monkeypatch.setattr(snapshot, "FILE_FIELD_FROM", 0)
        section = "body"
    _write_facts(root, _demo_facts())
    _age(root)
    Project(root).sync()
    path = cache.cache_file(root)
    assert path is not None
    at, length = _snapshot_sections(path)[section]
    _flip(path, at + length // 2)
    project = Project(root)
    project.sync()
    assert project.store.pending_snapshot is not None  # loaded: the field is not checked yet
    for ranker in RANKERS:
        for query in QUERIES:
            assert _search(project, query, ranker) == _search(Project(root, use_cache=False), query, ranker)
    assert not path.exists()  # found damaged by the first search, dropped
    Project(root).sync()
    assert Snapshot.loads(path.read_bytes(), str(root)) is not None  # the next process writes it whole


def test_the_first_search_from_the_words_reads_no_joined_field(built: Path) -> None:
    """With the word postings, a damaged body field is never read (nor trusted): the answers are
    the scan's, and the file stays until a search needs the field."""
    path = cache.cache_file(built)
    assert path is not None
    at, length = _snapshot_sections(path)["body"]
    _flip(path, at + length // 2)
    project = Project(built)
    for query in QUERIES:
        assert _search(project, query, "spec") == _search(Project(built, use_cache=False), query, "spec")
    assert _answered_from_words(project)
    assert path.exists()


@pytest.mark.parametrize("change", ["torn", "longer"])
def test_a_snapshot_of_another_length_is_refused_at_load(root: Path, change: str) -> None:
    _write_facts(root, _demo_facts())
    _age(root)
    Project(root).sync()
    path = cache.cache_file(root)
    assert path is not None
    data = path.read_bytes()
    path.write_bytes(data[:-1] if change == "torn" else data + b"\0")
    assert Snapshot.loads(path.read_bytes(), str(root)) is None
    project = Project(root)
    project.sync()
    assert project.store.pending_snapshot is None  # re-parsed
    assert Snapshot.loads(path.read_bytes(), str(root)) is not None  # and written whole again
