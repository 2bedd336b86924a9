"""The rankers a search may use, looked up by the name config.json (`memoryRetrieval.ranker`)
or `--ranker` gives: the registry is `RANKERS` here, in the order of ranker_names.py's
RANKER_NAMES (the prompt hook checks a config's ranker against those names alone).

A ranker searches what a `Corpus` (the Project) hands it, under the corpus's lock, and picks
what the prompt hook injects (ADR 0025). The spec's scorer is the default; bm25 is opt-in
(ADR 0024) and its module is imported only when it is asked for: the hooks start on every
prompt (startup_path.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from foundry_tui.core.config import DEFAULT_MIN_SCORE, Config
from foundry_tui.core.errors import InputError
from foundry_tui.core.memory.model.fields import ScanFields
from foundry_tui.core.memory.model.hits import Hit
from foundry_tui.core.memory.search.ranker_names import RANKER_NAMES
from foundry_tui.core.memory.search.spec import query_terms, rank

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as _dt
    import threading

    from foundry_tui.core.memory.search.bm25 import StemCounts
    from foundry_tui.core.memory.search.encoder_base import Matrix, SentenceEncoder
    from foundry_tui.core.memory.search.vectors import VectorStore
    from foundry_tui.core.memory.search.word_index import SearchIndex


class Corpus(Protocol):
    """What a ranker searches: the active facts as the word index or an index-free scan, kept
    by the Project (core/memory/project.py)."""

    @property
    def lock(self) -> threading.RLock: ...

    def synced_index(self, today: _dt.date, type: str | None = None) -> tuple[SearchIndex | None, ScanFields | None]:
        """Under the lock: the word index in step with the store, else a scan of the active facts (of `type`)."""
        ...

    def scan_with_postings(self, today: _dt.date) -> tuple[ScanFields, StemCounts | None]:
        """Under the lock: a scan of every active fact, and bm25's postings of it when the parse cache has them."""
        ...

    def keep_postings(self) -> None:
        """Build bm25's postings of the snapshot the store answers from, in a thread."""
        ...

    def keep_words(self) -> None:
        """Build the spec ranker's word postings of the snapshot the store answers from, in a thread."""
        ...

    @property
    def semantic_wait(self) -> bool:
        """Whether a search may wait for the sentence model to load (one-shot commands) or must
        rank lexically until it has (long-lived processes)."""
        ...

    def semantic_enabled(self) -> bool:
        """Whether the sentence model may be used (installed, not turned off)."""
        ...

    def sentence_encoder(self, *, wait: bool) -> SentenceEncoder | None:
        """The sentence model (None: off, not installed, or still loading and not `wait`)."""
        ...

    def vector_store(self) -> VectorStore | None:
        """The facts' vectors known so far (None: the model is off)."""
        ...

    def keep_vectors(self) -> None:
        """Embed the active facts that have no vector yet, in a thread."""
        ...


class SearchedMemory(Protocol):
    """What the prompt hook's relevance asks of the memory (the Project)."""

    def search(
        self,
        query: str,
        today: _dt.date,
        *,
        type: str | None = None,
        limit: int | None = None,
        min_score: float | None = None,
        ranker: str | None = None,
    ) -> list[Hit]: ...

    def term_idf(self, terms: list[str], today: _dt.date) -> dict[str, float]: ...

    def term_frequency(self, terms: list[str], today: _dt.date) -> tuple[int, dict[str, int]]: ...

    def warm_encoder(self) -> SentenceEncoder | None:
        """The sentence model when this process has already loaded it (and it is not turned off),
        else None; never loads it nor starts a load."""
        ...


class Ranker(Protocol):
    """One way to rank the active facts for a query."""

    @property
    def name(self) -> str:
        """What config.json and --ranker call it."""
        ...

    @property
    def default_min_score(self) -> float:
        """memoryRetrieval.minScore when config.json leaves it out, on this ranker's scale."""
        ...

    def terms(self, query: str) -> list[str]:
        """The words of `query` this ranker searches for (none: only stop words or short words)."""
        ...

    def search(
        self, corpus: Corpus, query: str, today: _dt.date, type: str | None, limit: int, min_score: float
    ) -> list[Hit]:
        """The best `limit` hits scoring at least `min_score` among the active facts (of `type`), ranked."""
        ...

    def prompt_hits(self, memory: SearchedMemory, prompt: str, today: _dt.date, limit: int) -> list[Hit]:
        """What the prompt hook injects for `prompt`: this ranker's best hits that clear its relevance bar."""
        ...

    def prepare(self, corpus: Corpus) -> None:
        """What a long-lived process builds for this ranker's later searches, off the request path."""
        ...


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
# hybrid, when the sentence model is warm in the process (the MCP server answering the hook's
# socket, the TUI): the hook speaks when one of the fused best PROMPT_CANDIDATES has a cosine of
# at least PROMPT_MIN_SIMILARITY to the prompt, or when bm25's rule above admits a hit; it then
# injects bm25's admitted hits first and the fused hits the similarity ranked after them, in the
# fusion's order (ADR 0043: the floor is the lowest that kept 90% of the tuning sets' unknown
# prompts quiet, benchmarks/bench_hybrid.py --hook-tune). With no warm model it is bm25's rule.
PROMPT_MIN_SIMILARITY = 0.38


