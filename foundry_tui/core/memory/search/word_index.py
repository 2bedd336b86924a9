"""An in-memory word index for the spec ranker in long-lived processes (MCP server, TUI).

A search term is letters and digits only, so it occurs in a field exactly when it
occurs inside one of the field's words (maximal runs of letters and digits). The
index maps each word to the facts holding it, per field, and finds the words that
contain a term with one C-speed scan of the joined vocabulary.

Postings are arrays of fact numbers (`fact-0042` is 42; 4 bytes each) for rare words
and integer bitsets (bit 42) for common ones, so a term in 40% of the facts is a few
big-integer ORs, not a loop over its hits. Nothing else is kept per fact but the fact
itself: its words are found again from its text when it is removed (the store never
changes a Fact it holds: a change is a new Fact), so the index costs its postings, not
a set of words per fact (issue 13: 170 MB at 100,000 facts, from 1.5 GB). The spec's
points (+3 title, +2 tags, +1 body per term) are added as bit-sliced counters (one
bitset per bit of the points), and the top N are read off by score class (points x
the type/confidence multiplier of each (type, confidence) pair), newest first within
a class: the cost of a query grows with its terms, not with how many facts they match.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterable, Mapping

from foundry_tui.core.collector_hold import hold, release
from foundry_tui.core.memory.model.facts import Fact
from foundry_tui.core.memory.model.fields import lowered_text
from foundry_tui.core.memory.model.hits import CONFIDENCE_MULTIPLIER, TYPE_MULTIPLIER, Hit, TermMatch, score_fact
from foundry_tui.core.memory.model.vocabulary import TYPE_RANK
from foundry_tui.core.memory.search.spec import MIN_TERM_CHARS

# A rare word's facts as an array of their numbers ("I": 4 bytes each), a common word's as a bitset.
TYPE_CHECKING = False
if TYPE_CHECKING:
    Posting = array[int] | int
else:
    Posting = object  # array is not subscriptable at run time before Python 3.12
Postings = dict[str, Posting]
# Maximal runs of letters and digits at least MIN_TERM_CHARS long: shorter words can
# never contain a search term, so they are not indexed.
_WORD_RE = re.compile(rf"[^\W_]{{{MIN_TERM_CHARS},}}")
# An array with more members than 1/BITSET_RATIO of the facts becomes a bitset: from there on
# its unions run in C over machine words, not as a Python step per member (the query's cost).
BITSET_RATIO = 256


def _field_words(fact: Fact) -> tuple[set[str], set[str], set[str]]:
    """The distinct words of the fact's title, tags and body, lowercased as search matches them
    (without keeping the lowercased text on the fact: the index holds every fact)."""
    text = fact.search_text
    title, tags, body = (text if text is not None else lowered_text(fact)).split("\0", 2)
    findall = _WORD_RE.findall
    return set(findall(title)), set(findall(tags)), set(findall(body))


def _posting(numbers: list[int], threshold: int) -> Posting:
    """The compact posting of `numbers`: a bitset past `threshold` members, else an array."""
    if len(numbers) > threshold:
        return bits_of(numbers)
    try:
        return array("I", numbers)
    except OverflowError:  # a number past 2**32 - 1 (fact-4294967296): 8 bytes each
        return array("Q", numbers)


def bits_of(numbers: Iterable[int]) -> int:
    """A bitset with the given bit numbers set."""
    nums = numbers if isinstance(numbers, (set, frozenset, list, tuple, array)) else list(numbers)
    if len(nums) < 16:
        out = 0
        for n in nums:
            out |= 1 << n
        return out
    buf = bytearray((max(nums) >> 3) + 1)
    for n in nums:
        buf[n >> 3] |= 1 << (n & 7)
    return int.from_bytes(buf, "little")


def numbers_of(bits: int, limit: int | None = None) -> list[int]:
    """The set bits of `bits`, highest first (at most `limit` of them)."""
    out: list[int] = []
    while bits and (limit is None or len(out) < limit):
        top = bits.bit_length() - 1
        out.append(top)
        bits ^= 1 << top
    return out


def _add_at(slices: list[int], bits: int, k: int) -> None:
    """Add `bits` x 2**k to the bit-sliced counters."""
    carry = bits
    while len(slices) < k:
        slices.append(0)
    while carry:
        if k == len(slices):
            slices.append(carry)
            return
        current = slices[k]
        slices[k] = current ^ carry
        carry &= current
        k += 1


class SearchIndex:
    """Words → fact numbers, for titles, tags and bodies; kept in step with a FactStore."""

    def __init__(self) -> None:
        self._postings: tuple[Postings, Postings, Postings] = ({}, {}, {})
        # id -> (the fact, the ids it retires, its expiry, its number), as indexed
        self._indexed: dict[str, tuple[Fact, tuple[str, ...], str | None, int]] = {}
        self._by_number: dict[int, Fact] = {}
        self._classes: dict[tuple[str, str], Posting] = {}  # (type, confidence) -> facts
        self._vocabulary: str | None = None
        self._bulk = False
        self._threshold = 64
        self.generation = -1
        self._eligible: tuple[object, str | None, int] | None = None
        # What makes a fact inactive, kept with every add and removal (as FactStore derives it):
        # the ids other facts retire (with how many name each), and the facts that expire.
        self._replaced: dict[str, int] = {}
        self._expiring: dict[str, str] = {}
        self._active: tuple[str, str | None, int] | None = None
        # The bits of the indexed facts that are retired, and of those expired on a day: kept
        # bit by bit with each add and removal (None: worked out again from the dicts above).
        self._retired_bits: int | None = None
        self._expired: tuple[str, int] | None = None
        # Where the index stands in its store's journal of changed ids (Project keeps it).
        self.journal_mark: tuple[int, int] | None = None

    def __len__(self) -> int:
        return len(self._indexed)

    @property
    def clashes(self) -> bool:
        """Whether two ids share a number (fact-0042 and fact-00042): bit 42 cannot stand for
        both, so Project searches by scanning until one is gone."""
        return len(self._by_number) != len(self._indexed)

    # ---- maintenance ---------------------------------------------------------------------

    def _put(self, table: dict[str, Posting] | dict[tuple[str, str], Posting], key: object, n: int) -> None:
        bucket = table.get(key)  # type: ignore[call-overload]
        if bucket is None:
            table[key] = _posting([n], self._threshold)  # type: ignore[index]
            if isinstance(key, str):
                self._vocabulary = None
        elif isinstance(bucket, int):
            table[key] = bucket | (1 << n)  # type: ignore[index]
        else:
            try:
                bucket.append(n)  # a fact's words are distinct and it is removed before it is re-added
            except OverflowError:  # past 2**32 - 1: 8 bytes each
                table[key] = bucket = array("Q", bucket)  # type: ignore[index]
                bucket.append(n)
            if not self._bulk and len(bucket) > self._threshold:
                table[key] = bits_of(bucket)  # type: ignore[index]

    def _take(self, table: dict[str, Posting] | dict[tuple[str, str], Posting], key: object, n: int) -> None:
        bucket = table.get(key)  # type: ignore[call-overload]
        if bucket is None:
            return
        if isinstance(bucket, int):
            bucket &= ~(1 << n)
            table[key] = bucket  # type: ignore[index]
        else:
            while n in bucket:  # as a set's discard: two ids of one number share it (see clashes)
                bucket.remove(n)
        if not bucket:
            del table[key]  # type: ignore[arg-type]
            if isinstance(key, str):
                self._vocabulary = None

    def add(self, fact: Fact) -> None:
        if fact.id in self._indexed:
            self.remove(fact.id)
        n = fact.number
        for postings, field_words in zip(self._postings, _field_words(fact), strict=True):
            for word in field_words:
                self._put(postings, word, n)
        self._put(self._classes, (fact.type, fact.confidence), n)
        retired = tuple(old for old in fact.replaced_ids() if old != fact.id)
        indexed = self._indexed
        dead = 1 << n if fact.id in self._replaced else 0
        for old in retired:
            self._replaced[old] = self._replaced.get(old, 0) + 1
            entry = indexed.get(old)
            if entry is not None:
                dead |= 1 << entry[3]
        if self._retired_bits is not None:
            self._retired_bits |= dead
        if fact.expires is not None:
            self._expiring[fact.id] = fact.expires
            if self._expired is not None and fact.expires < self._expired[0]:
                self._expired = (self._expired[0], self._expired[1] | 1 << n)
        indexed[fact.id] = (fact, retired, fact.expires, n)
        self._by_number[n] = fact
        self._changed()

    def _changed(self) -> None:
        self._eligible = None
        self._active = None
        if self.clashes:  # two facts share a bit: work the bits out afresh once they do not
            self._retired_bits = None
            self._expired = None

    def remove(self, fact_id: str) -> None:
        entry = self._indexed.pop(fact_id, None)
        if entry is None:
            return
        fact, retired, expires, n = entry
        for postings, field_words in zip(self._postings, _field_words(fact), strict=True):
            for word in field_words:
                self._take(postings, word, n)
        self._take(self._classes, (fact.type, fact.confidence), n)
        indexed = self._indexed
        alive = 1 << n if fact_id in self._replaced else 0  # the fact is gone: its bit is clear
        for old in retired:
            left = self._replaced[old] - 1
            if left:
                self._replaced[old] = left
            else:
                del self._replaced[old]
                entry = indexed.get(old)
                if entry is not None:
                    alive |= 1 << entry[3]
        if self._retired_bits is not None:
            self._retired_bits &= ~alive
        if expires is not None:
            self._expiring.pop(fact_id, None)
            if self._expired is not None:
                self._expired = (self._expired[0], self._expired[1] & ~(1 << n))
        if self._by_number.get(n) is fact:
            del self._by_number[n]
            if self.clashes:  # another id with this number keeps the bit
                other = next((e[0] for e in indexed.values() if e[3] == n), None)
                if other is not None:
                    self._by_number[n] = other
        self._changed()

    def sync(self, facts: dict[str, Fact], generation: int, changed: Iterable[str] | None = None) -> None:
        """Index exactly `facts`: add new and changed ones, drop the ones gone. With `changed`
        (every id set or dropped since the last sync, from the store's journal), only those
        are looked at: a write costs what it changes, not a pass over every fact."""
        if generation == self.generation:
            return
        if changed is not None and self.generation >= 0:
            for fact_id in dict.fromkeys(changed):
                fact = facts.get(fact_id)
                entry = self._indexed.get(fact_id)
                if fact is None:
                    if entry is not None:
                        self.remove(fact_id)
                elif entry is None or entry[0] is not fact:
                    self.add(fact)
            for key, bucket in self._classes.items():  # top() reads every class as a bitset
                if not isinstance(bucket, int):
                    self._classes[key] = bits_of(bucket)
            self.generation = generation
            return
        if not self._indexed:
            self._build(facts)
            self.generation = generation
            return
        hold()  # many small objects at once: the cyclic GC would only re-scan them
        self._bulk = True
        try:
            for fact_id in [i for i in self._indexed if i not in facts]:
                self.remove(fact_id)
            for fact_id, fact in facts.items():
                entry = self._indexed.get(fact_id)
                if entry is None or entry[0] is not fact:
                    self.add(fact)
        finally:
            self._bulk = False
            self._compact()
            release()
        self.generation = generation

    def _build(self, facts: Mapping[str, Fact]) -> None:
        """Index `facts` into an empty index: what add() does for each, with each word's
        numbers gathered in a list first and made compact once (the first build at start)."""
        hold()  # many small lists at once: the cyclic GC would only re-scan them
        try:
            gathered: tuple[dict[str, list[int]], ...] = ({}, {}, {})
            classes: dict[tuple[str, str], list[int]] = {}
            indexed, by_number, replaced, expiring = self._indexed, self._by_number, self._replaced, self._expiring
            for fact_id, fact in facts.items():
                n = fact.number
                for lists, field_words in zip(gathered, _field_words(fact), strict=True):
                    for word in field_words:
                        numbers = lists.get(word)
                        if numbers is None:
                            lists[word] = [n]
                        else:
                            numbers.append(n)
                classes.setdefault((fact.type, fact.confidence), []).append(n)
                retired = tuple(old for old in fact.replaced_ids() if old != fact_id)
                for old in retired:
                    replaced[old] = replaced.get(old, 0) + 1
                if fact.expires is not None:
                    expiring[fact_id] = fact.expires
                indexed[fact_id] = (fact, retired, fact.expires, n)
                by_number[n] = fact
            self._threshold = threshold = max(16, (max(by_number, default=0) + 1) // BITSET_RATIO)
            for postings, lists in zip(self._postings, gathered, strict=True):
                for word, numbers in lists.items():
                    postings[word] = _posting(numbers, threshold)
                lists.clear()  # free each field's lists before the next field's postings are made
            for key, numbers in classes.items():
                self._classes[key] = bits_of(numbers)
        finally:
            release()
        self._vocabulary = None
        self._retired_bits = None  # worked out from _replaced and _expiring when first asked
        self._expired = None
        self._changed()

    def _compact(self) -> None:
        """Turn every array grown past the threshold into a bitset (after a bulk load)."""
        self._threshold = max(16, (max(self._by_number, default=0) + 1) // BITSET_RATIO)
        threshold = self._threshold
        for table in (*self._postings, self._classes):
            for key, bucket in table.items():
                if not isinstance(bucket, int) and len(bucket) > threshold:
                    table[key] = bits_of(bucket)  # type: ignore[index]
        for key in self._classes:
            bucket = self._classes[key]
            if not isinstance(bucket, int):
                self._classes[key] = bits_of(bucket)

    # ---- lookups -------------------------------------------------------------------------

    def active_bits(self, today_iso: str, type: str | None = None) -> int:
        """The bitset of the active facts (of one type) on `today_iso`: neither retired by
        another fact nor expired (as FactStore.active_facts), from what the index keeps, so
        that a change costs no pass over every fact. Kept until the next change or day."""
        cached = self._active
        if cached is not None and cached[0] == today_iso and cached[1] == type:
            return cached[2]
        live = 0
        for (ftype, _confidence), members in self._classes.items():
            if type is None or ftype == type:
                live |= members if isinstance(members, int) else bits_of(members)
        indexed = self._indexed
        if self._retired_bits is None:
            self._retired_bits = bits_of([indexed[old][3] for old in self._replaced if old in indexed])
        if self._expired is None or self._expired[0] != today_iso:
            expired = [indexed[i][3] for i, expires in self._expiring.items() if expires < today_iso]
            self._expired = (today_iso, bits_of(expired))
        bits = live & ~(self._retired_bits | self._expired[1])
        self._active = (today_iso, type, bits)
        return bits

    def _vocab(self) -> str:
        if self._vocabulary is None:
            words: set[str] = set()
            for postings in self._postings:
                words.update(postings)
            self._vocabulary = "\n" + "\n".join(words) + "\n"
        return self._vocabulary

    def term_bits(self, term: str) -> tuple[int, int, int]:
        """Bitsets of the facts whose title, tags and body contain `term` (letters and digits)."""
        vocab = self._vocab()
        bits = [0, 0, 0]
        small: list[list[int]] = [[], [], []]
        pos = vocab.find(term)
        while pos != -1:
            start = vocab.rfind("\n", 0, pos) + 1
            end = vocab.find("\n", pos)
            word = vocab[start:end]
            for field, postings in enumerate(self._postings):
                bucket = postings.get(word)
                if bucket is None:
                    continue
                if isinstance(bucket, int):
                    bits[field] |= bucket
                else:
                    small[field] += bucket
            pos = vocab.find(term, end)
        return (
            bits[0] | bits_of(small[0]) if small[0] else bits[0],
            bits[1] | bits_of(small[1]) if small[1] else bits[1],
            bits[2] | bits_of(small[2]) if small[2] else bits[2],
        )

    def match_term(self, term: str) -> tuple[set[str], set[str], set[str]]:
        """Ids of facts whose title, tags and body contain `term` (a letters-and-digits term)."""
        title, tags, body = self.term_bits(term)
        by_number = self._by_number
        return (
            {by_number[n].id for n in numbers_of(title)},
            {by_number[n].id for n in numbers_of(tags)},
            {by_number[n].id for n in numbers_of(body)},
        )

    def eligible_bits(self, active: Mapping[str, Fact], type: str | None = None) -> int:
        """The bitset of the `active` facts (of one type); kept while `active` is the same object."""
        cached = self._eligible
        if cached is not None and cached[0] is active and cached[1] == type:
            return cached[2]
        bits = bits_of([f.number for f in active.values() if type is None or f.type == type])
        self._eligible = (active, type, bits)
        return bits

    def top(self, terms: list[str], eligible: int, min_score: float, limit: int) -> list[Hit]:
        """The best `limit` hits among the `eligible` facts scoring at least `min_score`, in the
        product's order (score, then type order, then newest id): exactly what a scan of every
        fact followed by rank() gives."""
        if not terms or not eligible:
            return []
        per_term = [(term, self.term_bits(term)) for term in terms]
        slices: list[int] = []
        matched = 0
        for _term, (title, tags, body) in per_term:
            title &= eligible
            tags &= eligible
            body &= eligible
            matched |= title | tags | body
            # +3 title = 2 + 1, +2 tags, +1 body, as bit-sliced additions
            _add_at(slices, title, 0)
            _add_at(slices, title, 1)
            _add_at(slices, tags, 1)
            _add_at(slices, body, 0)
        if not matched:
            return []
        # Every (score, type rank) class: points p of facts of one (type, confidence).
        classes: dict[tuple[float, int], list[tuple[int, int]]] = {}
        for (ftype, confidence), members in self._classes.items():
            assert isinstance(members, int)
            members &= matched
            if not members:
                continue
            tm = TYPE_MULTIPLIER.get(ftype, 1.0)
            cm = CONFIDENCE_MULTIPLIER.get(confidence, 1.0)
            rank = TYPE_RANK.get(ftype, 99)
            for p in range(1, 6 * len(terms) + 1):
                score = round(p * tm * cm, 9)  # as score_fact() computes it, to the last bit
                if score >= min_score:
                    classes.setdefault((-score, rank), []).append((p, members))
        equal: dict[int, int] = {}

        def points_equal(p: int) -> int:
            found = equal.get(p)
            if found is None:
                if p >> len(slices):
                    found = 0
                else:
                    found = matched
                    for k, s in enumerate(slices):
                        found &= s if p >> k & 1 else ~s
                equal[p] = found
            return found

        chosen: list[int] = []
        for key in sorted(classes):
            members = 0
            for p, in_class in classes[key]:
                members |= points_equal(p) & in_class
            if members:
                chosen += numbers_of(members, limit - len(chosen))
                if len(chosen) >= limit:
                    break
        hits = []
        for n in chosen:
            marks = [TermMatch(t, bool(a >> n & 1), bool(g >> n & 1), bool(b >> n & 1)) for t, (a, g, b) in per_term]
            hits.append(score_fact(self._by_number[n], [m for m in marks if m.points]))
        return hits
