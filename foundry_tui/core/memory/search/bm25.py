"""The `bm25` ranker (opt-in: `memoryRetrieval.ranker: "bm25"`, `--ranker bm25`).

Whole words instead of substrings, folded by a light stemmer (plural, -ing, -ed, -ation,
-ly, a final e and -al: "deploys", "deploying" and "deployed" are one term) and a small
table of words of the same meaning ("db" is "database", "removed" is "deleted"), stop
words and the glue words of questions ("how long", "ask") dropped from the query. Each term scores
BM25F: its frequency in title, tags and body, each divided by that field's length
normalisation and weighted by the field's boost (title > tags > body, as the spec orders
them), saturated by k1 and weighted by the term's inverse document frequency over the
active facts. The sum is multiplied by the spec's type and confidence multipliers.
Parameters: ADR 0024 (docs/adr/).

It searches the same lowercased joined fields as the spec ranker's scan (ScanFields):
a regular expression finds the words that start like each query stem, in C, and only
those occurrences are counted, so nothing is tokenised ahead of a search.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import math
import re
from array import array
from collections.abc import Iterable, Sequence
from itertools import compress, pairwise, repeat
from operator import add, and_, eq, ge, mul, sub, truediv
from typing import Protocol

from foundry_tui.core.memory.model.fields import ScanFields, search_fields
from foundry_tui.core.memory.model.hits import CONFIDENCE_MULTIPLIER, TYPE_MULTIPLIER, Hit, TermMatch, format_score
from foundry_tui.core.memory.model.vocabulary import TYPE_RANK
from foundry_tui.core.memory.search.spec import MAX_QUERY_TERMS
from foundry_tui.core.memory.search.stopwords import QUESTION_WORDS, STOP_WORDS

K1 = 2.0
B = 0.75
FIELD_BOOSTS = (3.0, 2.0, 1.0)  # title, tags, body
# Coordination: the sum is multiplied by (matched stems / query stems) ** COORDINATION, so a
# fact matching most of a question beats one matching a single rare word of it.
COORDINATION = 1.0
# Two query stems next to each other in a field ("load testing") count as one more term,
# weighted by its own (higher) idf times PAIR_WEIGHT.
PAIR_WEIGHT = 0.5
MIN_WORD_CHARS = 2  # "ci", "s3", "ui" are real subjects; one letter is not
WORD_RE = re.compile(r"[^\W_]+")
# Names how facts' words become stems (WORD_RE, stem, prefixes, SAME_MEANING): the persisted
# postings (postings.py) are keyed to it. Bump it with any change to those;
# tests/test_bm25_postings.py pins the stems of a sample of words to catch a change that did not.
TOKENIZER_VERSION = 1
_FIELD_NAMES = ("title", "tags", "body")


# Words that name the same thing in software writing, searched as one term: a word and its
# usual abbreviation, and a few plain synonyms (ADR 0024 lists why each is here).
# Each group is folded to the stem of its first word.
SAME_MEANING: tuple[tuple[str, ...], ...] = (
    ("delete", "remove", "erase"),
    ("stale", "outdated", "obsolete"),
    ("lint", "linter"),
    ("postgres", "postgresql"),
    ("production", "prod"),
    ("configuration", "config"),
    ("repository", "repo"),
    ("database", "db"),
    ("environment", "env"),
    ("kubernetes", "k8s"),
    ("infrastructure", "infra"),
    ("dependency", "deps"),
    ("development", "dev"),
    ("documentation", "docs"),
    ("application", "app"),
    ("auth", "authentication", "authenticate"),
    ("performance", "perf"),
    ("asynchronous", "async"),
    ("administrator", "admin"),
    ("message", "msg"),
)


def _suffix_stem(word: str) -> str:
    """The suffix rules of the light stemmer (see `stem`)."""
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith(("ies", "ied")) and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if word.endswith("ing") and len(word) > 5:
        word = _undouble(word[:-3])
    elif word.endswith("ed") and len(word) > 4:
        word = _undouble(word[:-2])
    elif word.endswith("ation") and len(word) > 7:
        word = word[:-3]
    elif word.endswith("ly") and len(word) > 5:
        word = word[:-2]
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    # The noun of a verb: "approval", "removal", "renewal", "retrieval" (Porter's -al).
    if word.endswith("al") and len(word) > 6:
        word = word[:-2]
    return word


def stem(word: str) -> str:
    """A light stemmer for lowercase English technical words (deliberately not Porter:
    it only folds the forms a question and a fact most often differ by), then the
    groups of SAME_MEANING folded to one term."""
    suffixed = _suffix_stem(word)
    return _CANONICAL.get(suffixed, suffixed)


def _undouble(word: str) -> str:
    if len(word) > 2 and word[-1] == word[-2] and word[-1] not in "lsz":
        return word[:-1]
    return word


def query_words(query: str) -> dict[str, str]:
    """The distinct stems of the query's words (stop words and one-letter words dropped), in
    order, each with the first word of the query that has it: the first MAX_QUERY_TERMS."""
    seen: dict[str, str] = {}
    for match in WORD_RE.finditer(query.lower()):
        word = match.group()
        if len(word) >= MIN_WORD_CHARS and word not in STOP_WORDS and word not in QUESTION_WORDS:
            seen.setdefault(stem(word), word)
            if len(seen) == MAX_QUERY_TERMS:
                break
    return seen


def query_stems(query: str) -> list[str]:
    """The distinct stems of the query's words (stop words and one-letter words dropped)."""
    return list(query_words(query))


