"""An in-memory word index for substring search in long-lived processes.

A search term is letters and digits only, so it occurs in a field exactly when it
occurs inside one of the field's words (maximal runs of letters and digits). The
index maps each word to the facts holding it, per field, and finds the words that
contain a term with one C-speed scan of the joined vocabulary, so a query costs a
few set unions instead of a scan of every fact body.
"""

from __future__ import annotations

import gc
import re

from foundry_tui.core.memory.facts import Fact
from foundry_tui.core.memory.search import MIN_TERM_CHARS, search_fields

Postings = dict[str, set[str]]
# Maximal runs of letters and digits at least MIN_TERM_CHARS long: shorter words can
# never contain a search term, so they are not indexed.
_WORD_RE = re.compile(rf"[^\W_]{{{MIN_TERM_CHARS},}}")


def _words(text: str) -> frozenset[str]:
    return frozenset(_WORD_RE.findall(text))


class SearchIndex:
    """Words → fact ids, for titles, tags and bodies; kept in step with a FactStore."""

    def __init__(self) -> None:
        self._postings: tuple[Postings, Postings, Postings] = ({}, {}, {})
        self._indexed: dict[str, tuple[Fact, tuple[frozenset[str], ...]]] = {}
        self._vocabulary: str | None = None
        self.generation = -1

    def __len__(self) -> int:
        return len(self._indexed)

    def add(self, fact: Fact) -> None:
        if fact.id in self._indexed:
            self.remove(fact.id)
        words = tuple(_words(text) for text in search_fields(fact))
        for postings, field_words in zip(self._postings, words, strict=True):
            for word in field_words:
                bucket = postings.get(word)
                if bucket is None:
                    postings[word] = {fact.id}
                    self._vocabulary = None
                else:
                    bucket.add(fact.id)
        self._indexed[fact.id] = (fact, words)

    def remove(self, fact_id: str) -> None:
        entry = self._indexed.pop(fact_id, None)
        if entry is None:
            return
        for postings, field_words in zip(self._postings, entry[1], strict=True):
            for word in field_words:
                bucket = postings.get(word)
                if bucket is not None:
                    bucket.discard(fact_id)
                    if not bucket:
                        del postings[word]
                        self._vocabulary = None

    def sync(self, facts: dict[str, Fact], generation: int) -> None:
        """Index exactly `facts`: add new and changed ones, drop the ones gone."""
        if generation == self.generation:
            return
        gc_was_enabled = gc.isenabled()
        gc.disable()  # many small sets at once: the cyclic GC would only re-scan them
        try:
            for fact_id in [i for i in self._indexed if i not in facts]:
                self.remove(fact_id)
            for fact_id, fact in facts.items():
                entry = self._indexed.get(fact_id)
                if entry is None or entry[0] is not fact:
                    self.add(fact)
        finally:
            if gc_was_enabled:
                gc.enable()
        self.generation = generation

    def _vocab(self) -> str:
        if self._vocabulary is None:
            words: set[str] = set()
            for postings in self._postings:
                words.update(postings)
            self._vocabulary = "\n" + "\n".join(words) + "\n"
        return self._vocabulary

    def match_term(self, term: str) -> tuple[set[str], set[str], set[str]]:
        """Ids of facts whose title, tags and body contain `term` (a letters-and-digits term)."""
        vocab = self._vocab()
        found: tuple[set[str], set[str], set[str]] = (set(), set(), set())
        title_p, tags_p, body_p = self._postings
        pos = vocab.find(term)
        while pos != -1:
            start = vocab.rfind("\n", 0, pos) + 1
            end = vocab.find("\n", pos)
            word = vocab[start:end]
            for bucket, postings in zip(found, (title_p, tags_p, body_p), strict=True):
                ids = postings.get(word)
                if ids:
                    bucket |= ids
            pos = vocab.find(term, end)
        return found
