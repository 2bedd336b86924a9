"""Keyword retrieval (spec 000, "How retrieval scores", with the term rules of ADR 0007).

A query is lowercased and split on every character that is not a letter or digit;
terms shorter than three characters, stop words (stopwords.py) and repeats are dropped. A term matches a field
when it occurs in that field, lowercased, as a substring: +3 title, +2 any tag,
+1 body; then x1.2 for decision or constraint and x1.15 / x1.0 / x0.8 for confidence.
Order: score descending, then the index's type order, then newest id first.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from foundry_tui.core.memory.model.facts import Fact
from foundry_tui.core.memory.model.fields import ScanFields
from foundry_tui.core.memory.model.hits import TERM_RE, Hit, TermMatch, multiplier, score_fact, tie_break
from foundry_tui.core.memory.search.stopwords import STOP_WORDS

MIN_TERM_CHARS = 3


# The distinct terms a query or prompt is searched with: its first MAX_QUERY_TERMS, in order (a
# pasted log of 150,000 words cost 26 s in the prompt hook, one scan per term). The labelled
# questions and prompts have at most 10; the first ones, not the rarest, so that the cap costs
# no look-up and an ordinary query's terms are exactly what they were.
MAX_QUERY_TERMS = 32


def query_terms(query: str) -> list[str]:
    """The distinct search terms of `query`, in order of first appearance: the first MAX_QUERY_TERMS."""
    seen: dict[str, None] = {}
    for match in TERM_RE.finditer(query.lower()):
        term = match.group()
        if len(term) >= MIN_TERM_CHARS and term not in STOP_WORDS:
            seen.setdefault(term, None)
            if len(seen) == MAX_QUERY_TERMS:
                break
    return list(seen)


class TermMatcher(Protocol):
    """Finds, for one term, the ids of facts whose title, tags and body contain it."""

    def match_term(self, term: str) -> tuple[set[str], set[str], set[str]]: ...


def match_facts(
    facts: Iterable[Fact] | Mapping[str, Fact],
    terms: Sequence[str],
    matcher: TermMatcher | None = None,
    min_score: float = 0.0,
) -> list[Hit]:
    """Every fact (of `facts`) that matches at least one term and scores at least
    `min_score`, scored. With a matcher (an index) the term lookups use it; without one
    every fact is scanned. Facts below `min_score` are dropped before any object is made
    for them, which matters when a common word matches half the memory."""
    if not terms:
        return []
    hits: list[Hit] = []
    if matcher is None:
        return ScanFields.of(list(facts.values() if isinstance(facts, Mapping) else facts)).match(terms, min_score)
    per_term = [(term, *matcher.match_term(term)) for term in terms]
    candidates: set[str] = set()
    for _term, title_ids, tag_ids, body_ids in per_term:
        candidates |= title_ids
        candidates |= tag_ids
        candidates |= body_ids
    by_id: Mapping[str, Fact] = facts if isinstance(facts, Mapping) else {f.id: f for f in facts}
    for fact_id in candidates:
        candidate = by_id.get(fact_id)
        if candidate is None:
            continue
        marks = [(term, fact_id in t, fact_id in g, fact_id in b) for term, t, g, b in per_term]
        points = sum(3 * a + 2 * g + b for _t, a, g, b in marks)
        if round(points * multiplier(candidate), 9) >= min_score:
            hits.append(score_fact(candidate, [TermMatch(*m) for m in marks if m[1] or m[2] or m[3]]))
    return hits


def _rank_key(score: float, fact: Fact) -> tuple[float, int, int]:
    return (-score, *tie_break(fact.type, fact.id))


def rank(hits: Iterable[Hit], limit: int, min_score: float) -> list[Hit]:
    """The best `limit` hits scoring at least `min_score`, in the product's order."""
    eligible = [h for h in hits if h.score >= min_score]
    return heapq.nsmallest(limit, eligible, key=lambda h: _rank_key(h.score, h.fact))


def inverse_document_frequency(df: int, count: int) -> float:
    """BM25's idf: ln(1 + (N - df + 0.5) / (df + 0.5)), always positive."""
    return math.log(1 + (count - df + 0.5) / (df + 0.5))