def _word_prefix(term_stem: str) -> str:
    return term_stem[:-1] if term_stem.endswith("y") and len(term_stem) > 3 else term_stem


def prefixes(term_stem: str) -> tuple[str, ...]:
    """What every word with this stem starts with ("retry" also stands for "retries"; "delet"
    also for "removed"): one prefix, or one per word of its SAME_MEANING group, none of
    them the start of another (so no word matches two)."""
    return _PREFIXES.get(term_stem) or (_word_prefix(term_stem),)


def _fold_tables() -> tuple[dict[str, str], dict[str, tuple[str, ...]]]:
    """Suffix stem -> the stem of its group's first word; and that stem -> the prefixes of
    every word folded to it."""
    canonical: dict[str, str] = {}
    members: dict[str, set[str]] = {}
    for group in SAME_MEANING:
        first = _suffix_stem(group[0])
        for word in group:
            canonical[_suffix_stem(word)] = first
            members.setdefault(first, set()).add(_word_prefix(_suffix_stem(word)))
    # A prefix that starts with another ("postgresql", "postgr") finds nothing more.
    return canonical, {
        k: tuple(sorted(p for p in v if not any(p != q and p.startswith(q) for q in v))) for k, v in members.items()
    }


_CANONICAL, _PREFIXES = _fold_tables()


class Bm25Match(TermMatch):
    """One query stem in one fact: how often it occurs per field, and what it adds."""

    __slots__ = ("counts", "weight")

    def __init__(self, term: str, counts: tuple[int, int, int], weight: float) -> None:
        super().__init__(term, counts[0] > 0, counts[1] > 0, counts[2] > 0)
        self.counts = counts
        self.weight = weight

    @property
    def points(self) -> int:
        return sum(self.counts)

    def describe(self) -> str:
        parts = [f"{name} ×{n}" for name, n in zip(_FIELD_NAMES, self.counts, strict=True) if n]
        return f'"{self.term}" {", ".join(parts)} +{self.weight:.2f}'


class Bm25Hit(Hit):
    """A fact scored by BM25; `points` is the BM25 sum before the multipliers."""

    __slots__ = ("coordination", "coverage")
    coordination: float  # share of the query's stems the fact holds, as multiplied in
    coverage: float  # the BM25 sum after coordination over the most the query could score

    def points_text(self) -> str:
        return f"bm25 {self.points:.2f} × {self.coordination:.2f} of the words"

    def tag_terms(self) -> list[str]:
        """Its tag matches: whole words, stemmed (a pair of adjacent words is not one more)."""
        return list(dict.fromkeys(m.term for m in self.matches if m.tags and " " not in m.term))

    def explain(self) -> str:
        terms = "; ".join(m.describe() for m in self.matches)
        return (
            f"_score {format_score(self.score)} = bm25 {self.points:.2f} ({terms}) × {self.coordination:.2f} of the words"
            f" × {self.type_multiplier:g} {self.fact.type} × {self.confidence_multiplier:g} confidence {self.fact.confidence}_"
        )

    def to_dict(self) -> dict[str, object]:
        data = super().to_dict()
        data["points"] = round(self.points, 4)
        data["coordination"] = round(self.coordination, 4)
        data["matches"] = [
            {
                "term": m.term,
                "title": m.title,
                "tags": m.tags,
                "body": m.body,
                "counts": list(m.counts) if isinstance(m, Bm25Match) else [],
                "weight": round(m.weight, 4) if isinstance(m, Bm25Match) else 0,
            }
            for m in self.matches
        ]
        return data


