"""The index-free scan (the first search after start, one-shot commands) finds a term's facts
fact by fact when they are few and with one C-level test per fact when they are many; both
ways, and the word index, give the same hits, scores and order."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from foundry_tui.core.memory.model import fields as search
from foundry_tui.core.memory.model.facts import TYPES, Fact
from foundry_tui.core.memory.model.fields import ScanFields
from foundry_tui.core.memory.search.spec import query_terms, rank
from foundry_tui.core.memory.search.word_index import SearchIndex
from foundry_tui.core.memory.storage.snapshot import FileField, Snapshot

VOCABULARY = ["service", "services", "deploy", "cache", "token", "tokens", "ab", "abé", "x1", "İstanbul"]


@st.composite
def facts(draw: st.DrawFn) -> list[Fact]:
    n = draw(st.integers(0, 60))
    numbers = draw(st.lists(st.integers(1, 300), min_size=n, max_size=n, unique=True))
    vocabulary = st.sampled_from(VOCABULARY)

    def field(most: int) -> str:
        return " ".join(draw(st.lists(vocabulary, max_size=most)))

    return [
        Fact(
            id=f"fact-{number:04d}",
            type=draw(st.sampled_from(TYPES)),
            title=field(4),
            body=field(10),
            tags=tuple(draw(st.lists(vocabulary, max_size=3))),
            confidence=draw(st.sampled_from(["high", "medium", "low"])),
        )
        for number in numbers
    ]


def _hits(scan: ScanFields, terms: list[str], min_score: float, limit: int) -> list[tuple[object, ...]]:
    return [
        (h.fact.id, h.score, h.points, h.matches) for h in rank(scan.match(terms, min_score, limit), limit, min_score)
    ]


@settings(max_examples=150, deadline=None)
@given(
    facts(),
    st.lists(
        st.sampled_from(["service", "deploy", "cache", "token", "vic", "ice", "x1", "abé"]), min_size=1, max_size=4
    ),
    st.sampled_from([0.0, 1.0, 2.5, 4.0]),
    st.integers(1, 12),
)
def test_sparse_dense_and_index_agree(facts: list[Fact], words: list[str], min_score: float, limit: int) -> None:
    terms = query_terms(" ".join(words))
    original, chunk = search.DENSE_SHARE, search.DENSE_CHUNK
    try:
        search.DENSE_SHARE = 10**9  # from the first hit on: one test per fact
        dense = _hits(ScanFields.of(facts), terms, min_score, limit)
        search.DENSE_CHUNK = 7  # the texts cut from the blobs 7 at a time: chunks end mid-field
        chunked = _hits(ScanFields.of(facts), terms, min_score, limit)
        split = ScanFields.of(facts)
        for field in range(3):  # each field split once beforehand (the hybrid ranker): chunks sliced from it
            split.field_texts(field)
        presplit = _hits(split, terms, min_score, limit)
        search.DENSE_SHARE = 1  # never (no more hits than facts)
        search_sparse = _hits(ScanFields.of(facts), terms, min_score, limit)
    finally:
        search.DENSE_SHARE, search.DENSE_CHUNK = original, chunk
    assert dense == chunked == presplit == search_sparse
    index = SearchIndex()
    by_id = {f.id: f for f in facts}
    index.sync(by_id, 1)
    if not index.clashes:
        top = index.top(terms, index.eligible_bits(by_id), min_score, limit)
        assert [(h.fact.id, h.score, h.points, h.matches) for h in top] == dense


def test_dense_chunks_cover_every_text_once() -> None:
    """A term in every fact, the texts cut from the blob 3 at a time: each fact found once,
    the last (short) chunk included, and no text straddling two chunks."""
    facts = [Fact(id=f"fact-{n:04d}", type="domain", title="t", body=f"deploy {n}") for n in range(1, 11)]
    original, chunk = search.DENSE_SHARE, search.DENSE_CHUNK
    try:
        search.DENSE_SHARE, search.DENSE_CHUNK = 10**9, 3
        scan = ScanFields.of(facts)
        assert scan.document_frequency("deploy") == 10
        assert scan.document_frequency("10") == 1
        assert scan.document_frequency("1") == 2  # "deploy 1" and "deploy 10"
        assert scan._texts == [None, None, None]  # nothing split whole
    finally:
        search.DENSE_SHARE, search.DENSE_CHUNK = original, chunk


def _accented_snapshot() -> tuple[list[Fact], bytes]:
    """40 facts whose fields hold 'é', '—' and 'ü' (their UTF-8 offsets differ from the text's),
    and their snapshot as written for the root /root."""
    bodies = ["café — deploy", "deploy", "naïve café", "über deploy café", "plain"] * 8
    facts = [
        Fact(id=f"fact-{n:04d}", type="domain", title=f"é{n} title", body=body, tags=("ünï", f"t{n}"))
        for n, body in enumerate(bodies, 1)
    ]
    names = [f"{f.id}.md" for f in facts]
    keys = [k for n in range(len(facts)) for k in (1, 100 + n, 1000 + n)]
    return facts, Snapshot.build(names, keys, dict(zip(names, facts, strict=True))).dumps("/root")


def test_a_loaded_snapshot_searches_its_utf8_bytes_as_the_text() -> None:
    """A snapshot read back from its file searches the fields' UTF-8 bytes (byte offsets
    differ from character offsets past 'é' and '—'), sparse and dense: the same hits,
    scores and order as the facts' own text; a ranker asking for the text then decodes it."""
    facts, data = _accented_snapshot()
    expected = {}
    original = search.DENSE_SHARE
    try:
        for share in (10**9, 1):  # dense from the first hit, then never dense
            search.DENSE_SHARE = share
            for words in ("café", "deploy café", "ünï", "é3", "über", "—", "naïve plain"):
                terms = query_terms(words)
                want = _hits(ScanFields.of(facts), terms, 0.0, 12)
                loaded = Snapshot.loads(data, "/root")
                assert loaded is not None
                scan = loaded.scan("2026-11-30")
                assert loaded.encoded_fields() is not None  # the bytes are what is searched
                got = _hits(scan, terms, 0.0, 12)
                assert got == want, words
                expected[words] = got
    finally:
        search.DENSE_SHARE = original
    assert len(expected["café"]) == 12 and len(expected["über"]) == 8  # 24 facts hold café (limit 12), 8 über
    loaded = Snapshot.loads(data, "/root")
    assert loaded is not None
    scan = loaded.scan("2026-11-30")
    assert loaded.encoded_fields() is not None  # the bytes, while nothing asked for the text
    assert _hits(scan, query_terms("café"), 0.0, 12) == expected["café"]
    fields = scan.fields  # the text, as bm25 reads it: decoded now, the bytes let go
    assert fields is not None and fields[2][0].startswith("café — deploy\0deploy\0")
    assert loaded.encoded_fields() is None
    assert _hits(scan, query_terms("deploy café"), 0.0, 12) == expected["deploy café"]


