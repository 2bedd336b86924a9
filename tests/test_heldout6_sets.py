"""Issue 29's held-out sets ("heldout6"): written and committed before any scorer changed, never
scored while writing. These tests keep their shape and counts, so that a later edit cannot
silently shrink or break them, and keep the benchmarks able to ask for them by name. They score
nothing: no ranker, search, hook or detector runs here."""

from __future__ import annotations

import importlib.util
import json
import sys
from types import ModuleType

import pytest

from tests.data.labelled_pairs import read_labelled
from tests.data.shared_words import content_stems, fact_text, shared_words, stem
from tests.helpers import REPO

NAME = "heldout6"
QUESTIONS = json.loads((REPO / "benchmarks/data/retrieval_questions.json").read_text(encoding="utf-8"))
PROMPTS = json.loads((REPO / "benchmarks/data/hook_prompts.json").read_text(encoding="utf-8"))
NEARDUP = REPO / "tests" / "data" / f"neardup_{NAME}.json"
CONFLICTS = REPO / "tests" / "data" / f"conflicts_{NAME}.json"
FACT_TYPES = {"decision", "convention", "constraint", "domain", "risk", "metric", "glossary"}


def _script(name: str) -> ModuleType:
    """benchmarks/NAME.py, loaded as a module (the benchmarks are scripts, not a package)."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def targets() -> dict[str, str]:
    """Target key -> the text of its fact (title, tags, body)."""
    module = _script("retrieval_targets")
    return {key: fact_text(title, tags, body) for key, _type, _conf, title, tags, body in module.TARGETS}


def test_the_stem_comparison_is_eager() -> None:
    assert [stem(w) for w in ("configuration", "retries", "payments", "customer's", "pages", "boxes", "bus")] == [
        "configur",
        "retry",
        "pay",
        "custom",
        "page",
        "box",
        "bus",
    ]
    assert content_stems("Can I use the new tenant_id column?") == {"tenant", "id", "column"}
    assert shared_words("how do I configure it?", "Configuration lives in the repo") == ["configure"]
    assert shared_words("which pages are slow?", "A page of 200 orders") == ["page"]
    assert shared_words("where do rows persist?", "PostgreSQL stores relational data") == []


def test_the_questions_are_as_many_as_written_and_name_real_targets(targets: dict[str, str]) -> None:
    questions = QUESTIONS[NAME]
    assert len(questions) == 174
    assert all(set(q) == {"question", "targets", "shares_word"} for q in questions)
    assert all(len(q["targets"]) == 1 and q["targets"][0] in targets for q in questions)
    assert {q["targets"][0] for q in questions} == set(targets)  # every one of the 87 targets, twice
    texts = [q["question"].lower() for q in questions]
    others = {q["question"].lower() for part, qs in QUESTIONS.items() if part not in ("about", NAME) for q in qs}
    assert len(set(texts)) == len(texts) and not set(texts) & others


def test_the_shares_word_flags_are_exact_and_most_questions_share_no_word(targets: dict[str, str]) -> None:
    questions = QUESTIONS[NAME]
    for q in questions:
        words = shared_words(q["question"], targets[q["targets"][0]])
        assert q["shares_word"] is bool(words), (q["question"], words)
    free = [q for q in questions if not q["shares_word"]]
    assert len(free) == 93 and 2 * len(free) >= len(questions)


def test_the_hook_prompts_are_as_many_as_written(targets: dict[str, str]) -> None:
    known, unknown = PROMPTS[f"known_{NAME}"], PROMPTS[f"unknown_{NAME}"]
    assert (len(known), len(unknown)) == (50, 50)
    assert all(set(k) == {"prompt", "target"} and k["target"] in targets for k in known)
    assert len({k["target"] for k in known}) == 50  # fifty different facts
    assert all(isinstance(p, str) for p in unknown)
    texts = [k["prompt"].lower() for k in known] + [p.lower() for p in unknown]
    others = {
        (p if isinstance(p, str) else p["prompt"]).lower()
        for part, ps in PROMPTS.items()
        if part not in ("about", f"known_{NAME}", f"unknown_{NAME}")
        for p in ps
    }
    assert len(set(texts)) == 100 and not set(texts) & others
    assert min(len(t) for t in texts) > 12  # the hook ignores prompts of 12 characters or fewer


def _sides_are_facts(pairs: list[dict[str, object]]) -> None:
    for pair in pairs:
        assert pair["split"] == "heldout"
        for side in (pair["a"], pair["b"]):
            assert isinstance(side, dict) and set(side) == {"type", "title", "body"}
            assert side["type"] in FACT_TYPES and side["title"].strip() and isinstance(side["body"], str)
        assert pair["a"] != pair["b"]


def test_the_near_duplicate_pairs_are_as_many_as_written() -> None:
    pairs = json.loads(NEARDUP.read_text(encoding="utf-8"))["pairs"]
    labels = [p["label"] for p in pairs]
    assert (labels.count("duplicate"), labels.count("hard_negative"), len(labels)) == (40, 40, 80)
    _sides_are_facts(pairs)
    facts, read = read_labelled(NEARDUP)
    assert (len(facts), len(read)) == (160, 80)
    assert read[0][:2] == ("fact-0001", "fact-0002") and read[-1][:2] == ("fact-0159", "fact-0160")


def test_the_contradiction_pairs_are_as_many_as_written_two_thirds_reworded() -> None:
    pairs = json.loads(CONFLICTS.read_text(encoding="utf-8"))["pairs"]
    contradictions = [p for p in pairs if p["label"] == "contradiction"]
    assert (len(contradictions), len(pairs)) == (35, 70)
    assert {p["label"] for p in pairs} == {"contradiction", "compatible"}
    _sides_are_facts(pairs)
    wordings = [p["wording"] for p in contradictions]
    assert set(wordings) == {"reworded", "close"}
    assert wordings.count("reworded") == 24 and 3 * wordings.count("reworded") >= 2 * len(contradictions)
    assert not any("wording" in p for p in pairs if p["label"] == "compatible")


def test_the_benchmarks_can_ask_for_the_sets_by_name() -> None:
    """The readers the benchmarks use, on the named set (nothing is scored)."""
    neardup, conflicts = _script("bench_neardup"), _script("bench_conflicts")
    assert neardup.named_set(NAME) == NEARDUP and conflicts.named_set(NAME) == CONFLICTS
    facts, pairs = neardup.labelled(None, neardup.named_set(NAME))
    assert (len(facts), len(pairs)) == (160, 80)
    read = conflicts.labelled(None, conflicts.named_set(NAME))
    assert len(read) == 70 and sum(truth for _a, _b, truth in read) == 35
    first = json.loads(CONFLICTS.read_text(encoding="utf-8"))["pairs"][0]
    a, b, _truth = read[0]
    assert (a.id, a.type, a.title, a.body) == ("fact-0001", first["a"]["type"], first["a"]["title"], first["a"]["body"])
    assert (b.id, b.title, b.body) == ("fact-0002", first["b"]["title"], first["b"]["body"])
    assert neardup.f1(0.5, 1.0) == pytest.approx(2 / 3) and neardup.f1(0.0, 0.0) == 0.0
    hook = _script("bench_session_hook")
    assert len(hook.named_prompts(NAME)) == 100
    assert hook.named_prompts(NAME)[0] == (PROMPTS[f"known_{NAME}"][0]["prompt"], PROMPTS[f"known_{NAME}"][0]["target"])
    assert hook.named_prompts(NAME)[-1] == (PROMPTS[f"unknown_{NAME}"][-1], None)


def test_the_session_hook_benchmark_reads_what_the_hook_injects() -> None:
    hook = _script("bench_session_hook")
    answer = {"hookSpecificOutput": {"additionalContext": "Foundry memory\n\n### fact-0007 A\nbody\n### fact-0002 B"}}
    assert hook.injected_facts(json.dumps(answer).encode() + b"\n") == ["fact-0007", "fact-0002"]
    assert hook.injected_facts(b"") == []
    answers = [(["fact-0007", "fact-0002"], "fact-0002"), (["fact-0001"], "fact-0001"), ([], "fact-0003"), ([], None)]
    answers.append((["fact-0009"], None))
    assert hook.relevance(answers) == "known: injected 2/3, first 1/3; unknown: quiet 1/2"


def test_the_retrieval_benchmark_gives_standard_errors_and_the_no_shared_word_part() -> None:
    bench = _script("bench_retrieval")
    assert bench.mean_and_error([1.0, 0.0, 1.0, 0.0]) == pytest.approx((0.5, 0.288675), abs=1e-6)
    assert bench.mean_and_error([1.0]) == (1.0, 0.0)
    count = len(QUESTIONS[NAME])
    found = [1.0] * count
    reciprocal = [0.5] * count
    line = bench.detail(NAME, found, reciprocal)
    assert line == (
        f"{NAME}: recall@8 1.000 ± 0.000, MRR 0.500 ± 0.000; "
        "sharing no word with their fact (93 q): 1.000 ± 0.000, 0.500 ± 0.000"
    )
    assert bench.detail("heldout4", [1.0] * len(QUESTIONS["heldout4"]), [1.0] * len(QUESTIONS["heldout4"])) == (
        "heldout4: recall@8 1.000 ± 0.000, MRR 1.000 ± 0.000"
    )
