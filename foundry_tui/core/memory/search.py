"""Keyword retrieval (spec 000, "How retrieval scores", with the term rules of ADR 0007).

A query is lowercased and split on every character that is not a letter or digit;
terms shorter than three characters, stop words (stopwords.py) and repeats are dropped. A term matches a field
when it occurs in that field, lowercased, as a substring: +3 title, +2 any tag,
+1 body; then x1.2 for decision or constraint and x1.15 / x1.0 / x0.8 for confidence.
Order: score descending, then the index's type order, then newest id first.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from itertools import compress, repeat
from operator import contains, ge, mul
from typing import Protocol

from foundry_tui.core.errors import InputError
from foundry_tui.core.memory.facts import Fact, escape_controls
from foundry_tui.core.memory.stopwords import STOP_WORDS
from foundry_tui.core.memory.vocabulary import TYPE_RANK

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as _dt

    from foundry_tui.core.memory.project import Project

TERM_RE = re.compile(r"[^\W_]+")
MIN_TERM_CHARS = 3
FIELD_WEIGHTS = (3, 2, 1)  # title, tags, body
TYPE_MULTIPLIER = {"decision": 1.2, "constraint": 1.2}
CONFIDENCE_MULTIPLIER = {"high": 1.15, "medium": 1.0, "low": 0.8}
# What one hit may carry of its body in a reply (memory_search, the prompt hook): a body
# within the 120-word limit is under a thousand characters; a hand-written one far over it
# must not flood the agent's context.
MAX_SERVED_BODY_CHARS = 2000


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


def lowered_text(fact: Fact) -> str:
    """The fact's title, tags (one per line) and body, lowercased and joined by NUL."""
    return f"{fact.title}\0{chr(10).join(fact.tags)}\0{fact.body}".lower()


def search_text(fact: Fact) -> str:
    """lowered_text(fact), cached on the fact."""
    text = fact.search_text
    if text is None:
        text = fact.search_text = lowered_text(fact)
    return text


def search_fields(fact: Fact) -> tuple[str, str, str]:
    """The lowercased title, tags and body that terms are matched in."""
    title, tags, body = search_text(fact).split("\0", 2)
    return title, tags, body


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

    ranker = "spec"

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


def _multiplier(fact: Fact) -> float:
    return TYPE_MULTIPLIER.get(fact.type, 1.0) * CONFIDENCE_MULTIPLIER.get(fact.confidence, 1.0)


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
        if round(points * _multiplier(candidate), 9) >= min_score:
            hits.append(score_fact(candidate, [TermMatch(*m) for m in marks if m[1] or m[2] or m[3]]))
    return hits


def _field_index(texts: list[str]) -> tuple[str, list[int]] | None:
    """All texts lowercased in one C call, joined by NUL, with each text's start offset;
    None when that shortcut is unsafe (lowercasing changed a length, or a text holds NUL)."""
    joined = "\0".join(texts)
    lowered = joined.lower()
    if len(lowered) != len(joined) or joined.count("\0") != len(texts) - 1:
        return None
    starts = [0, *itertools.accumulate(len(t) + 1 for t in texts)]
    return lowered, starts


def _containing(blob: str, starts: list[int], term: str, texts: Callable[[], list[str]] | None = None) -> set[int]:
    """Indexes of the texts in `blob` that contain `term`: one C-level find per matching text;
    past one text in DENSE_SHARE, with `texts` (the blob split into its texts), one C-level
    test per text instead (a word in 40% of the facts: no Python step per hit)."""
    found: set[int] = set()
    count = len(starts) - 1
    dense_from = count // DENSE_SHARE if texts is not None else -1
    pos = blob.find(term)
    while pos != -1:
        # Dense from dense_from hits on, or sooner when the first hits foretell as many.
        hits = len(found)
        if texts is not None and (hits == dense_from or (hits == PROBE_HITS and hits * len(blob) > dense_from * pos)):
            return set(compress(range(count), map(contains, texts(), repeat(term))))
        i = bisect.bisect_right(starts, pos) - 1
        found.add(i)
        pos = blob.find(term, starts[i + 1])
    return found


