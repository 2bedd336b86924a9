"""The index-free scan (the first search after start, one-shot commands) finds a term's facts
fact by fact when they are few and with one C-level test per fact when they are many; both
ways, and the word index, give the same hits, scores and order."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from foundry_tui.core.memory.model import fields as search
from foundry_tui.core.memory.model.facts import TYPES, Fact
from foundry_tui.core.memory.model.fields import ScanFields
from foundry_tui.core.memory.search.spec import query_terms, rank
from foundry_tui.core.memory.search.word_index import SearchIndex

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
    original = search.DENSE_SHARE
    try:
        search.DENSE_SHARE = 10**9  # from the first hit on: one test per fact
        dense = _hits(ScanFields.of(facts), terms, min_score, limit)
        search.DENSE_SHARE = 1  # never (no more hits than facts)
        search_sparse = _hits(ScanFields.of(facts), terms, min_score, limit)
    finally:
        search.DENSE_SHARE = original
    assert dense == search_sparse
    index = SearchIndex()
    by_id = {f.id: f for f in facts}
    index.sync(by_id, 1)
    if not index.clashes:
        top = index.top(terms, index.eligible_bits(by_id), min_score, limit)
        assert [(h.fact.id, h.score, h.points, h.matches) for h in top] == dense
