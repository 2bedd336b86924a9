"""The near-duplicate scan's shortcuts change nothing: the fast scan finds the same pairs with
the same scores as the straightforward scorer over every pair (or, at scale, over the pairs
the rarest-words index proposes, written out plainly here), and the token memo reads a text
as the word regex does."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from foundry_tui.core.config import DEFAULT_DUPE_THRESHOLD
from foundry_tui.core.curation import neardup
from foundry_tui.core.curation.neardup import DupeFinder, term_counts, terms
from foundry_tui.core.memory.model.facts import Fact, id_order

# Words that fold together (databases/database, PostgreSQL/postgres), numbers and names that tell
# claims apart, negations and opposites, stop words, and a tail of rarer words.
VOCABULARY = str.split(
    "database databases db postgres PostgreSQL Postgres 15 16 two 300 ms minutes seconds 900 Vault Redis "
    "cache caches cached orders order payment payments retry retries must not never include exclude the a "
    "of is are deploys deploy approval approvals uuidv7 UUID k8s kubernetes i18n api endpoint webhook "
    "webhooks idempotent tenant tenants invoice zorblat quennic vellum tarsk ombre fjell"
)
word = st.sampled_from(VOCABULARY)


@st.composite
def memories(draw: st.DrawFn) -> list[Fact]:
    """Up to 30 facts; some restate an earlier one with a word changed, added or dropped."""
    facts: list[Fact] = []
    for number in range(1, draw(st.integers(2, 30)) + 1):
        restates = draw(st.booleans())
        if facts and restates:
            source = draw(st.sampled_from(facts))
            title = source.title.split()
            edit = draw(st.integers(0, 2))
            if edit == 0 and len(title) > 1:
                title.pop(draw(st.integers(0, len(title) - 1)))
            elif edit == 1:
                title.insert(draw(st.integers(0, len(title))), draw(word))
            else:
                title[draw(st.integers(0, len(title) - 1))] = draw(word)
            body = source.body if draw(st.booleans()) else " ".join(draw(st.lists(word, max_size=12)))
            tags = source.tags
        else:
            title = draw(st.lists(word, min_size=1, max_size=7))
            body = " ".join(draw(st.lists(word, max_size=12)))
            tags = tuple(draw(st.lists(word, max_size=3)))
        ftype = draw(st.sampled_from(("decision", "constraint")))
        facts.append(Fact(id=f"fact-{number:04d}", type=ftype, title=" ".join(title), body=body, tags=tags))
    return facts


thresholds = st.sampled_from((DEFAULT_DUPE_THRESHOLD, 0.2, 0.35, 0.7, 0.9, 0.004))


def _scored(finder: DupeFinder, pairs: set[tuple[str, str]], threshold: float) -> list[tuple[str, str, float]]:
    """The pairs the straightforward scorer puts at or over `threshold`, as the scan orders them."""
    found = [(a, b, finder.score(a, b).score) for a, b in pairs]
    kept = [(a, b, score) for a, b, score in found if score >= threshold]
    return sorted(kept, key=lambda p: (-p[2], id_order(p[0]), id_order(p[1])))


def _scan(finder: DupeFinder, threshold: float) -> list[tuple[str, str, float]]:
    return [(c.a, c.b, c.score) for c in finder.scan(threshold)]


def _every_pair(facts: list[Fact]) -> set[tuple[str, str]]:
    ids = sorted((f.id for f in facts), key=id_order)
    return {(a, b) for i, a in enumerate(ids) for b in ids[i + 1 :]}


def _proposed_plainly(finder: DupeFinder) -> set[tuple[str, str]]:
    """The index's candidates by their definition: two facts sharing at least two words that are
    among both facts' CANDIDATE_TERMS rarest (by document frequency, then by word) and among the
    rarest of at most `limit` facts."""
    df = finder.df
    rarest = {
        fid: set(sorted(feat.weights, key=lambda w: (df[w], w))[: neardup.CANDIDATE_TERMS])
        for fid, feat in finder.features.items()
    }
    holders = Counter(w for words in rarest.values() for w in words)
    limit = max(neardup.MAX_POSTING, int(len(rarest) * neardup.MAX_POSTING_SHARE))
    return {
        (a, b)
        for a, b in _every_pair([feat.fact for feat in finder.features.values()])
        if sum(1 for w in rarest[a] & rarest[b] if holders[w] <= limit) >= 2
    }


@given(memories(), thresholds)
def test_the_scan_of_a_small_memory_is_the_scorer_over_every_pair(facts: list[Fact], threshold: float) -> None:
    finder = DupeFinder(facts)
    assert _scan(finder, threshold) == _scored(finder, _every_pair(facts), threshold)


@given(memories(), thresholds, st.sampled_from((200, 4, 2)))
def test_the_scan_at_scale_is_the_scorer_over_the_proposed_pairs(
    facts: list[Fact], threshold: float, max_posting: int
) -> None:
    """Past ALL_PAIRS_UP_TO facts the index proposes the pairs; here a memory of a few facts
    takes that path (and a small posting limit drops the words many facts share)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(neardup, "ALL_PAIRS_UP_TO", 0)
        patch.setattr(neardup, "MAX_POSTING", max_posting)
        patch.setattr(neardup, "MAX_POSTING_SHARE", 0.0)
        finder = DupeFinder(facts)
        proposed = _proposed_plainly(finder)
        assert finder.candidate_pairs(all_pairs_up_to=0) == proposed
        assert _scan(finder, threshold) == _scored(finder, proposed, threshold)


def test_the_differences_only_lower_a_score() -> None:
    """The scan rules a pair out by its score before the differences: sound only while no
    difference adds to a score."""
    assert all(weight <= 0 for weight in neardup.AGAINST.values())


def _terms_word_by_word(text: str) -> list[str]:
    """terms() as the word regex reads the whole text, without the token memo."""
    return [found for word in neardup._words(text) if (found := neardup._term(word))]


pieces = st.sampled_from(
    [
        *"abkszAPGV78120.-/_,'",
        " ",
        "  ",
        "\t",
        "\n",
        "\xa0",
        "\u2028",
        "\x00",
        *("k8s", "i18n", "2fa", "e2e", "uuidv7", "3.11", "İ", "ΑΣ", "ß", "the", "databases"),
    ]
)


@given(st.lists(pieces, max_size=30).map("".join))
def test_terms_by_token_are_the_terms_of_the_whole_text(text: str) -> None:
    assert terms(text) == _terms_word_by_word(text)
    counts = term_counts(text)
    assert counts == Counter(_terms_word_by_word(text)) and list(counts) == list(dict.fromkeys(terms(text)))


def test_a_full_memo_still_reads_every_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(neardup, "_MEMO_LIMIT", 0)
    monkeypatch.setattr(neardup, "_TOKENS", {})
    text = "Unseen zqxvords: k8s uuidv7 and 3.11, twice zqxvords"
    assert terms(text) == _terms_word_by_word(text) and neardup._TOKENS == {}
    assert term_counts(text) == Counter(_terms_word_by_word(text))