# With more than one posting (a stem in a fact) per DENSE_FROM facts, a query is scored
# over dense arrays, otherwise fact by fact (0: never dense).
DENSE_FROM = 16
# With a limit and more than one posting per PRUNE_FROM facts, the best hits are found by
# walking the units' facts by impact and stopping early (0: never).
PRUNE_FROM = 16
# A pair is searched fact by fact when fewer than one fact in FEW_CANDIDATES holds both words.
FEW_CANDIDATES = 20
UNIT_CACHE = 64  # units (stems and pairs) whose occurrences and weights a long-lived scan keeps


class _Stats:
    """Field lengths (characters) of the searched facts and their averages; and, for
    processes that search the same facts many times, the last units' weights."""

    __slots__ = ("_norms", "averages", "count", "lengths", "multipliers", "ranks", "units")

    def __init__(self, lengths: tuple[list[int], list[int], list[int]], positions: Iterable[int], count: int) -> None:
        self.lengths = lengths
        self.units: dict[tuple[str, ...], _Unit] = {}
        self.multipliers: array[float] | None = None  # type x confidence multiplier per position
        self.ranks: array[int] | None = None  # type rank per position
        self._norms: list[list[float]] | None = None
        self.count = count
        self.averages = tuple(
            (sum(map(field.__getitem__, positions)) / count if count else 0.0) or 1.0 for field in lengths
        )

    def norms(self) -> list[list[float]]:
        """Per field and position, the length normalisation a term's count is divided by:
        1 - B + B * length / average, evaluated as the per-fact loop evaluates it."""
        if self._norms is None:
            self._norms = [
                list(map(add, repeat(1 - B), map(truediv, map(mul, repeat(B), lengths), repeat(average))))
                for lengths, average in zip(self.lengths, self.averages, strict=True)
            ]
        return self._norms


def _stats(scan: ScanFields) -> _Stats:
    cached = scan.bm25_stats
    if isinstance(cached, _Stats):
        return cached
    positions: Iterable[int] = scan.eligible if scan.eligible is not None else range(scan.count)
    if scan.fields is not None:
        # Each text's length: the next start minus this one, less the separator.
        lengths = tuple(list(map(sub, map(sub, starts[1:], starts[:-1]), repeat(1))) for _blob, starts in scan.fields)
    else:
        per_fact = [search_fields(scan.fact_at(i)) for i in range(scan.count)]
        lengths = tuple([len(f[k]) for f in per_fact] for k in range(3))
    count = len(scan.eligible) if scan.eligible is not None else scan.count
    stats = _Stats((lengths[0], lengths[1], lengths[2]), positions, count)
    scan.bm25_stats = stats
    return stats


Counts = tuple[dict[int, int], dict[int, int], dict[int, int]]
# Between the two words of a pair: one to three spaces, hyphens, slashes or underscores,
# never a sentence's or a list's punctuation, nor the separators of facts and tags
# ("load testing", "load-testing", "feature flags", "snake_case", "ci/cd").
_GAP = r"[ \t\-/_]{1,3}"