def rarity_share(hit: Hit, idf: Mapping[str, float]) -> float:
    """The share of the query's rarity that `hit` holds: the idf of the terms it matches over
    the idf of every term of the query (`idf`: term -> idf)."""
    total = sum(idf.values())
    return sum(idf.get(m.term, 0.0) for m in hit.matches) / total if total else 0.0


def tag_terms(hit: Hit) -> list[str]:
    """The distinct words of the query that are words of `hit`'s tags, as the ranker that made
    it matches words (`Hit.tag_terms`)."""
    return hit.tag_terms()


def tagged(memory: SearchedMemory, hits: Sequence[Hit], today: _dt.date) -> list[Hit]:
    """The hits (in their order) whose tags hold at least PROMPT_TAG_TERMS of the query's words,
    each in at most PROMPT_TAG_MAX_SHARE of the active facts (or PROMPT_TAG_MIN_FACTS of them,
    for a small memory): "second" and "file" name no subject, "postgres" and "migrations" do."""
    candidates = [(h, terms) for h in hits if len(terms := tag_terms(h)) >= PROMPT_TAG_TERMS]
    if not candidates:
        return []
    count, frequency = memory.term_frequency(sorted({t for _h, terms in candidates for t in terms}), today)
    most = max(PROMPT_TAG_MIN_FACTS, PROMPT_TAG_MAX_SHARE * count)
    return [h for h, terms in candidates if sum(frequency[t] <= most for t in terms) >= PROMPT_TAG_TERMS]


class SpecRanker:
    """The spec's scorer (spec 000, core/memory/search/spec.py): substrings, +3/+2/+1, the multipliers."""

    name = "spec"
    default_min_score = DEFAULT_MIN_SCORE

    def terms(self, query: str) -> list[str]:
        return query_terms(query)

    def search(
        self, corpus: Corpus, query: str, today: _dt.date, type: str | None, limit: int, min_score: float
    ) -> list[Hit]:
        terms = query_terms(query)
        with corpus.lock:
            index, scan = corpus.synced_index(today, type)
            if index is not None:
                hits = index.top(terms, index.active_bits(today.isoformat(), type), min_score, limit)
            else:
                assert scan is not None
                hits = scan.match(terms, min_score, limit)
        return rank(hits, limit, min_score)

    def prompt_hits(self, memory: SearchedMemory, prompt: str, today: _dt.date, limit: int) -> list[Hit]:
        hits = memory.search(prompt, today, limit=PROMPT_CANDIDATES, min_score=PROMPT_MIN_SCORE, ranker=self.name)
        if not hits:
            return []
        idf = memory.term_idf(query_terms(prompt), today)
        relevant = [h for h in hits if rarity_share(h, idf) >= PROMPT_MIN_SHARE]
        return (relevant or tagged(memory, hits, today))[:limit]

    def prepare(self, corpus: Corpus) -> None:
        """The word postings of the snapshot, in a thread, for the next start's first searches
        (search/word_postings.py); the word index a long-lived Project keeps anyway (`use_search_index`)."""
        corpus.keep_words()


class Bm25Ranker:
    """BM25F over whole, stemmed words (core/memory/search/bm25.py, ADR 0024)."""

    name = "bm25"
    # Its scores are on another scale: no floor lost none of the tuning questions' targets (ADR 0027).
    default_min_score = 0.0

    def terms(self, query: str) -> list[str]:
        from foundry_tui.core.memory.search.bm25 import query_stems

        return query_stems(query)

    def search(
        self, corpus: Corpus, query: str, today: _dt.date, type: str | None, limit: int, min_score: float
    ) -> list[Hit]:
        from foundry_tui.core.memory.search.bm25 import bm25_search, query_words

        words = query_words(query)
        stems = list(words)
        if not stems:
            return []
        with corpus.lock:
            # Statistics over every active fact, whatever the type filter, so a filter never changes a score.
            scan, postings = corpus.scan_with_postings(today)
            hits = bm25_search(scan, stems, min_score, limit, type, words, postings)
        return rank(hits, limit, min_score)

    def prompt_hits(self, memory: SearchedMemory, prompt: str, today: _dt.date, limit: int) -> list[Hit]:
        from foundry_tui.core.memory.search.bm25 import Bm25Hit

        hits = memory.search(prompt, today, limit=PROMPT_CANDIDATES, min_score=0.0, ranker=self.name)
        relevant: list[Hit] = [h for h in hits if isinstance(h, Bm25Hit) and h.coverage >= PROMPT_MIN_COVERAGE]
        return (relevant or tagged(memory, hits, today))[:limit]

    def prepare(self, corpus: Corpus) -> None:
        """Persist its postings of the facts for the next start (postings.py)."""
        corpus.keep_postings()


QUERY_VECTORS_KEPT = 64  # a server answers the same query again: its vector is kept


