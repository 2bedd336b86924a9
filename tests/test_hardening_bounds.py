"""Bounds on what a query, a prompt or a JSON-RPC line may cost, the spec's no-hit text, and the
prompt hook's tag rule (issue 28, items 19 to 22)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.search.bm25 import query_words
from foundry_tui.core.memory.search.rankers import PROMPT_TAG_MAX_SHARE, tag_terms
from foundry_tui.core.memory.search.reply import MAX_QUOTED_QUERY_CHARS, NO_TERMS_HINT, memory_search, prompt_hits
from foundry_tui.core.memory.search.spec import MAX_QUERY_TERMS, query_terms
from foundry_tui.mcp.server import MAX_LINE_BYTES
from tests.core.memory.test_hook_relevance import _corpus_writer, _injected
from tests.mcp.test_mcp_raw import running_server

from .helpers import REPO, TODAY, run_cli, write

PROMPTS = json.loads((REPO / "benchmarks/data/hook_prompts.json").read_text())


def test_the_tag_prompt_sets_are_as_large_as_written() -> None:
    """Item 22's prompts: written and committed before the relevance rule changed, split by
    position into a tuning half and a held-out half."""
    for part in ("tags_tuning", "tags_heldout5"):
        assert len(PROMPTS[f"known_{part}"]) == 16
        assert len(PROMPTS[f"unknown_{part}"]) == 10


def _tagged_memory(project: Project) -> None:
    """A decision tagged postgres and migrations among facts about other things: the prompt's
    other words ("version", "target") are words this memory has never seen."""
    write(
        project,
        "PostgreSQL 16 is the only supported database",
        "Every service stores relational data in it.\n\n**Why:** one engine to run.\n\n**How to apply:** no MySQL.",
        type="decision",
        tags=["database", "postgres", "migrations"],
    )
    for n, subject in enumerate(("redis", "kafka", "celery", "sentry", "okta", "stripe", "vault", "argocd", "k6")):
        write(project, f"The {subject} cluster number {n} runs in eu-central-1", "A body.", tags=[subject, "infra"])


@pytest.mark.parametrize("ranker", ["spec", "bm25", "hybrid"])
def test_two_tags_of_one_fact_outweigh_words_the_memory_has_never_seen(project: Project, ranker: str) -> None:
    _tagged_memory(project)
    (project.root / ".foundry/config.json").write_text(json.dumps({"memoryRetrieval": {"ranker": ranker}}))
    hits = prompt_hits(project, "which postgres version do the migrations target?", TODAY, 5)
    assert [h.fact.title for h in hits] == ["PostgreSQL 16 is the only supported database"]


@pytest.mark.parametrize("ranker", ["spec", "bm25", "hybrid"])
def test_two_tags_that_most_facts_carry_name_no_subject(project: Project, ranker: str) -> None:
    """Tags in more than PROMPT_TAG_MAX_SHARE of the facts ("service", "file") do not count."""
    for n in range(8):
        write(project, f"Upload number {n} is kept for {n + 2} days", "A body.", tags=["service", "file"])
    write(project, "Kafka topics keep events for a week", "A body.", tags=["kafka"])
    (project.root / ".foundry/config.json").write_text(json.dumps({"memoryRetrieval": {"ranker": ranker}}))
    assert PROMPT_TAG_MAX_SHARE * 9 < 8
    assert prompt_hits(project, "why is the second service file skipped today", TODAY, 5) == []


def test_a_spec_tag_match_is_a_word_of_a_tag_not_a_substring(project: Project) -> None:
    """The spec ranker matches "fix" in the tag "fixtures": that is not a tag word of the prompt."""
    write(project, "Tests of the scheduler use fixtures", "A body.", tags=["fixtures", "tests"])
    write(project, "Kafka topics keep events for a week", "A body.", tags=["kafka"])
    hit = project.search("fix the failing assertion in test_parser.py", TODAY, min_score=0.0)[0]
    assert sorted(m.term for m in hit.matches if m.tags) == ["fix", "test"]
    assert tag_terms(hit) == ["test"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("tag-prompts")
    return root, _corpus_writer()(root, 1000)


# ranker -> (unknown prompts that inject nothing, known prompts whose fact comes first) of the
# held-out half, measured once after the rule was chosen (before it: 10 and 4 for spec, 10 and 5 for bm25)
TAG_FLOORS = {"spec": (10, 16), "bm25": (10, 16)}


@pytest.mark.parametrize("ranker", ["spec", "bm25"])
def test_the_held_out_tag_prompts_inject_their_fact_first(
    corpus: tuple[Path, dict[str, str]], ranker: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, ids = corpus
    monkeypatch.setenv("FOUNDRY_TODAY", "2026-11-30")
    (root / ".foundry/config.json").write_text(json.dumps({"memoryRetrieval": {"ranker": ranker}}))
    unknown, known = PROMPTS["unknown_tags_heldout5"], PROMPTS["known_tags_heldout5"]
    quiet = [p for p in unknown if not _injected(root, p)]
    first = [k["prompt"] for k in known if _injected(root, k["prompt"])[:1] == [ids[k["target"]]]]
    min_quiet, min_first = TAG_FLOORS[ranker]
    assert len(quiet) >= min_quiet, sorted(set(unknown) - set(quiet))
    assert len(first) >= min_first, sorted({k["prompt"] for k in known} - set(first))


LONG_QUERY = " ".join(f"topic{n}" for n in range(150_000))


def test_a_query_of_150000_words_uses_its_first_max_query_terms_distinct_terms() -> None:
    first = [f"topic{n}" for n in range(MAX_QUERY_TERMS)]
    terms, stems = query_terms(LONG_QUERY), list(query_words(LONG_QUERY))
    counts = (len(terms), len(stems))  # compared alone: a failure's message stays short
    assert counts == (MAX_QUERY_TERMS, MAX_QUERY_TERMS)
    assert terms == stems == first
    # repeats and stop words do not use up the cap
    assert query_terms("the kafka kafka of " * 1000 + "redis") == ["kafka", "redis"]


def test_every_labelled_question_and_prompt_is_under_the_cap() -> None:
    """Ordinary queries are searched with every term, exactly as before the cap."""
    questions = json.loads((REPO / "benchmarks/data/retrieval_questions.json").read_text())
    texts = [p if isinstance(p, str) else p["prompt"] for k, v in PROMPTS.items() if k != "about" for p in v]
    texts += [q["question"] for k, v in questions.items() if k != "about" for q in v]
    assert max(len(query_terms(t)) for t in texts) < MAX_QUERY_TERMS
    assert max(len(query_words(t)) for t in texts) < MAX_QUERY_TERMS


@pytest.mark.parametrize("ranker", ["spec", "bm25", "hybrid"])
def test_a_search_ignores_the_words_past_the_cap(project: Project, ranker: str) -> None:
    write(project, "Kafka topics keep events for a week", "A body.", tags=["kafka"])
    filler = " ".join(f"topic{n}" for n in range(MAX_QUERY_TERMS))
    assert [h.fact.id for h in project.search(f"kafka {filler}", TODAY, ranker=ranker, min_score=0.0)] == ["fact-0001"]
    assert project.search(f"{filler} kafka", TODAY, ranker=ranker, min_score=0.0) == []
    text, hits = memory_search(project, LONG_QUERY + " kafka", TODAY, ranker=ranker)
    assert hits == []
    assert text == f'No stored fact matches "{LONG_QUERY[:MAX_QUOTED_QUERY_CHARS]}…". Memory holds 1 active facts.'


def test_the_no_hit_reply_quotes_a_query_within_the_bound_exactly(project: Project) -> None:
    """Spec 002's text exactly, for a query of MAX_QUOTED_QUERY_CHARS characters; one more: cut, and "…"."""
    write(project, "Kafka topics keep events for a week", "A body.")
    query = ("helm chart " * 50)[:MAX_QUOTED_QUERY_CHARS]
    assert len(query) == MAX_QUOTED_QUERY_CHARS == 200
    text, _hits = memory_search(project, query, TODAY)
    assert text == f'No stored fact matches "{query}". Memory holds 1 active facts.'
    text, _hits = memory_search(project, query + "x", TODAY)
    assert text == f'No stored fact matches "{query}…". Memory holds 1 active facts.'