@settings(max_examples=200, deadline=None)
@given(
    st.binary(max_size=300),
    st.one_of(st.binary(min_size=1, max_size=6), st.sampled_from([b"ab", b"\0", b"abab"])),
    st.integers(0, 320),
    st.integers(1, 17),
    st.data(),
)
def test_a_file_field_finds_and_slices_as_its_bytes_do(
    data: bytes, needle: bytes, start: int, window: int, draw: st.DataObject
) -> None:
    """FileField reads the field a window at a time: every find (from any start, a match across
    a window's edge included) and every slice give what the bytes in memory give."""

    if draw.draw(st.booleans()) and data:  # a needle that occurs, often across an edge
        a = draw.draw(st.integers(0, len(data) - 1))
        needle = data[a : a + draw.draw(st.integers(1, 6))]
    with tempfile.TemporaryFile() as file:
        file.write(b"head" + data + b"tail")
        file.flush()
        field = FileField(file, 4, len(data), window=window)
        assert len(field) == len(data)
        pos, want = start, []
        while (found := data.find(needle, pos)) != -1:
            want.append(found)
            pos = found + 1
        pos, got = start, []
        while (found := field.find(needle, pos)) != -1:
            got.append(found)
            pos = found + 1
        assert got == want
        assert field.find(needle) == data.find(needle)
        b = draw.draw(st.integers(0, len(data)))
        assert field[start:b] == data[start:b]


def test_a_big_body_field_is_searched_from_the_snapshot_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past FILE_FIELD_FROM the body field stays in the file (a one-shot search at 100,000
    facts held its 70 MB): the same hits, scores and order, sparse and dense."""
    from foundry_tui.core.memory.storage import snapshot

    monkeypatch.setattr(snapshot, "FILE_FIELD_FROM", 0)
    monkeypatch.setattr(snapshot, "FILE_FIELD_WINDOW", 7)  # windows far shorter than a text
    facts, data = _accented_snapshot()
    path = tmp_path / "facts.snapshot"
    path.write_bytes(data)
    original = search.DENSE_SHARE
    try:
        for share in (10**9, 1):
            search.DENSE_SHARE = share
            with path.open("rb") as file:
                loaded = Snapshot.load(file, "/root")
                assert loaded is not None
                scan = loaded.scan("2026-11-30")
                encoded = loaded.encoded_fields()
                assert encoded is not None
                assert isinstance(encoded[2][0], snapshot.FileField)
                assert isinstance(encoded[0][0], bytes)  # the small fields are read whole
                for words in ("café", "deploy café", "über", "—", "naïve plain", "e — d"):
                    terms = query_terms(words)
                    assert _hits(scan, terms, 0.0, 12) == _hits(ScanFields.of(facts), terms, 0.0, 12), words
    finally:
        search.DENSE_SHARE = original