DENSE_SHARE = 16
PROBE_HITS = 32


FieldIndex = tuple[str, list[int]]
TERM_SETS_KEPT = 64  # terms whose matching facts a scan keeps (the hook asks twice per term)


class ScanFields:
    """Every field of a set of facts as one lowercased string each, for searching
    without an index: a query costs a few C-level scans, not a Python loop per fact.

    Facts are addressed by position; `fact_at` materialises one (so a snapshot can
    answer without building every Fact), `weight_at` gives its type x confidence
    multiplier, `order_at` its (type rank, -number) tie-break, and `eligible` (when
    given) limits the positions that may match."""

    def __init__(
        self,
        fields: tuple[FieldIndex, FieldIndex, FieldIndex] | None,
        fact_at: Callable[[int], Fact],
        weight_at: Callable[[int], float],
        order_at: Callable[[int], tuple[int, int]],
        count: int,
        eligible: set[int] | None = None,
    ) -> None:
        self.fields = fields
        self.fact_at = fact_at
        self.weight_at = weight_at
        self.order_at = order_at
        self.count = count
        self.eligible = eligible
        self.bm25_stats: object = None  # the bm25 ranker's field lengths, computed once (bm25.py)
        self._sets: dict[str, tuple[set[int], set[int], set[int]]] = {}  # the last terms' matches
        self._texts: list[list[str] | None] = [None, None, None]  # each field split into its texts, once needed
        self._weights: list[float] | None = None  # weight_at of every position, once many are needed

    @classmethod
    def of(cls, facts: list[Fact]) -> ScanFields:
        """Over a list of facts already in memory."""
        return cls(
            join_fields(facts),
            facts.__getitem__,
            lambda i: _multiplier(facts[i]),
            lambda i: tie_break(facts[i].type, facts[i].id),
            len(facts),
        )

    def _term_sets(self, term: str) -> tuple[set[int], set[int], set[int]]:
        found = self._sets.get(term)
        if found is None:
            if len(self._sets) >= TERM_SETS_KEPT:
                self._sets.clear()
            found = self._sets[term] = self._find_term(term)
        return found

    def document_frequency(self, term: str) -> int:
        """How many of the searchable facts contain `term` in any field."""
        title, tags, body = self._term_sets(term)
        return len(title | tags | body)

    def _find_term(self, term: str) -> tuple[set[int], set[int], set[int]]:
        if self.fields is not None:
            title, tags, body = (
                _containing(blob, starts, term, partial(self._split, field))
                for field, (blob, starts) in enumerate(self.fields)
            )
        else:  # rare text (e.g. 'İ' changes length when lowercased): test fact by fact
            title, tags, body = set(), set(), set()
            for i in range(self.count):
                t, g, b = search_fields(self.fact_at(i))
                if term in t:
                    title.add(i)
                if term in g:
                    tags.add(i)
                if term in b:
                    body.add(i)
        if self.eligible is not None:
            title &= self.eligible
            tags &= self.eligible
            body &= self.eligible
        return title, tags, body

    def _split(self, field: int) -> list[str]:
        texts = self._texts[field]
        if texts is None:
            assert self.fields is not None
            texts = self._texts[field] = self.fields[field][0].split("\0")
        return texts

    def match(self, terms: Sequence[str], min_score: float, limit: int | None = None) -> list[Hit]:
        """Hits scoring at least `min_score`; with `limit`, only the best `limit` of them are
        materialised (the order is rank()'s, so ranking them again changes nothing).

        Every step is a C-level pass (Counter, map) over the hits, not a Python step per hit:
        a query whose words each occur in 40% of the facts costs a few passes."""
        per_term = [(term, *self._term_sets(term)) for term in terms]
        points: Counter[int] = Counter()
        for _term, in_title, in_tags, in_body in per_term:
            for bucket, weight in ((in_title, 3), (in_tags, 2), (in_body, 1)):
                for _ in range(weight):
                    points.update(bucket)
        positions = list(points)
        if len(positions) * 4 > self.count:  # many hits: every weight at once (then kept)
            if self._weights is None:
                self._weights = list(map(self.weight_at, range(self.count)))
            weights: Iterable[float] = map(self._weights.__getitem__, positions)
        else:
            weights = map(self.weight_at, positions)
        # round(total * weight, 9), as before, in C: the same float operations in the same order.
        scores = list(map(round, map(mul, points.values(), weights), repeat(9)))
        scored = list(compress(zip(scores, positions, strict=True), map(ge, scores, repeat(min_score))))
        if limit is not None and len(scored) > limit:
            # Only the hits scoring at least the limit-th best score can be in the top (ties included).
            floor = heapq.nlargest(limit, scores)[-1]
            scored = [si for si in scored if si[0] >= floor]
            order_at = self.order_at
            scored = heapq.nsmallest(limit, scored, key=lambda si: (-si[0], *order_at(si[1])))
        hits = []
        for _score, i in scored:
            marks = [TermMatch(t, i in a, i in g, i in b) for t, a, g, b in per_term]
            hits.append(score_fact(self.fact_at(i), [m for m in marks if m.points]))
        return hits