def _occurrences(scan: ScanFields, stems: Sequence[str], within: Sequence[set[int]] | None = None) -> Counts:
    """Per field: fact position -> how often the words with these stems occur in it, in this
    order and next to each other (one stem: a word; two: a pair of adjacent words). With
    `within` (per field, the only positions that can match), few candidates are searched
    one by one instead of the whole field."""
    # A literal first lets the regex engine skip ahead in C; the word start is checked here.
    # A stem of a SAME_MEANING group has one pattern per prefix (an alternation of literals
    # would leave the engine a set of first letters to stop at, several times slower).
    patterns = [
        re.compile(_GAP.join("(" + re.escape(p) + r"[^\W_]*)" for p in starts))
        for starts in itertools.product(*map(prefixes, stems))
    ]
    wanted = tuple(stems)
    eligible = scan.eligible
    known: dict[str, str] = {}
    found: list[dict[int, int]] = []
    for field in range(3):
        counts: dict[int, int] = {}
        if scan.fields is not None:
            blob, starts = scan.fields[field]
            if within is not None and len(within[field]) * FEW_CANDIDATES < scan.count:
                spans = [(starts[i], starts[i + 1] - 1) for i in sorted(within[field])]
            else:
                spans = [(0, len(blob))]
            matches = (m for pattern in patterns for a, b in spans for m in pattern.finditer(blob, a, b))
            for match in matches:
                start = match.start()
                if start and blob[start - 1].isalnum():
                    continue
                words = match.groups()
                if tuple(known.get(w) or known.setdefault(w, stem(w)) for w in words) == wanted:
                    i = bisect.bisect_right(starts, start) - 1
                    counts[i] = counts.get(i, 0) + 1
        else:  # text whose length changes when lowercased: fact by fact
            for i in range(scan.count):
                text = search_fields(scan.fact_at(i))[field]
                for match in (m for pattern in patterns for m in pattern.finditer(text)):
                    start = match.start()
                    if (not start or not text[start - 1].isalnum()) and tuple(map(stem, match.groups())) == wanted:
                        counts[i] = counts.get(i, 0) + 1
        if eligible is not None:
            counts = {i: n for i, n in counts.items() if i in eligible}
        found.append(counts)
    return found[0], found[1], found[2]


class _Unit:
    """One stem or pair of a query: occurrences per field, document frequency, what it adds
    to each fact (sparse), and the same as a dense array over every position, made on demand."""

    __slots__ = ("_dense", "_impact", "_present", "df", "fields", "weights")

    def __init__(self, fields: Counts, df: int, weights: dict[int, float]) -> None:
        self.fields = fields
        self.df = df
        self.weights = weights
        self._dense: array[float] | None = None
        self._present: array[int] | None = None
        self._impact: tuple[list[int], list[float]] | None = None

    def impact(self, multipliers: array[float]) -> tuple[list[int], list[float]]:
        """The positions holding the unit, by what it adds times the fact's multiplier, highest
        first, and those products: an upper bound, at each depth, of what the rest can add."""
        if self._impact is None:
            weights = self.weights
            products = {i: w * multipliers[i] for i, w in weights.items()}
            positions = sorted(products, key=products.__getitem__, reverse=True)
            self._impact = (positions, list(map(products.__getitem__, positions)))
        return self._impact

    def dense(self, count: int) -> array[float]:
        """What the unit adds to each position (0.0 where it does not occur)."""
        if self._dense is None:
            dense = array("d", bytes(8 * count))
            for i, weight in self.weights.items():
                dense[i] = weight
            self._dense = dense
        return self._dense

    def present(self, count: int) -> array[int]:
        """1 where the unit occurs, 0 elsewhere."""
        if self._present is None:
            present = array("b", bytes(count))
            for i in self.weights:
                present[i] = 1
            self._present = present
        return self._present


class StemCounts(Protocol):
    """Where a stem's occurrences per field can be read instead of scanned (postings.Postings)."""

    def counts(self, term: str) -> Counts | None: ...


def _stem_counts(scan: ScanFields, term: str, postings: StemCounts | None) -> Counts:
    """What _occurrences finds for one stem: from the postings when given and intact."""
    found = postings.counts(term) if postings is not None else None
    if found is None:
        return _occurrences(scan, (term,))
    eligible = scan.eligible
    if eligible is None:
        return found
    title, tags, body = found
    return (
        {i: n for i, n in title.items() if i in eligible},
        {i: n for i, n in tags.items() if i in eligible},
        {i: n for i, n in body.items() if i in eligible},
    )


