"""The prompt hook over a generated memory of 1,000 realistic facts: quiet for prompts about
what the memory does not know, the right fact first for prompts about what it knows.

The prompts are benchmarks/data/hook_prompts.json (held-out set #3: the thresholds were chosen on
the other prompts and questions, see ADR 0025). The floors are the measured figures,
so that a change that makes the hook noisier or blinder fails here; they are not perfection:
task-style prompts ("Write the Kubernetes manifest for the new worker pod") share few
words with the fact they need, and lexical rankers miss some of them.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import cast

import pytest

from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.search.reply import prompt_hits
from foundry_tui.core.memory.search.spec import query_terms
from foundry_tui.hooks import user_prompt_submit
from tests.helpers import REPO, TODAY, write


def _corpus_writer() -> Callable[[Path, int], dict[str, str]]:
    """benchmarks/retrieval_corpus.py's write_corpus (the benchmarks are scripts, not a package)."""
    spec = importlib.util.spec_from_file_location("retrieval_corpus", REPO / "benchmarks" / "retrieval_corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return cast("Callable[[Path, int], dict[str, str]]", module.write_corpus)


PROMPTS = json.loads((REPO / "benchmarks/data/hook_prompts.json").read_text())
# ranker -> (unknown prompts that inject nothing, known prompts that inject their fact first), measured
FLOORS = {"spec": (40, 41), "bm25": (38, 47)}


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str]]]:
    root = tmp_path_factory.mktemp("hook-memory")
    ids = _corpus_writer()(root, 1000)
    yield root, ids


def _injected(root: Path, prompt: str) -> list[str]:
    answer = user_prompt_submit({"hook_event_name": "UserPromptSubmit", "prompt": prompt}, root)
    if answer is None:
        return []
    output = answer["hookSpecificOutput"]
    assert isinstance(output, dict)
    context = output["additionalContext"]
    assert isinstance(context, str)
    return [line.split()[1] for line in context.splitlines() if line.startswith("### fact-")]


@pytest.mark.parametrize("ranker", ["spec", "bm25"])
def test_prompt_hook_is_quiet_about_the_unknown_and_puts_the_known_fact_first(
    memory: tuple[Path, dict[str, str]], ranker: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, ids = memory
    monkeypatch.setenv("FOUNDRY_TODAY", "2026-11-30")
    (root / ".foundry/config.json").write_text(json.dumps({"memoryRetrieval": {"ranker": ranker}}))
    unknown, known = PROMPTS["unknown_heldout3"], PROMPTS["known_heldout3"]
    assert len(unknown) >= 35 and len(known) >= 40
    quiet = [p for p in unknown if not _injected(root, p)]
    first = [k for k in known if _injected(root, k["prompt"])[:1] == [ids[k["target"]]]]
    min_quiet, min_first = FLOORS[ranker]
    assert len(quiet) >= min_quiet, sorted(set(unknown) - set(quiet))
    assert len(first) >= min_first
    # every injection is at most 5 facts, whatever the prompt
    assert all(len(_injected(root, k["prompt"])) <= 5 for k in known[:5])


def test_spec_hook_keeps_out_a_fact_holding_only_the_prompts_common_words(project: Project) -> None:
    """The spec ranker's relevance is the share of the prompt's rarity (idf) a fact holds: eight
    facts about services score +3 each for "service", but a prompt whose other words the memory
    has never seen is about something else; a fact that also holds the rare word is injected."""
    for n in range(8):
        write(project, f"The service number {n} answers health checks", f"Service {n} body.")
    write(project, "The billing service stores invoices in PostgreSQL", "PostgreSQL 16 on the managed cluster.")
    assert prompt_hits(project, "restart the flaky service after lunch", TODAY, 5) == []
    hits = prompt_hits(project, "restart postgresql for the billing service", TODAY, 5)
    assert [h.fact.title for h in hits] == ["The billing service stores invoices in PostgreSQL"]


def test_term_idf_is_the_same_with_and_without_the_word_index(project: Project) -> None:
    write(project, "The service keeps invoices in PostgreSQL", "A body about postgres.")
    write(project, "The service answers within 300 ms", "Another body.")
    write(project, "Old fact", "Retired.", expires="2026-01-01")
    terms = query_terms("postgres service invoices kafka")
    scanned = project.term_idf(terms, TODAY)
    project.use_search_index()
    assert project.term_idf(terms, TODAY) == scanned
    assert scanned["kafka"] > scanned["invoices"] > scanned["service"]  # df 0, 1, 2 of 2 active facts


def test_the_evaluation_sets_are_disjoint_and_name_real_targets() -> None:
    """Held-out sets #3 and #4 (ADR 0024) share no question or prompt with each other
    or the tuning sets, are as large as their rounds promised, and every target is a fact of
    the corpus."""
    spec = importlib.util.spec_from_file_location("retrieval_targets", REPO / "benchmarks" / "retrieval_targets.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    keys = {target[0] for target in module.TARGETS}
    questions = json.loads((REPO / "benchmarks/data/retrieval_questions.json").read_text())
    parts = ("tuning", "tuning2", "heldout3", "heldout4", "heldout6")
    assert set(questions) == {"about", *parts}
    assert len(questions["heldout3"]) >= 100 and len(questions["heldout4"]) >= 100
    texts = [q["question"].lower() for part in parts for q in questions[part]]
    assert len(texts) == len(set(texts))
    assert all(set(q["targets"]) <= keys for part in parts for q in questions[part])
    assert len(PROMPTS["unknown_heldout3"]) >= 35 and len(PROMPTS["known_heldout3"]) >= 40
    prompts = [
        (p if isinstance(p, str) else p["prompt"]).lower()
        for name, part in PROMPTS.items()
        if name != "about"
        for p in part
    ]
    assert len(prompts) == len(set(prompts))
    assert all(k["target"] in keys for name in PROMPTS if name.startswith("known_") for k in PROMPTS[name])