def join_fields(facts: list[Fact]) -> tuple[FieldIndex, FieldIndex, FieldIndex] | None:
    """The title, tags and body of `facts` as three lowercased joined strings (None if unsafe)."""
    title = _field_index([f.title for f in facts])
    tags = _field_index(["\n".join(f.tags) for f in facts])
    body = _field_index([f.body for f in facts])
    if title is None or tags is None or body is None:
        return None
    return title, tags, body


def tie_break(ftype: str, fact_id: str) -> tuple[int, int]:
    """After the score: the index's type order, then the newest id first (the reverse of
    facts.id_order; by number here, as a string key cannot be negated)."""
    return (TYPE_RANK.get(ftype, 99), -int(fact_id[5:]))


def _rank_key(score: float, fact: Fact) -> tuple[float, int, int]:
    return (-score, *tie_break(fact.type, fact.id))


def rank(hits: Iterable[Hit], limit: int, min_score: float) -> list[Hit]:
    """The best `limit` hits scoring at least `min_score`, in the product's order."""
    eligible = [h for h in hits if h.score >= min_score]
    return heapq.nsmallest(limit, eligible, key=lambda h: _rank_key(h.score, h.fact))


def served_body(body: str) -> str:
    """The body as a reply carries it: cut at MAX_SERVED_BODY_CHARS, saying so."""
    if len(body) <= MAX_SERVED_BODY_CHARS:
        return body
    rest = len(body) - MAX_SERVED_BODY_CHARS
    from foundry_tui.core.memory.vocabulary import MAX_BODY_WORDS

    return (
        f"{body[:MAX_SERVED_BODY_CHARS]}… [{rest} more characters not shown: this fact is far over the "
        f"{MAX_BODY_WORDS}-word limit; split it]"
    )


def render_hit(hit: Hit, explain: bool = False) -> str:
    """The spec's block for one hit."""
    fact = hit.fact
    # A hand-written fact's control characters are shown as escapes, never sent raw.
    lines = [
        f"### {fact.id} · {fact.type} · confidence {fact.confidence}",
        f"**{escape_controls(fact.title)}**",
        escape_controls(served_body(fact.body), keep_lines=True),
        f"_source: {escape_controls(fact.source)} · scope: {escape_controls(fact.scope)}_",
    ]
    if explain:
        lines.append(hit.explain())
    return "\n".join(lines)