def _unit_weights(scan: ScanFields, stats: _Stats, unit: tuple[str, ...], postings: StemCounts | None = None) -> _Unit:
    """A unit's occurrences per field, its document frequency, and what it adds to each fact."""
    cached = stats.units.pop(unit, None)
    if cached is None:
        n = stats.count
        within = None
        if len(unit) > 1:  # a pair can only occur in a field holding both of its words
            parts = [stats.units.get((part,)) for part in unit]
            if all(part is not None for part in parts):
                within = [
                    set.intersection(*(set(part.fields[field]) for part in parts if part is not None))
                    for field in range(3)
                ]
        fields = _stem_counts(scan, unit[0], postings) if len(unit) == 1 else _occurrences(scan, unit, within)
        docs = fields[0].keys() | fields[1].keys() | fields[2].keys()
        idf = math.log(1 + (n - len(docs) + 0.5) / (len(docs) + 0.5)) * (PAIR_WEIGHT if len(unit) > 1 else 1.0)
        weights = _weights(stats, fields, docs, idf, scan.count)
        cached = _Unit(fields, len(docs), weights)
        if len(stats.units) >= UNIT_CACHE:
            del stats.units[next(iter(stats.units))]  # the least recently used
    stats.units[unit] = cached
    return cached


def _weights(stats: _Stats, fields: Counts, docs: set[int], idf: float, count: int) -> dict[int, float]:
    """What a unit adds to each fact holding it: BM25F of its counts per field, saturated,
    times its idf. Many facts: as C-level passes over the facts (0.0 where a field lacks the
    unit, which adds nothing, exactly); few: fact by fact. The same floats in the same order."""
    if len(docs) * DENSE_FROM > count:
        norms = stats.norms()
        title, tags, body = (
            dict(
                zip(
                    counts,
                    map(truediv, map(mul, repeat(boost), counts.values()), map(norm.__getitem__, counts)),
                    strict=True,
                )
            )
            for counts, boost, norm in zip(fields, FIELD_BOOSTS, norms, strict=True)
        )
        # Title, then tags, then body, as the loop adds them; a fact in the body only (most
        # of them) takes its body term as it is (0.0 + x is x).
        for i, term in tags.items():
            before = title.get(i)
            title[i] = term if before is None else before + term
        for i, term in title.items():
            after = body.get(i)
            body[i] = term if after is None else term + after
        tfs = list(map(body.__getitem__, docs))
        saturated = map(truediv, map(mul, map(mul, repeat(idf), tfs), repeat(K1 + 1)), map(add, tfs, repeat(K1)))
        return dict(zip(docs, saturated, strict=True))
    weights: dict[int, float] = {}
    lengths, averages = stats.lengths, stats.averages
    for i in docs:
        tf = 0.0
        for field in range(3):
            n = fields[field].get(i)
            if n:
                tf += FIELD_BOOSTS[field] * n / (1 - B + B * lengths[field][i] / averages[field])
        weights[i] = idf * tf * (K1 + 1) / (tf + K1)
    return weights


def _total(found: list[tuple[tuple[str, ...], _Unit]], i: int) -> float:
    total = 0.0
    for _unit, entry in found:
        weight = entry.weights.get(i)
        if weight is not None:
            total = total + weight
    return total


def _select_sparse(
    scan: ScanFields,
    found: list[tuple[tuple[str, ...], _Unit]],
    stem_count: int,
    coordinate: bool,
    min_score: float,
    limit: int | None,
    wanted_rank: int | None,
) -> list[tuple[float, int]]:
    """(score, position) of the best hits, visiting only the facts that match (few of them)."""
    totals: dict[int, float] = {}
    matched: dict[int, int] = {}
    for unit, entry in found:
        for i, weight in entry.weights.items():
            totals[i] = totals.get(i, 0.0) + weight
            if len(unit) == 1:
                matched[i] = matched.get(i, 0) + 1
    scored = []
    for i, total in totals.items():
        if wanted_rank is not None and scan.order_at(i)[0] != wanted_rank:
            continue
        coordination = (matched[i] / stem_count) ** COORDINATION if coordinate else 1.0
        score = round(total * coordination * scan.weight_at(i), 9)
        if score >= min_score:
            scored.append((score, i))
    return _best(scan, scored, limit)


def _best(scan: ScanFields, scored: list[tuple[float, int]], limit: int | None) -> list[tuple[float, int]]:
    if limit is not None and len(scored) > limit:
        order_at = scan.order_at
        scored = heapq.nsmallest(limit, scored, key=lambda si: (-si[0], *order_at(si[1])))
    return scored


