"""Retrieval: the spec's scoring, the term rules of ADR 0007, the reply texts, and the index."""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from foundry_tui.core.errors import InputError
from foundry_tui.core.memory.model.facts import TYPES, Fact
from foundry_tui.core.memory.model.hits import score_fact
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.search.reply import memory_search
from foundry_tui.core.memory.search.spec import match_facts, query_terms, rank
from foundry_tui.core.memory.search.word_index import SearchIndex
from tests.helpers import TODAY, write


def test_query_terms() -> None:
    assert query_terms("Postgres, postgres! DB a-b merge_join über 16") == ["postgres", "merge", "join", "über"]
    assert query_terms("to be or") == []


def _fact(**kw: object) -> Fact:
    base: dict[str, object] = {"id": "fact-0001", "type": "domain", "title": "", "body": "", "tags": ()}
    base.update(kw)
    return Fact(**base)  # type: ignore[arg-type]


def test_spec_weights_and_multipliers() -> None:
    fact = _fact(
        type="decision",
        confidence="high",
        title="PostgreSQL is the database",
        tags=("Postgres",),
        body="we use postgres",
    )
    hit = match_facts([fact], ["postgres"])[0]
    assert hit.points == 6
    assert hit.score == pytest.approx(6 * 1.2 * 1.15)
    assert (
        hit.explain()
        == '_score 8.28 = 6 ("postgres" title +3, tags +2, body +1) × 1.2 decision × 1.15 confidence high_'
    )
    low = _fact(type="glossary", confidence="low", body="postgres")
    assert match_facts([low], ["postgres"])[0].score == pytest.approx(0.8)
    # Each term counts once per field however often it occurs.
    assert match_facts([_fact(body="merge merge merge")], ["merge"])[0].points == 1


def test_order_score_then_type_then_newest() -> None:
    facts = [
        _fact(id="fact-0001", type="glossary", title="cache"),
        _fact(id="fact-0002", type="convention", title="cache"),
        _fact(id="fact-0003", type="convention", title="cache"),
        _fact(id="fact-0004", type="domain", title="cache", tags=("cache",)),
    ]
    ranked = rank(match_facts(facts, ["cache"]), 8, 1)
    assert [h.fact.id for h in ranked] == ["fact-0004", "fact-0003", "fact-0002", "fact-0001"]


def test_min_score_and_limit() -> None:
    facts = [_fact(id=f"fact-{n:04d}", confidence="low", body="redis") for n in range(1, 4)]
    assert rank(match_facts(facts, ["redis"]), 8, 1) == []  # 0.8 < minScore 1
    facts = [_fact(id=f"fact-{n:04d}", body="redis") for n in range(1, 12)]
    assert len(rank(match_facts(facts, ["redis"]), 8, 1)) == 8


def test_reply_blocks_and_no_hits(demo: Project) -> None:
    text, hits = memory_search(demo, "snake_case json", TODAY)
    assert [h.fact.id for h in hits] == ["fact-0007", "fact-0014"]
    blocks = text.split("\n\n")
    assert blocks[0] == (
        "### fact-0007 · convention · confidence high\n**API responses use snake_case JSON keys**\n"
        "Every public HTTP endpoint returns JSON objects whose keys are snake_case, e.g. `order_id`, `created_at`. "
        "The serializer layer converts from the camelCase of the internal models.\n_source: conversation · scope: project_"
    )
    text, hits = memory_search(demo, "kubernetes helm", TODAY)
    assert hits == [] and text == 'No stored fact matches "kubernetes helm". Memory holds 13 active facts.'


def test_inactive_facts_are_never_found(demo: Project) -> None:
    _text, hits = memory_search(demo, "mysql", TODAY)
    assert [h.fact.id for h in hits] == ["fact-0009"]  # fact-0002 (MySQL) is superseded
    _text, hits = memory_search(demo, "requests proxy", TODAY)
    assert "fact-0006" not in [h.fact.id for h in hits]  # it expired on 2026-06-30
    _text, hits = memory_search(demo, "requests proxy", TODAY.replace(month=6, day=30))
    assert hits[0].fact.id == "fact-0006"  # it expires on that day, so it is still active


