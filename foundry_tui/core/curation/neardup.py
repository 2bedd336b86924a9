"""Near-duplicate facts: pairs of active facts that likely state the same claim in
different words — the gap the spec names, which title-only dedup cannot see.

Offline and deterministic. Each fact becomes a sparse TF-IDF vector of normalised
words (stop words dropped, simple plural/tense endings folded, a small table of
common synonyms), with title words weighted up; a pair's score is the cosine of its
vectors blended with the overlap of the titles' character trigrams (which catches
reordering and inflection), plus a little for the same type. Candidates come from
an inverted index over each fact's rarest words, so a scan does not compare all pairs.
Pairs that chain are grouped (A~B, B~C: one group). Nothing is merged here.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from foundry_tui.core.config import DEFAULT_DUPE_THRESHOLD
from foundry_tui.core.memory.facts import Fact, id_order

TITLE_WEIGHT, TAG_WEIGHT, BODY_WEIGHT = 2.0, 1.5, 1.0
SAME_TYPE_BONUS = 0.05
CANDIDATE_TERMS = 8  # each fact's rarest words that propose candidates
ALL_PAIRS_UP_TO = 400  # below this many facts, simply score every pair

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "but",
        "by",
        "can",
        "do",
        "does",
        "each",
        "every",
        "for",
        "from",
        "has",
        "have",
        "in",
        "into",
        "is",
        "it",
        "its",
        "may",
        "must",
        "no",
        "not",
        "of",
        "on",
        "one",
        "only",
        "or",
        "our",
        "so",
        "such",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "too",
        "under",
        "up",
        "us",
        "was",
        "we",
        "were",
        "when",
        "which",
        "while",
        "who",
        "will",
        "with",
        "within",
        "without",
        "you",
        "your",
    ]
)
# Words people use interchangeably in engineering notes (kept small and generic on purpose).
_SYNONYMS = {
    "db": "database",
    "datastore": "database",
    "postgresql": "postgres",
    "pg": "postgres",
    "credential": "secret",
    "password": "secret",
    "token": "secret",
    "key": "secret",
    "repo": "repository",
    "git": "repository",
    "pr": "pull",
    "request": "request",
    "http": "api",
    "endpoint": "api",
    "rest": "api",
    "ui": "frontend",
    "interface": "frontend",
    "timezone": "time",
    "datetime": "time",
    "timestamp": "time",
    "date": "time",
    "toggle": "flag",
    "k8s": "kubernetes",
    "deployment": "deploy",
    "release": "deploy",
    "job": "task",
    "worker": "task",
    "async": "task",
    "asynchronous": "task",
    "customer": "user",
    "client": "user",
    "personal": "pii",
    "charge": "charge",
    "never": "not",
    "must": "required",
    "require": "required",
    "need": "required",
    "needs": "required",
    "only": "only",
    "minimum": "min",
    "least": "min",
    "newer": "min",
    "field": "key",
    "keys": "key",
    "serialise": "serialize",
    "log": "logging",
    "logs": "logging",
    "weekend": "weekday",
    "saturday": "weekday",
    "sunday": "weekday",
    "monday": "weekday",
    "friday": "weekday",
}

_CANONICAL = frozenset(_SYNONYMS.values())


def _stem(word: str) -> str:
    """Fold plural and tense endings: databases → database, boxes → box, charged → charg(e)."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "zes", "ches", "shes")) and len(word) > 4:
        return word[:-2]
    for suffix in ("ing", "ed", "s"):
        if word.endswith(suffix) and not word.endswith("ss") and len(word) - len(suffix) >= 3:
            return word[: len(word) - len(suffix)]
    return word


_NORMAL: dict[str, str] = {}


def _normal(word: str) -> str:
    """A word's normal form (memoised: the same few thousand words recur in every fact)."""
    found = _NORMAL.get(word)
    if found is None:
        found = _SYNONYMS.get(word, word)
        if found not in _CANONICAL:  # canonical words stay as they are (postgres, not postgre)
            stem = _stem(found)
            found = _SYNONYMS.get(stem, stem)
        if found in _STOP:
            found = ""
        if len(_NORMAL) < 200_000:
            _NORMAL[word] = found
    return found