def _select_pruned(
    scan: ScanFields,
    stats: _Stats,
    found: list[tuple[tuple[str, ...], _Unit]],
    stem_count: int,
    coordinate: bool,
    min_score: float,
    limit: int,
    wanted_rank: int | None,
) -> list[tuple[float, int]]:
    """The same as _select_sparse for the best `limit` hits of a query matching many facts,
    without visiting most of them (Fagin's threshold algorithm): each unit's facts are read
    in falling order of what it adds times the fact's multiplier, every fact met is scored
    whole (as _select_sparse scores it), and the walk stops once the `limit`-th best score
    beats the most a fact not met yet could score (the sum of the units' values at this depth;
    coordination is at most 1). Scores are equal to the sparse path's to the last bit."""
    count = scan.count
    if stats.multipliers is None:
        stats.multipliers = array("d", map(scan.weight_at, range(count)))
    multipliers = stats.multipliers
    lists = [entry.impact(multipliers) for _u, entry in found]
    parts = [(entry.weights, len(unit) == 1) for unit, entry in found]
    if wanted_rank is not None and stats.ranks is None:
        stats.ranks = array("i", (scan.order_at(i)[0] for i in range(count)))
    ranks = stats.ranks if wanted_rank is not None else None  # kept from an earlier typed search
    order_at = scan.order_at
    seen: set[int] = set()
    # A min-heap of (score, -type rank, -(-number), position): its first item is the worst kept hit.
    kept: list[tuple[float, int, int, int]] = []
    floor = min_score  # what a fact must score to be kept: min_score, then the worst kept hit's score
    depth, deepest = 0, max(len(positions) for positions, _v in lists)
    while depth < deepest:
        bound = 0.0
        for positions, values in lists:
            if depth >= len(positions):
                continue
            bound += values[depth]
            i = positions[depth]
            if i in seen:
                continue
            seen.add(i)
            if ranks is not None and ranks[i] != wanted_rank:
                continue
            total = 0.0
            matched = 0
            for weights, single in parts:
                weight = weights.get(i)
                if weight is not None:
                    total = total + weight
                    matched += single
            coordination = (matched / stem_count) ** COORDINATION if coordinate else 1.0
            raw = total * coordination * multipliers[i]
            if raw < floor - 1e-9:  # rounding to 9 places moves a score by less than that
                continue
            score = round(raw, 9)
            if score < floor:
                continue
            rank_, newest = order_at(i)
            item = (score, -rank_, -newest, i)
            if len(kept) < limit:
                heapq.heappush(kept, item)
                if len(kept) == limit:
                    floor = max(min_score, kept[0][0])
            elif item > kept[0]:
                heapq.heapreplace(kept, item)
                floor = max(min_score, kept[0][0])
        margin = bound * 1e-12 + 1e-9  # a fact not met scores at most `bound`, rounded to 9 places
        if bound < min_score - margin or (len(kept) == limit and kept[0][0] > bound + margin):
            break
        depth += 1
    return [(score, i) for score, _r, _n, i in kept]


def _select_dense(
    scan: ScanFields,
    stats: _Stats,
    found: list[tuple[tuple[str, ...], _Unit]],
    stem_count: int,
    coordinate: bool,
    min_score: float,
    limit: int | None,
    wanted_rank: int | None,
) -> list[tuple[float, int]]:
    """The same as _select_sparse for queries matching many facts: every step is one C-level
    pass over arrays (map, zip, compress), not a Python loop over the hits. The float
    operations are the sparse path's, in its order, so the scores are equal to the last bit."""
    count = scan.count
    if stats.multipliers is None:
        stats.multipliers = array("d", map(scan.weight_at, range(count)))
    vectors = [entry.dense(count) for _u, entry in found]
    totals: Iterable[float] = vectors[0]
    for vector in vectors[1:]:  # a + b in the sparse path's order (not sum(): 3.12 compensates)
        totals = map(add, totals, vector)
    present = [entry.present(count) for unit, entry in found if len(unit) == 1]
    matched: Iterable[int] = present[0]
    for flags in present[1:]:
        matched = map(add, matched, flags)
    matched = list(matched)
    if coordinate:
        shares = map(pow, map(truediv, matched, repeat(stem_count)), repeat(COORDINATION))
        totals = map(mul, totals, shares)
    # Unrounded scores: rounding to 9 places is monotonic, so every fact whose rounded score
    # could pass a bound has an unrounded one within 1e-9 of it; only those are rounded.
    raw = list(map(mul, totals, stats.multipliers))
    keep: Iterable[bool] = map(and_, map(bool, matched), map(ge, raw, repeat(min_score - 1e-9)))
    if wanted_rank is not None:
        if stats.ranks is None:
            stats.ranks = array("i", (scan.order_at(i)[0] for i in range(count)))
        keep = map(and_, keep, map(eq, stats.ranks, repeat(wanted_rank)))
    positions = list(compress(range(count), keep))
    if limit is not None and len(positions) > limit:
        floor = sorted(map(raw.__getitem__, positions), reverse=True)[limit - 1] - 1e-9
        positions = list(compress(positions, map(ge, map(raw.__getitem__, positions), repeat(floor))))
    scored = [(round(raw[i], 9), i) for i in positions]
    return _best(scan, [(score, i) for score, i in scored if score >= min_score], limit)