def test_the_no_terms_hint_is_never_in_the_reply_but_on_the_clis_stderr(demo_root: Path) -> None:
    reply = 'No stored fact matches "which of the". Memory holds 13 active facts.'
    run = run_cli("memory", "search", "which of the", "--root", str(demo_root), "--today", "2026-11-30")
    assert (run.code, run.out, run.err) == (0, reply + "\n", NO_TERMS_HINT + "\n")
    run = run_cli("memory", "search", "which of the", "--explain", "--root", str(demo_root), "--today", "2026-11-30")
    assert (run.code, run.out, run.err) == (0, f"{reply}\n{NO_TERMS_HINT}\n", "")


def _padded_ping(msg_id: int, size: int) -> bytes:
    """A ping request of exactly `size` bytes, padded by a long string parameter."""
    head, tail = b'{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"pad":"' % msg_id, b'"}}'
    return head + b"a" * (size - len(head) - len(tail)) + tail


def test_the_mcp_server_drops_a_line_over_its_limit_and_serves_the_next(demo_root: Path) -> None:
    """A real `foundry mcp`: a line of MAX_LINE_BYTES is answered; one byte more is refused
    with -32600 and id null (it was never parsed), and the next request is answered."""
    for srv in running_server(demo_root):
        srv.send(_padded_ping(2, MAX_LINE_BYTES))
        assert srv.receive(30) == {"jsonrpc": "2.0", "id": 2, "result": {}}
        srv.send(_padded_ping(3, MAX_LINE_BYTES + 1))
        assert srv.receive(30) == {
            "jsonrpc": "2.0",
            "id": None,
            "error": {
                "code": -32600,
                "message": f"Invalid Request: the line is over {MAX_LINE_BYTES} bytes, the most this server reads; "
                "it was dropped",
            },
        }
        assert srv.ask({"jsonrpc": "2.0", "id": 4, "method": "ping"}) == {"jsonrpc": "2.0", "id": 4, "result": {}}
        code, _rest = srv.close()
        assert code == 0