def terms(text: str) -> list[str]:
    """Normalised words of `text`: lowercase, stop words out, endings folded, synonyms mapped."""
    out = []
    for word in _WORD.findall(text.lower()):
        if word in _STOP or len(word) < 2:
            continue
        normal = _normal(word)
        if normal:
            out.append(normal)
    return out


def _trigrams(text: str) -> set[str]:
    squeezed = " ".join(terms(text))
    return {squeezed[i : i + 3] for i in range(max(len(squeezed) - 2, 0))}


class Features:
    """One fact's weighted words (by field) and title trigrams."""

    __slots__ = ("body", "fact", "tags", "title", "trigrams", "weights")

    def __init__(self, fact: Fact) -> None:
        self.fact = fact
        self.title = set(terms(fact.title))
        self.tags = {t for tag in fact.tags for t in terms(tag)}
        self.body = set(terms(fact.body))
        self.trigrams = _trigrams(fact.title)
        weights: dict[str, float] = defaultdict(float)
        for word in terms(fact.title):
            weights[word] += TITLE_WEIGHT
        for word in self.tags:
            weights[word] += TAG_WEIGHT
        for word in terms(fact.body):
            weights[word] += BODY_WEIGHT
        self.weights = dict(weights)


class Candidate:
    """A pair of facts that may state the same claim, with why."""

    __slots__ = ("a", "b", "cosine", "score", "shared", "title_overlap")

    def __init__(
        self, a: str, b: str, score: float, cosine: float, title_overlap: float, shared: list[tuple[str, list[str]]]
    ) -> None:
        self.a, self.b = a, b
        self.score = score
        self.cosine = cosine
        self.title_overlap = title_overlap
        self.shared = shared  # (word, fields of both facts it appears in), strongest first

    def why(self) -> str:
        words = ", ".join(f"{w} ({'/'.join(fields)})" for w, fields in self.shared[:6])
        return f"shared: {words or 'nothing notable'}; words {self.cosine:.2f}, titles {self.title_overlap:.2f}"

    def to_dict(self) -> dict[str, object]:
        return {
            "a": self.a,
            "b": self.b,
            "score": round(self.score, 3),
            "cosine": round(self.cosine, 3),
            "titleOverlap": round(self.title_overlap, 3),
            "shared": [w for w, _f in self.shared],
        }


class DupeFinder:
    """Scores pairs of facts; `scan()` finds every pair over a threshold without comparing all pairs."""

    def __init__(self, facts: Sequence[Fact]) -> None:
        self.features = {f.id: Features(f) for f in facts}
        df: dict[str, int] = defaultdict(int)
        for feat in self.features.values():
            for word in feat.weights:
                df[word] += 1
        n = max(len(self.features), 1)
        self.idf = {word: math.log((1 + n) / (1 + count)) + 1.0 for word, count in df.items()}
        self.df = df
        self._vectors = {fid: self._vector(feat) for fid, feat in self.features.items()}

    def _vector(self, feat: Features) -> tuple[dict[str, float], float]:
        vec = {w: weight * self.idf[w] for w, weight in feat.weights.items()}
        return vec, math.sqrt(sum(v * v for v in vec.values())) or 1.0

    def _quick(self, a: str, b: str) -> tuple[float, float, float]:
        """(score, cosine, title overlap) without the explanation."""
        fa, fb = self.features[a], self.features[b]
        (va, na), (vb, nb) = self._vectors[a], self._vectors[b]
        small, large = (va, vb) if len(va) < len(vb) else (vb, va)
        cosine = sum(weight * large[w] for w, weight in small.items() if w in large) / (na * nb)
        union = len(fa.trigrams | fb.trigrams)
        overlap = len(fa.trigrams & fb.trigrams) / union if union else 0.0
        score = 0.65 * cosine + 0.35 * overlap + (SAME_TYPE_BONUS if fa.fact.type == fb.fact.type else 0.0)
        return min(score, 1.0), cosine, overlap

    def score(self, a: str, b: str) -> Candidate:
        score, cosine, overlap = self._quick(a, b)
        fa, fb = self.features[a], self.features[b]
        va, vb = self._vectors[a][0], self._vectors[b][0]
        shared = []
        for word in sorted(set(va) & set(vb), key=lambda w: (-(va[w] + vb[w]), w)):  # ties by word: stable across runs
            fields = [
                name
                for name, words in (
                    ("title", fa.title | fb.title),
                    ("tags", fa.tags | fb.tags),
                    ("body", fa.body | fb.body),
                )
                if word in words
            ]
            shared.append((word, fields))
        return Candidate(a, b, score, cosine, overlap, shared)

    def candidate_pairs(self, all_pairs_up_to: int = ALL_PAIRS_UP_TO) -> set[tuple[str, str]]:
        """Pairs worth scoring: all of them for a small memory; otherwise the facts sharing at
        least two of each other's rarest words (bitsets over facts: a few big-integer ANDs per
        fact instead of comparing every pair)."""
        ids = sorted(self.features, key=id_order)
        if len(ids) <= all_pairs_up_to:
            return {(a, b) for i, a in enumerate(ids) for b in ids[i + 1 :]}
        position = {fid: i for i, fid in enumerate(ids)}
        rarest = {
            fid: sorted(self.features[fid].weights, key=lambda w: (self.df[w], w))[:CANDIDATE_TERMS] for fid in ids
        }
        bits: dict[str, int] = defaultdict(int)
        for fid, words in rarest.items():
            mask = 1 << position[fid]
            for word in words:
                bits[word] |= mask
        pairs: set[tuple[str, str]] = set()
        for fid, words in rarest.items():
            sets = [bits[w] for w in words]
            shared = 0
            for i, first in enumerate(sets):
                for second in sets[i + 1 :]:
                    shared |= first & second
            shared &= ~((1 << (position[fid] + 1)) - 1)  # later facts only: each pair once
            while shared:
                low = shared & -shared
                pairs.add((fid, ids[low.bit_length() - 1]))
                shared ^= low
        return pairs

    def scan(self, threshold: float = DEFAULT_DUPE_THRESHOLD) -> list[Candidate]:
        """Every pair scoring at least `threshold`, best first."""
        found = [self.score(a, b) for a, b in self.candidate_pairs() if self._quick(a, b)[0] >= threshold]
        found.sort(key=lambda c: (-c.score, id_order(c.a), id_order(c.b)))
        return found


