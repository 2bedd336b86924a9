"""Stop words, the bm25 ranker and choosing a ranker, through the core, the CLI and a running MCP server."""

from __future__ import annotations

import json
import string
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from foundry_tui.core.memory.model.facts import TYPES, Fact
from foundry_tui.core.memory.model.fields import ScanFields
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.search import bm25
from foundry_tui.core.memory.search.bm25 import Bm25Hit, bm25_search, query_stems, stem
from foundry_tui.core.memory.search.reply import NO_TERMS_HINT, memory_search
from foundry_tui.core.memory.search.spec import query_terms, rank
from foundry_tui.core.memory.search.stopwords import QUESTION_WORDS, STOP_WORDS
from tests.helpers import TODAY, run_cli
from tests.mcp.test_mcp_raw import INIT, RawServer, _call

# The spec's reply exactly; the hint goes to the CLI's stderr and after an --explain reply (issue 28 item 21).
NO_TERMS_REPLY = 'No stored fact matches "which of the". Memory holds 13 active facts.'


def _use_ranker(root: Path, ranker: str) -> None:
    (root / ".foundry/config.json").write_text(json.dumps({"memoryRetrieval": {"ranker": ranker}}))


# ---- stop words -----------------------------------------------------------------------------


def test_stop_words_are_dropped_from_queries() -> None:
    assert query_terms("Which database do we use?") == ["database"]
    assert query_stems("Which database do we use?") == ["databas"]
    assert query_terms("please fix the typo in the README") == ["fix", "typo", "readme"]
    assert {"the", "which", "does", "use", "please", "should"} <= STOP_WORDS
    # never a word that names a subject a fact could be about
    assert not {"database", "test", "deploy", "api", "cache", "fix", "bug", "log", "go"} & STOP_WORDS
    assert not {"go", "sort", "test", "log"} & QUESTION_WORDS


@pytest.mark.parametrize("ranker", ["spec", "bm25"])
def test_glue_words_no_longer_inject_unrelated_facts(demo_root: Path, ranker: str) -> None:
    """The issue's examples: 'the' matched PostgreSQL's fact; 'use' matched 'user'."""
    demo = Project(demo_root)
    _text, hits = memory_search(demo, "please fix the typo in the README", TODAY, ranker=ranker)
    assert hits == []
    _text, hits = memory_search(demo, "which database do we use", TODAY, ranker=ranker)
    assert [h.fact.id for h in hits] == ["fact-0009"]


@pytest.mark.parametrize("ranker", ["spec", "bm25"])
def test_a_query_of_stop_words_only_gets_the_no_hit_reply_with_a_hint(demo: Project, ranker: str) -> None:
    text, hits = memory_search(demo, "which of the", TODAY, ranker=ranker)
    assert hits == [] and text == NO_TERMS_REPLY
    text, _hits = memory_search(demo, "which of the", TODAY, ranker=ranker, explain=True)
    assert text == NO_TERMS_REPLY + "\n" + NO_TERMS_HINT
    # with a real term and no hit, the spec's reply exactly, and no hint
    text, _hits = memory_search(demo, "kubernetes helm", TODAY, ranker=ranker)
    assert text == 'No stored fact matches "kubernetes helm". Memory holds 13 active facts.'


def test_stop_word_hint_through_the_cli_and_mcp(demo_root: Path) -> None:
    run = run_cli("memory", "search", "which of the", "--root", str(demo_root), "--today", "2026-11-30")
    assert run.code == 0 and run.out == NO_TERMS_REPLY + "\n" and run.err == NO_TERMS_HINT + "\n"
    srv = RawServer(demo_root)
    try:
        srv.ask(INIT)
        answer = _call(srv, 1, "memory_search", {"query": "which of the"})
        assert answer["result"]["content"][0]["text"] == NO_TERMS_REPLY
    finally:
        srv.close()


# ---- bm25 -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("deploys", "deploy"),
        ("deploying", "deploy"),
        ("deployed", "deploy"),
        ("retries", "retry"),
        ("retried", "retry"),
        ("caching", "cach"),
        ("cache", "cach"),
        ("caches", "cach"),
        ("migrations", "migrat"),
        ("migrate", "migrat"),
        ("logging", "log"),
        ("process", "process"),
        ("processes", "process"),
        ("status", "status"),
        ("s3", "s3"),
        ("api", "api"),
        ("internally", "intern"),
        ("approval", "approv"),
        ("approved", "approv"),
        ("removal", "delet"),
        ("signal", "signal"),
        ("weekly", "week"),
        ("early", "early"),
        # SAME_MEANING: an abbreviation and its word, a few plain synonyms
        ("removed", "delet"),
        ("deleting", "delet"),
        ("postgres", "postgr"),
        ("postgresql", "postgr"),
        ("k8s", "kubernet"),
        ("db", "databas"),
        ("repos", "repository"),
        ("linter", "lint"),
        ("prod", "production"),
        ("old", "old"),
    ],
)
def test_light_stemming(word: str, expected: str) -> None:
    assert stem(word) == expected