def bm25_search(
    scan: ScanFields,
    stems: Sequence[str],
    min_score: float,
    limit: int | None = None,
    type: str | None = None,
    labels: dict[str, str] | None = None,
    postings: StemCounts | None = None,
) -> list[Hit]:
    """BM25 hits for `stems` among the facts of `scan` scoring at least `min_score` (of type
    `type` when given; the statistics always cover every fact of `scan`). `labels` names each
    stem in explanations by the query's own word (stem -> word). `postings` (of exactly the
    facts of `scan`, by position) gives a stem's occurrences without scanning for them."""
    stats = _stats(scan)
    n = stats.count
    units: list[tuple[str, ...]] = [(s,) for s in stems]
    if PAIR_WEIGHT:
        units += list(pairwise(stems))
    # The most the query's stems could add (each in every field of a fact, saturated):
    # the denominator of a hit's `coverage`, which the prompt hook's threshold is on.
    ceiling = 0.0
    found: list[tuple[tuple[str, ...], _Unit]] = []
    for unit in units:
        entry = _unit_weights(scan, stats, unit, postings)
        if len(unit) == 1:
            ceiling += math.log(1 + (n - entry.df + 0.5) / (entry.df + 0.5)) * (K1 + 1)
        if entry.weights:
            found.append((unit, entry))
    per_term = [(" ".join(unit), entry.fields, entry.weights) for unit, entry in found]
    wanted_rank = TYPE_RANK.get(type) if type is not None else None
    coordinate = bool(COORDINATION and len(stems) > 1)
    hit_count = sum(len(entry.weights) for _u, entry in found)
    if limit is not None and found and hit_count * PRUNE_FROM > scan.count:
        scored = _select_pruned(scan, stats, found, len(stems), coordinate, min_score, limit, wanted_rank)
    elif hit_count * DENSE_FROM > scan.count:
        scored = _select_dense(scan, stats, found, len(stems), coordinate, min_score, limit, wanted_rank)
    else:
        scored = _select_sparse(scan, found, len(stems), coordinate, min_score, limit, wanted_rank)
    totals: dict[int, float] = {}
    coordination: dict[int, float] = {}
    for _score, i in scored:
        totals[i] = _total(found, i)
        matched = sum(1 for unit, entry in found if len(unit) == 1 and i in entry.weights)
        coordination[i] = (matched / len(stems)) ** COORDINATION if coordinate else 1.0
    hits: list[Hit] = []
    label = labels or {}
    for score, i in scored:
        fact = scan.fact_at(i)
        matches = tuple(
            Bm25Match(
                " ".join(label.get(part, part) for part in unit.split(" ")),
                (f[0].get(i, 0), f[1].get(i, 0), f[2].get(i, 0)),
                w[i],
            )
            for unit, f, w in per_term
            if i in w
        )
        hit = Bm25Hit(
            fact,
            score,
            totals[i],
            TYPE_MULTIPLIER.get(fact.type, 1.0),
            CONFIDENCE_MULTIPLIER.get(fact.confidence, 1.0),
            matches,
        )
        hit.coordination = coordination.get(i, 1.0)
        hit.coverage = round(totals[i] * hit.coordination / ceiling, 9) if ceiling else 0.0
        hits.append(hit)
    return hits