def group(candidates: Iterable[Candidate]) -> list[list[str]]:
    """Chain pairs into groups (union-find); each group sorted, groups by size then first id."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for c in candidates:
        ra, rb = find(c.a), find(c.b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[str, list[str]] = defaultdict(list)
    for x in parent:
        groups[find(x)].append(x)
    return sorted((sorted(g, key=id_order) for g in groups.values()), key=lambda g: (-len(g), id_order(g[0])))


class DupeReport:
    """`foundry memory dupes`: the groups of near-duplicate active facts and their pairs."""

    def __init__(self, facts: dict[str, Fact], candidates: list[Candidate], threshold: float) -> None:
        self.facts = facts
        self.candidates = candidates
        self.threshold = threshold
        self.groups = group(candidates)

    def pairs_in(self, members: list[str]) -> list[Candidate]:
        inside = set(members)
        return [c for c in self.candidates if c.a in inside and c.b in inside]

    def text(self) -> str:
        lines = [f"Near-duplicate candidates (threshold {self.threshold:.2f}; nothing is merged automatically):", ""]
        if not self.groups:
            lines.append("  none")
        for number, members in enumerate(self.groups, start=1):
            lines.append(f"  group {number}: {', '.join(members)}")
            for fact_id in members:
                fact = self.facts[fact_id]
                lines.append(f"    {fact_id} · {fact.type} · {fact.title}")
            for pair in self.pairs_in(members):
                lines.append(f"    {pair.a} ~ {pair.b}  {pair.score:.2f}  {pair.why()}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, object]:
        return {
            "threshold": self.threshold,
            "groups": [
                {"ids": members, "pairs": [p.to_dict() for p in self.pairs_in(members)]} for members in self.groups
            ],
        }


def find_dupes(project: Any, today: Any, threshold: float | None = None) -> DupeReport:
    """Near-duplicate groups among the project's active facts (threshold from config unless given)."""
    project.sync()
    level = project.config().dupe_threshold if threshold is None else threshold
    if not 0 < level <= 1:
        from foundry_tui.core.errors import InputError

        raise InputError(f"threshold {level} is out of range: use a number above 0 and at most 1")
    active = project.active_facts(today)
    return DupeReport({f.id: f for f in active}, DupeFinder(active).scan(level), level)
