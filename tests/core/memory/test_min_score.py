"""memoryRetrieval.minScore per ranker: left out of config.json, each ranker's own default
(spec 1, bm25 none); set, it applies to whichever ranker searches (ADR 0027)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from foundry_tui.core.config import Config, parse_config, profile_config
from foundry_tui.core.memory.model.facts import Fact, render_fact_text
from foundry_tui.core.memory.model.hits import Hit
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.search.rankers import DEFAULT_MIN_SCORES, min_score_for
from tests.helpers import TODAY, run_cli

# Every fact holds "error": its idf, and so every bm25 score, is far below 1.
FACTS = [
    Fact(
        f"fact-{n:04d}",
        "convention",
        f"Service {name} notes",
        f"Any error of the {name} service is reported to the tracker.",
        created="2026-11-01",
        confidence="low" if n == 1 else "medium",
    )
    for n, name in enumerate(["billing", "search", "uploads", "exports", "payments", "auth", "mail", "ledger"], 1)
]


@pytest.fixture
def memory(root: Path) -> Path:
    for fact in FACTS:
        (root / ".foundry/memory/facts" / f"{fact.id}.md").write_text(render_fact_text(fact))
    return root


def _config(root: Path, retrieval: dict[str, object]) -> None:
    (root / ".foundry/config.json").write_text(json.dumps({"memoryRetrieval": retrieval}))


def _ids(root: Path, query: str, ranker: str) -> list[str]:
    project = Project(root)
    project.sync()
    return [h.fact.id for h in project.search(query, TODAY, ranker=ranker)]


def test_defaults_per_ranker_and_an_explicit_value_for_both() -> None:
    assert DEFAULT_MIN_SCORES == {"spec": 1.0, "bm25": 0.0, "hybrid": 0.0}
    assert [min_score_for(Config(), r) for r in ("spec", "bm25")] == [1.0, 0.0]
    explicit = parse_config({"memoryRetrieval": {"minScore": 1}})
    assert [min_score_for(explicit, r) for r in ("spec", "bm25")] == [1.0, 1.0]
    assert [min_score_for(parse_config({"memoryRetrieval": {"minScore": 0}}), r) for r in ("spec", "bm25")] == [0, 0]
    assert min_score_for(parse_config({"memoryRetrieval": {"maxFacts": 3}}), "bm25") == 0.0
    retrieval = profile_config("standard")["memoryRetrieval"]
    assert isinstance(retrieval, dict) and "minScore" not in retrieval


def test_bm25_answers_a_question_whose_words_every_fact_holds(memory: Path) -> None:
    project = Project(memory)
    project.sync()
    hits = project.search("which error tracker do we use", TODAY, ranker="bm25")
    assert len(hits) == 8 and all(0 < h.score < 1 for h in hits)
    assert hits[-1].fact.id == "fact-0001"  # low confidence: x 0.8, last


def test_an_explicit_min_score_filters_bm25_as_documented(memory: Path) -> None:
    _config(memory, {"minScore": 1})
    assert _ids(memory, "which error tracker do we use", "bm25") == []
    _config(memory, {"minScore": 0})
    scores = {h.fact.id: h.score for h in _hits(memory)}
    assert len(scores) == 8
    cut = sorted(scores.values())[4]
    _config(memory, {"minScore": cut})
    assert {h.fact.id for h in _hits(memory)} == {fid for fid, score in scores.items() if score >= cut}


def _hits(root: Path) -> list[Hit]:
    project = Project(root)
    project.sync()
    return list(project.search("which error tracker do we use", TODAY, ranker="bm25"))


def test_the_spec_ranker_keeps_the_specs_default_of_1(memory: Path) -> None:
    # "error" and "tracker" in the body: +1 +1, x 1.0 (medium) or x 0.8 (low): all above 1.
    assert len(_ids(memory, "error tracker", "spec")) == 8
    # One body match: 1.0, kept; the low-confidence fact scores 0.8 < 1, dropped.
    hits = _ids(memory, "tracker", "spec")
    assert "fact-0001" not in hits and len(hits) == 7
    _config(memory, {"minScore": 0})
    assert "fact-0001" in _ids(memory, "tracker", "spec")


def test_through_the_cli_and_init(memory: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    args = ("memory", "search", "which error tracker do we use", "--root", str(memory), "--today", "2026-11-30")
    found = run_cli(*args, "--ranker", "bm25", "--json")
    assert found.code == 0, found.err
    assert len(json.loads(found.out)["hits"]) == 8
    _config(memory, {"minScore": 1})
    empty = run_cli(*args, "--ranker", "bm25", "--json")
    assert empty.code == 0 and json.loads(empty.out)["hits"] == []
    fresh = tmp_path_factory.mktemp("fresh")
    init = run_cli(
        "init", "--root", str(fresh), env={"FOUNDRY_SEMANTIC": "0"}
    )  # with the model: tests/core/memory/test_semantic.py
    assert init.code == 0, init.err
    assert json.loads((fresh / ".foundry/config.json").read_text())["memoryRetrieval"] == {"maxFacts": 8}