NO_TERMS_HINT = (
    'Every word of the query is too short or too common to search for (such as "the", "which", "how"): '
    "search with the words that name what you need, such as a tool, a service or a topic."
)


# The no-hit reply quotes the query (spec 002: No stored fact matches "<query>". ...): its first
# MAX_QUOTED_QUERY_CHARS characters, then "…" only when it is longer, so a pasted log of 150,000
# words is not echoed back whole. A query within the bound is quoted exactly as the spec says.
MAX_QUOTED_QUERY_CHARS = 200


def quoted_query(query: str) -> str:
    """The query as a reply quotes it: whole up to MAX_QUOTED_QUERY_CHARS, else cut there and "…" added."""
    return query if len(query) <= MAX_QUOTED_QUERY_CHARS else query[:MAX_QUOTED_QUERY_CHARS] + "…"


def no_hit_reply(query: str, active_count: int) -> str:
    """Spec 002's reply when nothing matches, exactly."""
    return f'No stored fact matches "{quoted_query(query)}". Memory holds {active_count} active facts.'


def render_results(hits: Sequence[Hit], query: str, active_count: int, explain: bool = False) -> str:
    """The memory_search reply: one block per hit, separated by a blank line; with no hits, the spec's reply."""
    if not hits:
        return no_hit_reply(query, active_count)
    return "\n\n".join(render_hit(hit, explain) for hit in hits)


def search_hint(project: Project, query: str, hits: Sequence[Hit], ranker: str | None = None) -> str:
    """NO_TERMS_HINT when nothing matched because every word of `query` was dropped, else "".
    Never part of the reply (the spec's text is exact): the CLI prints it on stderr, --explain after the reply."""
    return "" if hits or project.has_terms(query, ranker) else NO_TERMS_HINT


def _check_query(query: str) -> str:
    if not query.strip():
        raise InputError("query is empty: give keywords describing what you need to know")
    return query


def memory_search(
    project: Project,
    query: str,
    today: _dt.date,
    *,
    type: str | None = None,
    limit: int | None = None,
    explain: bool = False,
    ranker: str | None = None,
) -> tuple[str, list[Hit]]:
    """The memory_search reply text and its hits (ranked by `ranker`, else the configured one);
    with `explain`, search_hint's line follows a no-hit reply. The first page of search_page."""
    page = search_page(project, query, today, type=type, limit=limit, explain=explain, ranker=ranker)
    return page.text, page.hits


class SearchPage:
    """One page of a search: the reply text, its hits, the rank its first hit has (0 on the
    first page), the ranker's name, and the cursor of the next page (None when there is none)."""

    __slots__ = ("hits", "next_cursor", "offset", "ranker", "text")

    def __init__(self, text: str, hits: list[Hit], offset: int, ranker: str, next_cursor: str | None) -> None:
        self.text = text
        self.hits = hits
        self.offset = offset
        self.ranker = ranker
        self.next_cursor = next_cursor


def continuation_line(cursor: str) -> str:
    """The line a page asked for with a budget or a cursor ends with when more hits follow."""
    return f'More facts match: for the next page, search again with cursor "{cursor}".'


def past_the_end_reply(query: str, offset: int) -> str:
    """A cursor's page that finds nothing left (the memory changed since the page before)."""
    return f'No more facts match "{quoted_query(query)}" past the first {offset}.'


