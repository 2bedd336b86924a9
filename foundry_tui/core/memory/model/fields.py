"""The searchable fields of facts: title, tags and body, lowercased, each field of many facts
joined into one string (`FieldIndex`), and the index-free scan over them (`ScanFields`) that the
storage's snapshot builds and the rankers search (the spec's points: +3 title, +2 tags, +1 body)."""

from __future__ import annotations

import bisect
import heapq
import itertools
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from itertools import compress, repeat
from operator import contains, ge, mul

from foundry_tui.core.memory.model.facts import Fact
from foundry_tui.core.memory.model.hits import Hit, TermMatch, multiplier, score_fact, tie_break

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is no import of the hook's start-up path
    from typing import AnyStr, Protocol

    class Haystack(Protocol[AnyStr]):
        """What a term search reads: a joined field in memory (str or bytes), or the snapshot
        file's body field read a window at a time (storage/snapshot.py, FileField)."""

        def find(self, sub: AnyStr, start: int = ..., /) -> int: ...
        def __len__(self) -> int: ...
        def __getitem__(self, key: slice, /) -> AnyStr: ...


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


def field_index(texts: list[str]) -> tuple[str, list[int]] | None:
    """All texts lowercased in one C call, joined by NUL, with each text's start offset;
    None when that shortcut is unsafe (lowercasing changed a length, or a text holds NUL)."""
    joined = "\0".join(texts)
    lowered = joined.lower()
    if len(lowered) != len(joined) or joined.count("\0") != len(texts) - 1:
        return None
    starts = [0, *itertools.accumulate(len(t) + 1 for t in texts)]
    return lowered, starts


def containing(
    blob: Haystack[AnyStr], starts: list[int], term: AnyStr, texts: Callable[[int, int], list[AnyStr]] | None = None
) -> set[int]:
    """Indexes of the texts in `blob` that contain `term` (both text, or both UTF-8 with `starts`
    in bytes: a UTF-8 string is in another exactly where its text is, so the same indexes):
    one C-level find per matching text;
    past one text in DENSE_SHARE, with `texts` (texts(a, b): the blob's texts a to b-1), one
    C-level test per text instead, DENSE_CHUNK texts at a time (a word in 40% of the facts:
    no Python step per hit, and never a copy of the whole blob split into its texts)."""
    found: set[int] = set()
    count = len(starts) - 1
    dense_from = count // DENSE_SHARE if texts is not None else -1
    pos = blob.find(term)
    while pos != -1:
        # Dense from dense_from hits on, or sooner when the first hits foretell as many.
        hits = len(found)
        if texts is not None and (hits == dense_from or (hits == PROBE_HITS and hits * len(blob) > dense_from * pos)):
            found = set()
            for a in range(0, count, DENSE_CHUNK):
                b = min(a + DENSE_CHUNK, count)
                found.update(compress(range(a, b), map(contains, texts(a, b), repeat(term))))
            return found
        i = bisect.bisect_right(starts, pos) - 1
        found.add(i)
        pos = blob.find(term, starts[i + 1])
    return found


DENSE_SHARE = 16
PROBE_HITS = 32
# Texts split off a blob at a time by a dense search (body texts: a few MB, where the whole
# split held a second copy of the blob, 70 MB at 100,000 facts).
DENSE_CHUNK = 4096


FieldIndex = tuple[str, list[int]]
# A field as the snapshot file holds it: the joined text in UTF-8 (surrogatepass), starts in bytes.
EncodedField = tuple["Haystack[bytes]", list[int]]
EncodedFields = tuple[EncodedField, EncodedField, EncodedField]
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
        *,
        fields_of: Callable[[], tuple[FieldIndex, FieldIndex, FieldIndex] | None] | None = None,
        encoded: Callable[[], EncodedFields | None] | None = None,
    ) -> None:
        # With `fields_of`, the fields are asked for when first needed (`fields` is then None);
        # with `encoded`, term searches use its bytes while it gives them (the snapshot's, before
        # anything decodes its text), else the text.
        self._fields = fields
        self._fields_of = fields_of
        self._encoded = encoded
        self.fact_at = fact_at
        self.weight_at = weight_at
        self.order_at = order_at
        self.count = count
        self.eligible = eligible
        self.bm25_stats: object = None  # the bm25 ranker's field lengths, computed once (bm25.py)
        self.dense_cache: object = None  # the hybrid ranker's fingerprints and vectors by position (search/hybrid.py)
        # The positions holding a term, per field, from persisted word postings (search/word_postings.py,
        # set by the Project on a snapshot's scan); None from it: scan for that term as without it.
        self.words: Callable[[str], tuple[set[int], set[int], set[int]] | None] | None = None
        self._sets: dict[str, tuple[set[int], set[int], set[int]]] = {}  # the last terms' matches
        self._texts: list[list[str] | None] = [None, None, None]  # each field split into its texts, once needed
        self._weights: list[float] | None = None  # weight_at of every position, once many are needed

    @property
    def fields(self) -> tuple[FieldIndex, FieldIndex, FieldIndex] | None:
        """The joined lowercased title, tags and body (None: unsafe to join, see field_index)."""
        if self._fields_of is not None:
            self._fields, self._fields_of = self._fields_of(), None
        return self._fields

    @classmethod
    def of(cls, facts: list[Fact]) -> ScanFields:
        """Over a list of facts already in memory."""
        return cls(
            join_fields(facts),
            facts.__getitem__,
            lambda i: multiplier(facts[i]),
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
        looked_up = self.words(term) if self.words is not None else None
        encoded = self._encoded() if self._encoded is not None and looked_up is None else None
        if looked_up is not None:
            title, tags, body = looked_up
        elif encoded is not None:
            needle = term.encode("utf-8", "surrogatepass")
            title, tags, body = (
                containing(blob, starts, needle, partial(_encoded_between, blob, starts)) for blob, starts in encoded
            )
        elif self.fields is not None:
            title, tags, body = (
                containing(blob, starts, term, partial(self._texts_between, field))
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

    def field_texts(self, field: int) -> list[str]:
        """Each fact's lowercased `field` (0 title, 1 tags one per line, 2 body), by position."""
        if self.fields is not None:
            return self._split(field)
        return [search_fields(self.fact_at(i))[field] for i in range(self.count)]

    def _texts_between(self, field: int, a: int, b: int) -> list[str]:
        """The texts a to b-1 of `field`: from its split when kept, else cut from its blob."""
        texts = self._texts[field]
        if texts is not None:
            return texts[a:b]
        assert self.fields is not None
        blob, starts = self.fields[field]
        return blob[starts[a] : starts[b] - 1].split("\0")

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


def _encoded_between(blob: Haystack[bytes], starts: list[int], a: int, b: int) -> list[bytes]:
    """The texts a to b-1 of an encoded field."""
    return blob[starts[a] : starts[b] - 1].split(b"\0")


def join_fields(facts: list[Fact]) -> tuple[FieldIndex, FieldIndex, FieldIndex] | None:
    """The title, tags and body of `facts` as three lowercased joined strings (None if unsafe)."""
    title = field_index([f.title for f in facts])
    tags = field_index(["\n".join(f.tags) for f in facts])
    body = field_index([f.body for f in facts])
    if title is None or tags is None or body is None:
        return None
    return title, tags, body