def test_same_meaning_groups_fold_to_their_first_word_and_never_overlap() -> None:
    firsts = [stem(group[0]) for group in bm25.SAME_MEANING]
    assert len(set(firsts)) == len(firsts)
    for group in bm25.SAME_MEANING:
        assert {stem(word) for word in group} == {stem(group[0])}, group
        assert not set(group) & (STOP_WORDS | QUESTION_WORDS)


def test_bm25_finds_a_fact_through_an_abbreviation_or_a_synonym_and_only_through_whole_words() -> None:
    facts = [
        Fact("fact-0001", "convention", "Delete stale feature flags", "Flags at 100% are deleted in two sprints."),
        Fact("fact-0002", "decision", "Deploys go through Argo CD", "Nobody applies manifests to the k8s cluster."),
        Fact("fact-0003", "domain", "The depot keeps removable pallets", "Production of the depot starts at six."),
    ]
    scan = ScanFields.of(facts)

    def found(query: str) -> list[str]:
        return [h.fact.id for h in rank(bm25_search(scan, query_stems(query), 0), 8, 0)]

    assert found("when are feature flags removed") == ["fact-0001"]
    assert found("obsolete flags") == ["fact-0001"]
    assert found("kubernetes cluster") == ["fact-0002"]
    # "removable" is not "remove", "depot" is not "deps"; "prod" is "production"
    assert found("removable") == ["fact-0003"] and found("deps") == [] and found("prod") == ["fact-0003"]
    hit = rank(bm25_search(scan, query_stems("k8s"), 0, labels=bm25.query_words("k8s")), 8, 0)[0]
    assert hit.matches[0].term == "k8s" and hit.matches[0].counts == (0, 0, 1)  # type: ignore[attr-defined]
    # each word counts once, though "postgresql" starts like "postgres" too
    both = ScanFields.of(
        [Fact("fact-0001", "decision", "Databases", "PostgreSQL, postgres and a DB, stale or obsolete.")]
    )
    hit = rank(bm25_search(both, query_stems("postgres database obsolete"), 0), 8, 0)[0]
    assert [m.counts for m in hit.matches][:3] == [(0, 0, 2), (1, 0, 1), (0, 0, 2)]  # type: ignore[attr-defined]


def test_bm25_drops_question_glue_and_the_spec_ranker_keeps_its_terms() -> None:
    assert query_stems("how long do customers have to ask for a refund") == ["customer", "refund"]
    assert query_terms("how long do customers have to ask for a refund") == ["long", "customers", "ask", "refund"]


def test_bm25_pairs_join_words_within_a_name_never_across_punctuation() -> None:
    facts = [
        Fact("fact-0001", "domain", "Support history", "Support explains a change to a customer. Refunds are kept."),
        Fact("fact-0002", "domain", "Customer refunds", "Customer-refund rules and customer_refund ids."),
    ]
    hits = rank(bm25_search(ScanFields.of(facts), query_stems("customer refund"), 0), 8, 0)
    pairs = {h.fact.id: [m for m in h.matches if " " in m.term] for h in hits}
    assert pairs["fact-0001"] == []  # ". " ends a sentence: no pair
    assert [(m.term, m.counts) for m in pairs["fact-0002"]] == [("customer refund", (1, 0, 2))]  # type: ignore[attr-defined]


def test_bm25_whole_words_fields_and_multipliers() -> None:
    facts = [
        Fact("fact-0001", "glossary", "User accounts", "A user signs in.", tags=("users",)),
        Fact("fact-0002", "decision", "Use PostgreSQL", "We use PostgreSQL for data.", confidence="high"),
        Fact("fact-0003", "domain", "Reports", "Monthly reports list every database table."),
        Fact("fact-0004", "domain", "Database of record", "The database is the source of truth."),
    ]
    scan = ScanFields.of(facts)
    # whole words: "use" is a stop word and "user" is not "use"; "data" is not "database"
    assert rank(bm25_search(scan, query_stems("which database do we use"), 0), 8, 0)[0].fact.id == "fact-0004"
    hits = rank(bm25_search(scan, query_stems("database"), 0), 8, 0)
    assert [h.fact.id for h in hits] == ["fact-0004", "fact-0003"]  # title beats body
    hit = hits[0]
    assert isinstance(hit, Bm25Hit) and hit.matches[0].counts == (1, 0, 1)  # type: ignore[attr-defined]
    high = rank(bm25_search(scan, query_stems("postgresql"), 0), 8, 0)[0]
    assert high.type_multiplier == 1.2 and high.confidence_multiplier == 1.15
    assert high.score == pytest.approx(high.points * 1.2 * 1.15)