class HybridRanker:
    """bm25 fused with the sentence model's similarity by reciprocal rank (search/hybrid.py, issue 29).

    Long-lived processes embed the facts in a thread (`prepare`) and rank a fact lexically until it
    has its vector; a one-shot command loads the model to embed the query and uses the vectors a
    server left in the derived cache. The prompt hook's relevance uses the similarity only where the
    model is already warm (the server answering the hook's socket, the TUI); a hook process that
    searches itself keeps bm25's rule and never loads the model."""

    name = "hybrid"
    default_min_score = 0.0

    def __init__(self) -> None:
        self._queries: dict[tuple[int, str], Matrix] = {}

    def terms(self, query: str) -> list[str]:
        return RANKERS["bm25"].terms(query)

    def search(
        self, corpus: Corpus, query: str, today: _dt.date, type: str | None, limit: int, min_score: float
    ) -> list[Hit]:
        from foundry_tui.core.memory.search import hybrid
        from foundry_tui.core.memory.search.bm25 import bm25_search, query_words

        encoder = corpus.sentence_encoder(wait=corpus.semantic_wait)
        note = "the sentence model is loading" if corpus.semantic_enabled() else "the sentence model is off"
        vector = self._query_vector(encoder, query) if encoder is not None and query.strip() else None
        words = query_words(query)
        if not words and vector is None:
            return []
        with corpus.lock:
            scan, postings = corpus.scan_with_postings(today)
            wanted = hybrid.LEXICAL_CANDIDATES if vector is not None else limit
            lexical = bm25_search(scan, list(words), 0.0, wanted, type, words, postings) if words else []
            lexical = rank(lexical, wanted, 0.0)
            store = corpus.vector_store() if vector is not None else None
            hits = hybrid.fuse(scan, lexical, store, vector, note, type, limit, min_score)
        if encoder is not None and not corpus.semantic_wait:
            corpus.keep_vectors()  # a fact written since: embedded in the background
        return list(hits)

    def _query_vector(self, encoder: SentenceEncoder, query: str) -> Matrix:
        key = (id(encoder), query)
        vector = self._queries.get(key)
        if vector is None:
            if len(self._queries) >= QUERY_VECTORS_KEPT:
                self._queries.pop(next(iter(self._queries)))
            vector = self._queries[key] = encoder.encode([query])[0]
        return vector

    def prompt_hits(self, memory: SearchedMemory, prompt: str, today: _dt.date, limit: int) -> list[Hit]:
        """On similarity when the model is warm here (PROMPT_MIN_SIMILARITY, ADR 0043), else bm25's
        rule exactly: a hook process, whose memory has no warm model, never loads it."""
        candidates = self.prompt_candidates(memory, prompt, today, limit)
        if candidates is None:
            return RANKERS["bm25"].prompt_hits(memory, prompt, today, limit)
        hits, best, lexical = candidates
        return hits if lexical or (best is not None and best >= PROMPT_MIN_SIMILARITY) else []

    def prompt_candidates(
        self, memory: SearchedMemory, prompt: str, today: _dt.date, limit: int
    ) -> tuple[list[Hit], float | None, bool] | None:
        """None when no model is warm here; else what the hook would inject were it to speak (bm25's
        admitted hits, then the other fused hits the similarity ranked), the best cosine among the
        fused hits (None: none has one), and whether bm25's rule admitted a hit."""
        if memory.warm_encoder() is None:
            return None
        from foundry_tui.core.memory.search.hybrid import HybridHit

        lexical = RANKERS["bm25"].prompt_hits(memory, prompt, today, limit)
        fused = [
            h
            for h in memory.search(prompt, today, limit=PROMPT_CANDIDATES, min_score=0.0, ranker=self.name)
            if isinstance(h, HybridHit)
        ]
        best = max((h.similarity for h in fused if h.similarity is not None), default=None)
        admitted = {h.fact.id for h in lexical}
        first: list[Hit] = [h for h in fused if h.fact.id in admitted]
        similar = [h for h in fused if h.fact.id not in admitted and h.similarity is not None]
        hits: list[Hit] = [*first, *similar][:limit]
        return hits, best, bool(lexical)

    def prepare(self, corpus: Corpus) -> None:
        """bm25's postings, then the model and the facts' vectors, each in a thread."""
        corpus.keep_postings()
        corpus.keep_vectors()


# The registry: every ranker by name, the default first.
RANKERS: dict[str, Ranker] = {ranker.name: ranker for ranker in (SpecRanker(), Bm25Ranker(), HybridRanker())}
DEFAULT_MIN_SCORES = {name: ranker.default_min_score for name, ranker in RANKERS.items()}


def ranker_named(name: str) -> Ranker:
    """The ranker called `name`; an InputError naming the choices for any other name."""
    ranker = RANKERS.get(name)
    if ranker is None:
        raise InputError(f"unknown ranker '{name}': use one of {', '.join(RANKER_NAMES)}")
    return ranker


def min_score_for(config: Config, ranker: str) -> float:
    """The score a hit of `ranker` needs: memoryRetrieval.minScore when config.json sets it
    (for either ranker), else the ranker's own default."""
    return config.min_score if config.min_score is not None else DEFAULT_MIN_SCORES.get(ranker, DEFAULT_MIN_SCORE)