def test_type_filter_limit_and_bad_values(demo: Project) -> None:
    _text, hits = memory_search(demo, "orders payments migrations", TODAY, type="risk")
    assert {h.fact.type for h in hits} == {"risk"}
    _text, hits = memory_search(demo, "the", TODAY, limit=2)
    assert len(hits) <= 2
    with pytest.raises(InputError, match="limit 26 is out of range: use a whole number from 1 to 25"):
        memory_search(demo, "x y z", TODAY, limit=26)
    with pytest.raises(InputError, match="unknown type 'fact'"):
        memory_search(demo, "x", TODAY, type="fact")
    with pytest.raises(InputError, match="query is empty"):
        memory_search(demo, "  ", TODAY)


def test_config_retrieval_defaults(project: Project) -> None:
    for n in range(5):
        write(project, f"Queue rule {n}", "Queue body.")
    project.layout.config_path.write_text('{"memoryRetrieval": {"maxFacts": 3, "minScore": 2}}')
    _text, hits = memory_search(project, "queue", TODAY)
    assert len(hits) == 3
    _text, hits = memory_search(project, "body", TODAY)
    assert hits == []  # body-only matches score 1 < minScore 2


def test_explain_lines_follow_each_block(demo: Project) -> None:
    text, _hits = memory_search(demo, "postgres", TODAY, explain=True)
    assert (
        text.splitlines()[-1]
        == '_score 8.28 = 6 ("postgres" title +3, tags +2, body +1) × 1.2 decision × 1.15 confidence high_'
    )


def test_index_sees_edits_in_a_long_lived_project(demo: Project) -> None:
    demo.sync()
    demo.use_search_index()
    _t, hits = memory_search(demo, "celery", TODAY)
    assert [h.fact.id for h in hits] == ["fact-0011"]
    path = demo.layout.facts_dir / "fact-0011.md"
    path.write_text(path.read_text().replace("Celery", "Dramatiq").replace("celery", "dramatiq"))
    _t, hits = memory_search(demo, "celery", TODAY)
    assert hits == []
    _t, hits = memory_search(demo, "dramatiq", TODAY)
    assert [h.fact.id for h in hits] == ["fact-0011"]


# ---- properties: the index answers exactly as a scan of every fact -----------------------

word = st.text(alphabet=string.ascii_lowercase[:6] + "É1", min_size=1, max_size=7)
text = st.lists(word, max_size=12).map(lambda ws: " ".join(ws))


@st.composite
def fact_sets(draw: st.DrawFn) -> list[Fact]:
    n = draw(st.integers(0, 12))
    return [
        Fact(
            id=f"fact-{i + 1:04d}",
            type=draw(st.sampled_from(TYPES)),
            title=draw(text),
            body=draw(text),
            tags=tuple(draw(st.lists(word, max_size=3))),
            confidence=draw(st.sampled_from(["high", "medium", "low"])),
        )
        for i in range(n)
    ]


@settings(max_examples=200, deadline=None)
@given(fact_sets(), st.lists(word, min_size=1, max_size=4).map(" ".join), st.floats(0, 5))
def test_index_search_equals_scan(facts: list[Fact], query: str, min_score: float) -> None:
    index = SearchIndex()
    index.sync({f.id: f for f in facts}, 1)
    terms = query_terms(query)
    scanned = rank(match_facts(facts, terms), 25, min_score)
    indexed = rank(match_facts({f.id: f for f in facts}, terms, index), 25, min_score)
    assert [(h.fact.id, h.score, h.matches) for h in indexed] == [(h.fact.id, h.score, h.matches) for h in scanned]


@given(fact_sets(), st.lists(word, min_size=1, max_size=4).map(" ".join))
def test_scores_are_bounded_and_ordered(facts: list[Fact], query: str) -> None:
    terms = query_terms(query)
    ranked = rank(match_facts(facts, terms), 25, 0)
    for hit in ranked:
        assert 0 < hit.points <= 6 * len(terms)
        assert hit.score == pytest.approx(hit.points * hit.type_multiplier * hit.confidence_multiplier)
    assert [h.score for h in ranked] == sorted((h.score for h in ranked), reverse=True)