def search_page(
    project: Project,
    query: str,
    today: _dt.date,
    *,
    type: str | None = None,
    limit: int | None = None,
    explain: bool = False,
    ranker: str | None = None,
    max_tokens: int | None = None,
    cursor: str | None = None,
) -> SearchPage:
    """A page of memory_search (the MCP tool and `foundry memory search` both): at most `limit`
    hits (default memoryRetrieval.maxFacts), and with `max_tokens` only as many as keep the
    reply within that many tokens (core/tokens.py), but always one. `cursor` (a page's
    next_cursor, search_cursor.py) starts where that page ended, with its type, limit and
    budget unless the call gives its own. Pages reach MAX_DEPTH hits deep, as far as the
    largest limit does. Without a budget or a cursor the text is spec 002's reply exactly,
    and never says a next page exists (the structured reply does)."""
    from foundry_tui.core.memory.search_cursor import MAX_DEPTH, MAX_TOKENS, Cursor, decode_cursor

    _check_query(query)
    if max_tokens is not None and not 1 <= max_tokens <= MAX_TOKENS:
        raise InputError(f"max_tokens {max_tokens} is out of range: use a whole number from 1 to {MAX_TOKENS}")
    ranker_name = project.ranker(ranker)
    offset = 0
    if cursor is not None:
        at = decode_cursor(cursor, query, ranker_name, type)
        offset, type = at.offset, at.type
        limit = at.limit if limit is None else limit
        max_tokens = at.max_tokens if max_tokens is None else max_tokens
    page_size = project.config().max_facts if limit is None else limit
    if not 1 <= page_size <= MAX_DEPTH:
        raise InputError(f"limit {page_size} is out of range: use a whole number from 1 to {MAX_DEPTH}")
    paging = cursor is not None or max_tokens is not None
    project.sync()
    # One hit past the page says whether another page exists; rankings are a total order, so
    # a deeper search starts with the same hits as a shallower one.
    depth = min(offset + page_size + 1, MAX_DEPTH)
    found = project.search(query, today, type=type, limit=depth, ranker=ranker_name)
    blocks = [render_hit(hit, explain) for hit in found[offset : offset + page_size]]

    def next_cursor(shown: int) -> str | None:
        end = offset + shown
        return Cursor(end, page_size, max_tokens, type).encode(query, ranker_name) if end < len(found) else None

    shown = len(blocks)
    if max_tokens is not None:
        shown = _within_budget(blocks, max_tokens, next_cursor)
    following = next_cursor(shown)
    hits = found[offset : offset + shown]
    if hits:
        text = "\n\n".join(blocks[:shown])
        if paging and following is not None:
            text += "\n\n" + continuation_line(following)
    elif offset:
        text = past_the_end_reply(query, offset)
    else:
        text = no_hit_reply(query, project.active_count(today))
        hint = search_hint(project, query, hits, ranker_name) if explain else ""
        text = f"{text}\n{hint}" if hint else text
    return SearchPage(text, hits, offset, ranker_name, following)


def _within_budget(blocks: list[str], max_tokens: int, next_cursor: Callable[[int], str | None]) -> int:
    """How many of `blocks` a page shows within `max_tokens`, its continuation line counted:
    the most that fit, and at least one (a page that showed none would never move on)."""
    from foundry_tui.core.tokens import tokens_for_chars

    chars, fits = 0, 1
    for count, block in enumerate(blocks, start=1):
        chars += len(block) + (2 if count > 1 else 0)
        following = next_cursor(count)
        line = 2 + len(continuation_line(following)) if following is not None else 0
        if tokens_for_chars(chars + line) > max_tokens:
            break
        fits = count
    return fits


# What the prompt hook injects, per ranker (chosen on the tuning prompts and questions of
# benchmarks/data/, ADR 0025): among the ranker's best
# PROMPT_CANDIDATES hits, in the ranker's order, the first `limit` that are relevant.
# spec: a hit scoring at least PROMPT_MIN_SCORE whose terms carry at least PROMPT_MIN_SHARE of
# the prompt's rarity (the idf-weighted share of the prompt's terms it holds, so a fact that
# matches only the prompt's common words, however often, stays out); bm25: a hit whose BM25
# sum is at least PROMPT_MIN_COVERAGE of the most the prompt's words could score (raw scores
# grow with the size of the memory; both fractions do not). When no hit clears that bar, the
# hits whose tags hold PROMPT_TAG_TERMS of the prompt's words, each in at most
# PROMPT_TAG_MAX_SHARE of the active facts, are injected instead: words the memory has never
# seen weigh most in both fractions and may argue for silence, but two of one fact's tags named
# in a prompt say what it is about (issue 28, chosen on the tuning sets and '*_tags_tuning' of
# benchmarks/data/hook_prompts.json; a fallback, so a prompt that already finds its fact keeps it first).
PROMPT_CANDIDATES = 25
PROMPT_MIN_SCORE = 2.0
PROMPT_MIN_SHARE = 0.45
PROMPT_MIN_COVERAGE = 0.15
PROMPT_TAG_TERMS = 2
PROMPT_TAG_MAX_SHARE = 0.15
PROMPT_TAG_MIN_FACTS = 2


