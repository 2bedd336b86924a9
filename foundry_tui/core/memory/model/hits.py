"""A scored fact and the reasons for its score (spec 000, "How retrieval scores"): what every
ranker returns and every reply renders, and the spec's multipliers and tie-break that the
storage's snapshot and the rankers both apply (core/memory/search/spec.py has the term rules)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from foundry_tui.core.memory.model.facts import Fact
from foundry_tui.core.memory.model.vocabulary import TYPE_RANK

# A word: a maximal run of letters and digits (the spec ranker's terms, the tags' words).
TERM_RE = re.compile(r"[^\W_]+")
FIELD_WEIGHTS = (3, 2, 1)  # title, tags, body
TYPE_MULTIPLIER = {"decision": 1.2, "constraint": 1.2}
CONFIDENCE_MULTIPLIER = {"high": 1.15, "medium": 1.0, "low": 0.8}


class TermMatch:
    """Which fields one query term matched in one fact."""

    __slots__ = ("body", "tags", "term", "title")

    def __init__(self, term: str, title: bool, tags: bool, body: bool) -> None:
        self.term = term
        self.title = title
        self.tags = tags
        self.body = body

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TermMatch) and (self.term, self.title, self.tags, self.body) == (
            other.term,
            other.title,
            other.tags,
            other.body,
        )

    def __hash__(self) -> int:
        return hash((self.term, self.title, self.tags, self.body))

    def __repr__(self) -> str:
        return f"TermMatch({self.term!r}, title={self.title}, tags={self.tags}, body={self.body})"

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


class Hit:
    """A scored fact and the reasons for its score."""

    __slots__ = ("confidence_multiplier", "fact", "matches", "points", "score", "type_multiplier")

    def __init__(
        self,
        fact: Fact,
        score: float,
        points: float,
        type_multiplier: float,
        confidence_multiplier: float,
        matches: tuple[TermMatch, ...],
    ) -> None:
        self.fact = fact
        self.score = score
        self.points = points
        self.type_multiplier = type_multiplier
        self.confidence_multiplier = confidence_multiplier
        self.matches = matches

    def __repr__(self) -> str:
        return f"Hit({self.fact.id}, score={self.score}, matches={self.matches!r})"

    def points_text(self) -> str:
        """The score before the multipliers, as the TUI's breakdown names it."""
        return f"{self.points} points"

    def explain(self) -> str:
        """One line: which term matched which field, and the multipliers."""
        terms = "; ".join(m.describe() for m in self.matches)
        return (
            f"_score {format_score(self.score)} = {self.points} ({terms})"
            f" × {self.type_multiplier:g} {self.fact.type} × {self.confidence_multiplier:g} confidence {self.fact.confidence}_"
        )

    def tag_terms(self) -> list[str]:
        """The distinct words of the query that are words of the fact's tags. The spec's matches
        are substrings ("fix" in "fixtures"): a term counts when it is a word of a tag or that
        word with or without a final "s"."""
        words = {word for tag in self.fact.tags for word in TERM_RE.findall(tag.lower())}
        return [m.term for m in self.matches if m.tags and not words.isdisjoint((m.term, m.term + "s", m.term[:-1]))]

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


def multiplier(fact: Fact) -> float:
    """The fact's type x confidence multiplier."""
    return TYPE_MULTIPLIER.get(fact.type, 1.0) * CONFIDENCE_MULTIPLIER.get(fact.confidence, 1.0)


def tie_break(ftype: str, fact_id: str) -> tuple[int, int]:
    """After the score: the index's type order, then the newest id first (the reverse of
    facts.id_order; by number here, as a string key cannot be negated)."""
    return (TYPE_RANK.get(ftype, 99), -int(fact_id[5:]))
