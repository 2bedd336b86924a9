"""bm25's postings: where a stem's words occur, found in C-level passes, equal to a plain loop
over the occurrences (the reference below is the loop they replace)."""

from __future__ import annotations

import bisect
import re
import string

from hypothesis import example, given, settings
from hypothesis import strategies as st

from foundry_tui.core.memory import bm25
from foundry_tui.core.memory.bm25 import _prefix, _word_occurrences, bm25_search, query_stems, stem
from foundry_tui.core.memory.facts import Fact
from foundry_tui.core.memory.search import ScanFields, rank


def _reference(blob: str, starts: list[int], term_stem: str) -> dict[int, int]:
    """The loop _word_occurrences replaces: every regex match of the prefix, skipped when it
    starts inside a word, counted when its word has the stem."""
    pattern = re.compile("(" + re.escape(_prefix(term_stem)) + r"[^\W_]*)")
    counts: dict[int, int] = {}
    for match in pattern.finditer(blob):
        start = match.start()
        if start and blob[start - 1].isalnum():
            continue
        if stem(match.group(1)) == term_stem:
            i = bisect.bisect_right(starts, start) - 1
            counts[i] = counts.get(i, 0) + 1
    return counts


def _joined(texts: list[str]) -> tuple[str, list[int]]:
    starts = [0]
    for text in texts:
        starts.append(starts[-1] + len(text) + 1)
    return "\0".join(texts), starts


# Words that share prefixes and stems, glued by the characters that matter: underscores and
# digits (inside a word or not), hyphens, letters outside ASCII, and the separators of tags.
piece = st.sampled_from(["retry", "retries", "retr", "flies", "fly", "deploy", "deploys", "deployed", "redeploy"])
glue = st.sampled_from([" ", "_", "-", "\n", "é", "2", "x", "", ". "])
texts = st.lists(st.lists(st.tuples(piece, glue), max_size=8).map(lambda ws: "".join(a + b for a, b in ws)), max_size=6)


@settings(max_examples=300)
@given(texts, st.sampled_from(["retry", "fly", "deploy", "retr", "flie", "redeploy", "x"]))
@example(["xretries retries_retries2 retry"], "retry")
@example(["flies fly"], "fly")
def test_word_occurrences_equal_the_loop_over_every_match(texts: list[str], term: str) -> None:
    blob, starts = _joined(texts)
    assert _word_occurrences(blob, starts, term) == _reference(blob, starts, term)


def test_word_occurrences_on_real_prose() -> None:
    texts = [
        "Deploys go out on Tuesdays; a deploy is retried (retries: 3) and redeployed by hand.",
        "The deployer deploy_tool deploys2 deploy-ment",
        "",
        "RETRY nothing here",
    ]
    blob, starts = _joined([t.lower() for t in texts])
    for term in ("deploy", "retry", "retri", "tool", "ment", "nothing"):
        assert _word_occurrences(blob, starts, term) == _reference(blob, starts, term), term
    assert _word_occurrences(blob, starts, "deploy") == {
        0: 2,
        1: 2,
    }  # "deploys", "deploy"; "deploy_tool", "deploy-ment"


word = st.text(alphabet=string.ascii_lowercase[:5], min_size=2, max_size=6)
text = st.lists(word, max_size=10).map(" ".join)


@st.composite
def fact_lists(draw: st.DrawFn) -> list[Fact]:
    return [
        Fact(
            id=f"fact-{i + 1:04d}",
            type="domain",
            title=draw(text),
            body=draw(text),
            tags=tuple(draw(st.lists(word, max_size=3))),
            confidence=draw(st.sampled_from(["high", "medium", "low"])),
        )
        for i in range(draw(st.integers(0, 10)))
    ]


@settings(max_examples=100)
@given(fact_lists(), st.lists(word, min_size=1, max_size=3).map(" ".join))
def test_bm25_hits_are_those_of_the_loop(facts: list[Fact], query: str) -> None:
    """Whole searches, scores and counts included, are the same with the reference loop."""
    stems = query_stems(query)

    def run() -> list[tuple[str, float, tuple[object, ...]]]:
        hits = rank(bm25_search(ScanFields.of(facts), stems, 0), 25, 0)
        return [(h.fact.id, h.score, tuple((m.term, m.counts) for m in h.matches)) for h in hits]  # type: ignore[attr-defined]

    fast = run()
    original = bm25._word_occurrences
    bm25._word_occurrences = _reference
    try:
        assert run() == fast
    finally:
        bm25._word_occurrences = original