def test_bm25_explain_and_json_through_the_cli(demo_root: Path) -> None:
    args = ("memory", "search", "run database migrations", "--root", str(demo_root), "--today", "2026-11-30")
    run = run_cli(*args, "--ranker", "bm25", "--explain")
    assert run.code == 0
    explains = [line for line in run.out.splitlines() if line.startswith("_score")]
    # "db/migrations" in the body counts as "database" (bm25.SAME_MEANING)
    assert explains[0].startswith(
        '_score 13.78 = bm25 9.98 ("run" body ×1 +0.77; "database" title ×1, tags ×1, body ×1 +5.05;'
    )
    assert explains[1].endswith("× 0.67 of the words × 1 risk × 1 confidence medium_")
    data = json.loads(run_cli(*args, "--ranker", "bm25", "--json").out)
    assert data["ranker"] == "bm25" and data["query"] == "run database migrations"
    # No floor for bm25 by default: the two that hold the words first, then the facts scoring under 1.
    assert [h["id"] for h in data["hits"]][:2] == ["fact-0009", "fact-0015"]
    assert len(data["hits"]) == 5 and all(h["score"] < 1 for h in data["hits"][2:])
    assert {"id", "type", "title", "confidence", "score", "points", "matches"} <= set(data["hits"][0])
    assert json.loads(run_cli(*args, "--json").out)["ranker"] == "spec"


def test_ranker_from_config_and_bad_values(demo_root: Path) -> None:
    args = ("memory", "search", "run database migrations", "--root", str(demo_root), "--today", "2026-11-30")
    assert len(json.loads(run_cli(*args, "--json").out)["hits"]) == 5  # spec: "run" alone scores
    _use_ranker(demo_root, "bm25")
    data = json.loads(run_cli(*args, "--json").out)
    # bm25 has no floor by default: the two that hold the words first, then those scoring under 1.
    assert data["ranker"] == "bm25" and [h["id"] for h in data["hits"]][:2] == ["fact-0009", "fact-0015"]
    assert len(data["hits"]) == 5 and all(h["score"] < 1 for h in data["hits"][2:])
    assert json.loads(run_cli(*args, "--json", "--ranker", "spec").out)["ranker"] == "spec"
    run = run_cli(*args, "--ranker", "lucene")
    assert run.code == 2 and "invalid choice: 'lucene'" in run.err
    _use_ranker(demo_root, "tfidf")
    run = run_cli(*args)
    assert run.code == 1
    assert (
        run.err
        == 'foundry: error: config.json: memoryRetrieval.ranker must be one of "spec", "bm25", "hybrid", not "tfidf"\n'
    )


def test_mcp_memory_search_uses_the_configured_ranker(demo_root: Path) -> None:
    _use_ranker(demo_root, "bm25")
    srv = RawServer(demo_root)
    try:
        srv.ask(INIT)
        text = _call(srv, 1, "memory_search", {"query": "run database migrations"})["result"]["content"][0]["text"]
        assert [line.split()[1] for line in text.splitlines() if line.startswith("### ")][:2] == [
            "fact-0009",
            "fact-0015",
        ]
    finally:
        srv.close()


def test_hook_uses_the_configured_ranker(demo_root: Path) -> None:
    event = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": "How do we run database migrations here?"})
    for ranker in ("spec", "bm25"):
        _use_ranker(demo_root, ranker)
        run = run_cli(
            "hook", "user-prompt-submit", "--root", str(demo_root), stdin=event, env={"FOUNDRY_TODAY": "2026-11-30"}
        )
        context = json.loads(run.out)["hookSpecificOutput"]["additionalContext"]
        assert context.split("### ")[1].startswith("fact-0009 ")


async def test_tui_breakdown_explains_bm25(demo_root: Path) -> None:
    """The TUI searches with the configured ranker and its score breakdown explains bm25."""
    from textual.widgets import Static

    from tests.tui_helpers import make_app, option_ids, select, settle

    _use_ranker(demo_root, "bm25")
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"snake json")
        await settle(pilot)
        assert option_ids(pilot, "#results") == ["fact-0007", "fact-0014"]
        await select(pilot, "fact-0014", "#results")
        assert str(app.screen.query_one("#detail-score", Static).render()) == (
            "score 6.89 = bm25 6.89 × 1.00 of the words\n"
            '  "snake" title ×1, body ×1 +3.44\n'
            '  "json" title ×1, body ×1 +3.44\n'
            "  × 1 (convention) × 1 (confidence medium)"
        )


# ---- properties ------------------------------------------------------------------------------

word = st.text(alphabet=string.ascii_lowercase[:5], min_size=2, max_size=6)
text = st.lists(word, max_size=10).map(" ".join)