def inverse_document_frequency(df: int, count: int) -> float:
    """BM25's idf: ln(1 + (N - df + 0.5) / (df + 0.5)), always positive."""
    return math.log(1 + (count - df + 0.5) / (df + 0.5))


def rarity_share(hit: Hit, idf: Mapping[str, float]) -> float:
    """The share of the query's rarity that `hit` holds: the idf of the terms it matches over
    the idf of every term of the query (`idf`: term -> idf)."""
    total = sum(idf.values())
    return sum(idf.get(m.term, 0.0) for m in hit.matches) / total if total else 0.0


def tag_terms(hit: Hit) -> list[str]:
    """The distinct words of the query that are words of `hit`'s tags: for bm25, its tag
    matches (whole words, stemmed; a pair of adjacent words is not one more); for the spec
    ranker, whose matches are substrings ("fix" in "fixtures"), a term that is a word of a tag
    or that word with or without a final "s"."""
    if hit.ranker == "bm25":
        return list(dict.fromkeys(m.term for m in hit.matches if m.tags and " " not in m.term))
    words = {word for tag in hit.fact.tags for word in TERM_RE.findall(tag.lower())}
    return [m.term for m in hit.matches if m.tags and not words.isdisjoint((m.term, m.term + "s", m.term[:-1]))]


def tagged(project: Project, hits: Sequence[Hit], today: _dt.date) -> list[Hit]:
    """The hits (in their order) whose tags hold at least PROMPT_TAG_TERMS of the query's words,
    each in at most PROMPT_TAG_MAX_SHARE of the active facts (or PROMPT_TAG_MIN_FACTS of them,
    for a small memory): "second" and "file" name no subject, "postgres" and "migrations" do."""
    candidates = [(h, terms) for h in hits if len(terms := tag_terms(h)) >= PROMPT_TAG_TERMS]
    if not candidates:
        return []
    count, frequency = project.term_frequency(sorted({t for _h, terms in candidates for t in terms}), today)
    most = max(PROMPT_TAG_MIN_FACTS, PROMPT_TAG_MAX_SHARE * count)
    return [h for h, terms in candidates if sum(frequency[t] <= most for t in terms) >= PROMPT_TAG_TERMS]


def prompt_hits(project: Project, prompt: str, today: _dt.date, limit: int) -> list[Hit]:
    """The facts the prompt hook injects for `prompt`: the configured ranker's best hits that clear its relevance bar."""
    ranker = project.ranker()
    if ranker == "bm25":
        hits = project.search(prompt, today, limit=PROMPT_CANDIDATES, min_score=0.0, ranker=ranker)
        relevant = [h for h in hits if getattr(h, "coverage", 0.0) >= PROMPT_MIN_COVERAGE]
        return (relevant or tagged(project, hits, today))[:limit]
    hits = project.search(prompt, today, limit=PROMPT_CANDIDATES, min_score=PROMPT_MIN_SCORE, ranker=ranker)
    if not hits:
        return []
    idf = project.term_idf(query_terms(prompt), today)
    relevant = [h for h in hits if rarity_share(h, idf) >= PROMPT_MIN_SHARE]
    return (relevant or tagged(project, hits, today))[:limit]
