"""Keyword retrieval (spec 000, "How retrieval scores", with DESIGN.md's term rules).

A query is lowercased and split on every character that is not a letter or digit;
terms shorter than three characters and repeats are dropped. A term matches a field
when it occurs in that field, lowercased, as a substring: +3 title, +2 any tag,
+1 body; then x1.2 for decision or constraint and x1.15 / x1.0 / x0.8 for confidence.
Order: score descending, then the index's type order, then newest id first.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from .facts import TYPE_RANK, Fact

TERM_RE = re.compile(r"[^\W_]+")
MIN_TERM_CHARS = 3
FIELD_WEIGHTS = (3, 2, 1)  # title, tags, body
TYPE_MULTIPLIER = {"decision": 1.2, "constraint": 1.2}
CONFIDENCE_MULTIPLIER = {"high": 1.15, "medium": 1.0, "low": 0.8}


def query_terms(query: str) -> list[str]:
    """The distinct search terms of `query`, in order of first appearance."""
    seen: dict[str, None] = {}
    for term in TERM_RE.findall(query.lower()):
        if len(term) >= MIN_TERM_CHARS:
            seen.setdefault(term, None)
    return list(seen)


def search_text(fact: Fact) -> str:
    """The fact's title, tags (one per line) and body, lowercased and joined by NUL (cached on the fact)."""
    text = fact.search_text
    if text is None:
        text = fact.search_text = f"{fact.title}\0{chr(10).join(fact.tags)}\0{fact.body}".lower()
    return text


def search_fields(fact: Fact) -> tuple[str, str, str]:
    """The lowercased title, tags and body that terms are matched in."""
    title, tags, body = search_text(fact).split("\0", 2)
    return title, tags, body


@dataclass(frozen=True, slots=True)
class TermMatch:
    """Which fields one query term matched in one fact."""

    term: str
    title: bool
    tags: bool
    body: bool

    @property
    def points(self) -> int:
        return 3 * self.title + 2 * self.tags + self.body

    def describe(self) -> str:
        parts = [
            f"{name} +{weight}"
            for name, weight, hit in (("title", 3, self.title), ("tags", 2, self.tags), ("body", 1, self.body))
            if hit
        ]
        return f'"{self.term}" {", ".join(parts)}'


@dataclass(frozen=True, slots=True)
class Hit:
    """A scored fact and the reasons for its score."""

    fact: Fact
    score: float
    points: int
    type_multiplier: float
    confidence_multiplier: float
    matches: tuple[TermMatch, ...]

    def explain(self) -> str:
        """One line: which term matched which field, and the multipliers."""
        terms = "; ".join(m.describe() for m in self.matches)
        return (
            f"_score {format_score(self.score)} = {self.points} ({terms})"
            f" × {self.type_multiplier:g} {self.fact.type} × {self.confidence_multiplier:g} confidence {self.fact.confidence}_"
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.fact.id,
            "type": self.fact.type,
            "title": self.fact.title,
            "confidence": self.fact.confidence,
            "score": round(self.score, 4),
            "points": self.points,
            "typeMultiplier": self.type_multiplier,
            "confidenceMultiplier": self.confidence_multiplier,
            "matches": [{"term": m.term, "title": m.title, "tags": m.tags, "body": m.body} for m in self.matches],
        }


def format_score(score: float) -> str:
    return f"{score:.2f}"


def score_fact(fact: Fact, matches: Sequence[TermMatch]) -> Hit:
    points = sum(m.points for m in matches)
    tm = TYPE_MULTIPLIER.get(fact.type, 1.0)
    cm = CONFIDENCE_MULTIPLIER.get(fact.confidence, 1.0)
    # Rounded so that a threshold such as minScore 1 is not missed by float noise.
    return Hit(fact, round(points * tm * cm, 9), points, tm, cm, tuple(matches))


class TermMatcher(Protocol):
    """Finds, for one term, the ids of facts whose title, tags and body contain it."""

    def match_term(self, term: str) -> tuple[set[str], set[str], set[str]]: ...


def match_facts(
    facts: Iterable[Fact] | Mapping[str, Fact], terms: Sequence[str], matcher: TermMatcher | None = None
) -> list[Hit]:
    """Every fact (of `facts`) that matches at least one term, scored. With a matcher
    (an index) the term lookups use it; without one every fact is scanned."""
    if not terms:
        return []
    hits: list[Hit] = []
    if matcher is None:
        for fact in facts.values() if isinstance(facts, Mapping) else facts:
            text = search_text(fact)
            # A term never contains NUL, so one test on the joined text rules out most facts.
            if not any(t in text for t in terms):
                continue
            title, tags, body = text.split("\0", 2)
            found = [TermMatch(t, t in title, t in tags, t in body) for t in terms]
            hits.append(score_fact(fact, [m for m in found if m.points]))
        return hits
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
        matched = [TermMatch(term, fact_id in t, fact_id in g, fact_id in b) for term, t, g, b in per_term]
        hits.append(score_fact(candidate, [m for m in matched if m.points]))
    return hits


def rank(hits: Iterable[Hit], limit: int, min_score: float) -> list[Hit]:
    """The best `limit` hits scoring at least `min_score`, in the product's order."""
    eligible = [h for h in hits if h.score >= min_score]
    return heapq.nsmallest(limit, eligible, key=lambda h: (-h.score, TYPE_RANK.get(h.fact.type, 99), -h.fact.number))


def render_hit(hit: Hit, explain: bool = False) -> str:
    """The spec's block for one hit."""
    fact = hit.fact
    lines = [
        f"### {fact.id} · {fact.type} · confidence {fact.confidence}",
        f"**{fact.title}**",
        fact.body,
        f"_source: {fact.source} · scope: {fact.scope}_",
    ]
    if explain:
        lines.append(hit.explain())
    return "\n".join(lines)


def render_results(hits: Sequence[Hit], query: str, active_count: int, explain: bool = False) -> str:
    """The memory_search reply: one block per hit, separated by a blank line."""
    if not hits:
        return f'No stored fact matches "{query}". Memory holds {active_count} active facts.'
    return "\n\n".join(render_hit(hit, explain) for hit in hits)