@st.composite
def fact_lists(draw: st.DrawFn) -> list[Fact]:
    return [
        Fact(
            id=f"fact-{i + 1:04d}",
            type=draw(st.sampled_from(TYPES)),
            title=draw(text),
            body=draw(text),
            tags=tuple(draw(st.lists(word, max_size=3))),
            confidence=draw(st.sampled_from(["high", "medium", "low"])),
        )
        for i in range(draw(st.integers(0, 10)))
    ]


@settings(max_examples=100)
@given(fact_lists(), st.lists(word, min_size=1, max_size=4).map(" ".join), st.one_of(st.none(), st.sampled_from(TYPES)))
def test_bm25_hits_hold_a_query_word_and_a_type_filter_never_changes_a_score(
    facts: list[Fact], query: str, ftype: str | None
) -> None:
    scan = ScanFields.of(facts)
    stems = query_stems(query)
    hits = rank(bm25_search(scan, stems, 0), 25, 0)
    for hit in hits:
        words = {stem(w) for w in " ".join((hit.fact.title, *hit.fact.tags, hit.fact.body)).split()}
        assert words & set(stems)
        assert hit.score > 0
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    by_id = {h.fact.id: h.score for h in rank(bm25_search(ScanFields.of(facts), stems, 0), 25, 0)}
    for hit in rank(bm25_search(ScanFields.of(facts), stems, 0, type=ftype), 25, 0):
        assert (ftype is None or hit.fact.type == ftype) and by_id[hit.fact.id] == hit.score


@settings(max_examples=100)
@given(
    fact_lists(),
    st.lists(word, min_size=1, max_size=4).map(" ".join),
    st.one_of(st.none(), st.sampled_from(TYPES)),
    st.sampled_from([0.0, 0.5, 2.0]),
    st.integers(1, 25),
)
def test_bm25_dense_and_sparse_scoring_agree_to_the_last_bit(
    facts: list[Fact], query: str, ftype: str | None, min_score: float, limit: int
) -> None:
    """Queries matching many facts are scored over arrays, or walked by impact and stopped
    early when a limit is given; the result must be the per-hit loop's."""
    stems = query_stems(query)

    def run(dense_from: int, prune_from: int) -> list[tuple[str, float, float]]:
        original = bm25.DENSE_FROM, bm25.PRUNE_FROM
        bm25.DENSE_FROM, bm25.PRUNE_FROM = dense_from, prune_from
        try:
            hits = rank(bm25_search(ScanFields.of(facts), stems, min_score, limit, ftype), limit, min_score)
        finally:
            bm25.DENSE_FROM, bm25.PRUNE_FROM = original
        return [(h.fact.id, h.score, h.points) for h in hits]

    sparse = run(0, 0)
    assert run(10**9, 0) == sparse  # always dense
    assert run(0, 10**9) == sparse  # always pruned


def test_bm25_a_type_filtered_search_leaves_the_next_unfiltered_one_whole() -> None:
    """A long-lived scan keeps what a search derived (type ranks, weights): a search with a
    type filter must not narrow the next one without it, on any scoring path."""
    facts = [
        Fact(f"fact-{n:04d}", ("decision", "domain")[n % 2], f"Orders batch {n}", "Orders go through the batch job.")
        for n in range(1, 41)
    ]
    for prune_from in (0, 10**9):
        original = bm25.PRUNE_FROM
        bm25.PRUNE_FROM = prune_from
        try:
            scan = ScanFields.of(facts)
            typed = rank(bm25_search(scan, query_stems("orders batch"), 0, 5, "domain"), 5, 0)
            whole = rank(bm25_search(scan, query_stems("orders batch"), 0, 5), 5, 0)
        finally:
            bm25.PRUNE_FROM = original
        assert {h.fact.type for h in typed} == {"domain"}
        assert {h.fact.type for h in whole} == {"decision"}  # x1.2: every decision beats every domain fact


@settings(max_examples=100)
@given(fact_lists(), st.lists(word, min_size=2, max_size=4).map(" ".join))
def test_pairs_searched_fact_by_fact_or_whole_field_agree(facts: list[Fact], query: str) -> None:
    """Adjacent pairs are looked for only in facts holding both words when those are few."""
    stems = query_stems(query)

    def run(few: int) -> list[tuple[str, float, tuple[object, ...]]]:
        original = bm25.FEW_CANDIDATES
        bm25.FEW_CANDIDATES = few
        try:
            hits = rank(bm25_search(ScanFields.of(facts), stems, 0), 25, 0)
        finally:
            bm25.FEW_CANDIDATES = original
        return [(h.fact.id, h.score, tuple((m.term, m.counts) for m in h.matches)) for h in hits]  # type: ignore[attr-defined]

    assert run(0) == run(10**9)  # always fact by fact, always the whole field