@given(st.lists(word, max_size=6), st.lists(word, max_size=6))
def test_adding_a_tag_never_lowers_a_score(tags: list[str], query_words: list[str]) -> None:
    terms = query_terms(" ".join(query_words))
    before = match_facts([_fact(tags=tuple(tags))], terms)
    after = match_facts([_fact(tags=(*tags, "extra"))], terms)
    assert (after[0].score if after else 0) >= (before[0].score if before else 0)


def test_score_fact_rounds_away_float_noise() -> None:
    hit = score_fact(_fact(type="decision", confidence="low"), [])
    assert hit.score == 0


# ---- the bitset index: exactly the scan's hits, in the scan's order, for any term frequency ----

common_word = st.sampled_from(["service", "deploy", "cache", "token"])


@st.composite
def dense_fact_sets(draw: st.DrawFn) -> list[Fact]:
    """Up to 50 facts where a few words occur in about 40% of them, also inside longer words,
    so that their postings are bitsets (more than 16 facts) and not sets."""
    n = draw(st.integers(0, 50))
    numbers = draw(st.lists(st.integers(1, 400), min_size=n, max_size=n, unique=True))
    vocabulary = st.sampled_from(["service", "services", "deploy", "cache", "token", "tokens", "ab", "abé", "x1"])

    def field(max_words: int) -> str:
        return " ".join(draw(st.lists(vocabulary, max_size=max_words)))

    return [
        Fact(
            id=f"fact-{number:04d}",
            type=draw(st.sampled_from(TYPES)),
            title=field(5),
            body=field(12),
            tags=tuple(draw(st.lists(vocabulary, max_size=3))),
            confidence=draw(st.sampled_from(["high", "medium", "low"])),
        )
        for number in numbers
    ]


@settings(max_examples=150, deadline=None)
@given(
    dense_fact_sets(),
    st.lists(st.one_of(common_word, word, st.sampled_from(["ice", "vic", "ken"])), min_size=1, max_size=4).map(
        " ".join
    ),
    st.sampled_from([0.0, 0.8, 1.0, 2.0, 3.0, 4.5]),
    st.integers(1, 25),
    st.one_of(st.none(), st.sampled_from(TYPES)),
)
def test_bitset_index_top_equals_scan(
    facts: list[Fact], query: str, min_score: float, limit: int, ftype: str | None
) -> None:
    index = SearchIndex()
    by_id = {f.id: f for f in facts}
    index.sync(by_id, 1)
    terms = query_terms(query)
    wanted = [f for f in facts if ftype is None or f.type == ftype]
    scanned = rank(match_facts(wanted, terms), limit, min_score)
    top = index.top(terms, index.eligible_bits(by_id, ftype), min_score, limit)
    assert [(h.fact.id, h.score, h.matches) for h in top] == [(h.fact.id, h.score, h.matches) for h in scanned]


def test_bitset_index_follows_adds_and_removes() -> None:
    facts = {f"fact-{n:04d}": _fact(id=f"fact-{n:04d}", title="cache rules", body="redis") for n in range(1, 300)}
    index = SearchIndex()
    index.sync(facts, 1)  # "cache" and "redis" are bitsets from here on
    facts = {i: f for i, f in facts.items() if i != "fact-0005"}
    facts["fact-0300"] = _fact(id="fact-0300", title="cache", body="memcached")
    index.sync(facts, 2)
    top = index.top(["cache"], index.eligible_bits(facts), 0, 3)
    assert [h.fact.id for h in top] == ["fact-0300", "fact-0299", "fact-0298"]  # newest first among equals
    hits = index.top(["redis"], index.eligible_bits(facts), 0, 25)
    assert "fact-0005" not in [h.fact.id for h in hits] and len(hits) == 25
    assert [h.fact.id for h in index.top(["memcached"], index.eligible_bits(facts), 0, 25)] == ["fact-0300"]
