"""The `hybrid` ranker's parts: bm25 fused with sentence similarity by reciprocal rank (issue 29).

Each active fact's text (vectors.fact_text, from the scan's lowercased fields) has a vector in the
VectorStore once the builder has embedded it; the query is embedded by the sentence model
(encoder.py). Fused score, for a fact at rank r_b among bm25's best CANDIDATES and rank r_d among
the similarity's best CANDIDATES (a part it is not ranked in adds nothing):

    score = SCALE × (BM25_WEIGHT / (K + r_b) + (1 − BM25_WEIGHT) / (K + r_d))

K and BM25_WEIGHT were chosen on the tuning questions only (benchmarks/bench_hybrid.py; ADR 0026's
experiment found reciprocal rank best, with k = 4). A fact with no vector yet is ranked by bm25
alone, and `--explain` says so; so is every fact while the model is off or still loading.

numpy is imported at the top: rankers.py imports this module only when the hybrid ranker searches.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from foundry_tui.core.memory.model.facts import Fact
from foundry_tui.core.memory.model.fields import ScanFields
from foundry_tui.core.memory.model.hits import Hit, format_score
from foundry_tui.core.memory.model.vocabulary import TYPE_RANK
from foundry_tui.core.memory.search.vectors import Matrix, VectorStore, fact_text, fingerprint

K = 4.0
BM25_WEIGHT = 0.5
SCALE = 100.0  # fused scores near 10 to 20, not 0.1: two decimals still tell them apart
CANDIDATES = 200  # the similarity's best, fused
# bm25's best, fused: its search costs grow with how many hits it builds. On the tuning sets (440
# questions) its best 50 gave recall@8 / MRR 0.950 / 0.897, its best 200 0.950 / 0.895, 25 0.948 / 0.896.
LEXICAL_CANDIDATES = 50
# A fact counts among the similarity's candidates only at this cosine or more: a question about
# something the memory does not hold still gets "No stored fact matches" (chosen on the tuning sets).
SIMILARITY_FLOOR = 0.2
EMBED_CHUNK = 32  # facts per encode call while building
SAVE_EVERY = 512  # vectors added between saves of the file while building


class HybridHit(Hit):
    """A fact ranked by the fusion: `points` is the fused score; the parts are kept for --explain."""

    __slots__ = ("bm25", "bm25_rank", "dense_rank", "note", "similarity")
    bm25: Hit | None  # its bm25 hit, when bm25 ranked it among CANDIDATES
    bm25_rank: int | None
    similarity: float | None  # cosine to the query, when the fact has a vector and the model answered
    dense_rank: int | None
    note: str  # why the similarity is missing, when it is

    def points_text(self) -> str:
        return f"fused {self.points:.2f}"

    def tag_terms(self) -> list[str]:
        return self.bm25.tag_terms() if self.bm25 is not None else []

    def explain(self) -> str:
        if self.bm25 is not None:
            lexical = f"bm25 rank {self.bm25_rank} ({self.bm25.explain().strip('_')})"
        else:
            lexical = "bm25: not among its best"
        if self.similarity is not None:
            dense = f"similarity {self.similarity:.3f} rank {self.dense_rank}"
        else:
            dense = f"similarity: none ({self.note})"
        return (
            f"_score {format_score(self.score)} = {SCALE:g} × ({BM25_WEIGHT:g}/({K:g} + bm25 rank)"
            f" + {1 - BM25_WEIGHT:g}/({K:g} + similarity rank)); {lexical}; {dense}_"
        )

    def to_dict(self) -> dict[str, object]:
        data = super().to_dict()
        data["points"] = round(self.points, 4)
        data["bm25"] = self.bm25.to_dict() if self.bm25 is not None else None
        data["bm25Rank"] = self.bm25_rank
        data["similarity"] = round(self.similarity, 4) if self.similarity is not None else None
        data["similarityRank"] = self.dense_rank
        if self.similarity is None:
            data["similarityNote"] = self.note
        return data


class _Dense:
    """What one scan's positions need for similarity, computed once per scan (ScanFields.dense_cache)."""

    __slots__ = ("fingerprints", "known", "matrix", "numbers", "texts", "type_ranks", "version")

    def __init__(self, fingerprints: list[bytes], texts: list[str], numbers: dict[int, int]) -> None:
        self.fingerprints = fingerprints
        self.texts = texts
        self.numbers = numbers  # a fact's id number -> its position
        self.version: tuple[int, int] | None = None
        self.matrix: Matrix | None = None
        self.known: npt.NDArray[np.bool_] | None = None
        self.type_ranks: npt.NDArray[np.int64] | None = None


def _dense(scan: ScanFields) -> _Dense:
    cached = scan.dense_cache
    if isinstance(cached, _Dense):
        return cached
    titles, tags, bodies = (scan.field_texts(field) for field in range(3))
    texts = [
        fact_text(title, tag.split("\n") if tag else [], body)
        for title, tag, body in zip(titles, tags, bodies, strict=True)
    ]
    numbers = {-scan.order_at(i)[1]: i for i in range(scan.count)}
    dense = _Dense([fingerprint(t) for t in texts], texts, numbers)
    scan.dense_cache = dense
    return dense


def scan_texts(scan: ScanFields) -> tuple[list[bytes], list[str]]:
    """Each position's fingerprint and the text the model reads for it."""
    dense = _dense(scan)
    return dense.fingerprints, dense.texts


def aligned(scan: ScanFields, store: VectorStore) -> tuple[Matrix, npt.NDArray[np.bool_]]:
    """The vectors of the scan's facts by position (zeros where none yet) and which have one."""
    dense = _dense(scan)
    version = (id(store), store.version)
    if dense.version != version or dense.matrix is None or dense.known is None:
        dense.matrix, dense.known = store.gather(dense.fingerprints)
        dense.version = version
    return dense.matrix, dense.known


def missing(scan: ScanFields, store: VectorStore) -> list[int]:
    """The positions of the scan's searchable facts (its `eligible` ones, when it has them) that have no vector yet."""
    _matrix, known = aligned(scan, store)
    absent = np.flatnonzero(~known)
    if scan.eligible is None:
        return [int(i) for i in absent]
    return [int(i) for i in absent if int(i) in scan.eligible]


def _type_ranks(scan: ScanFields, dense: _Dense) -> npt.NDArray[np.int64]:
    if dense.type_ranks is None:
        dense.type_ranks = np.fromiter(
            (scan.order_at(i)[0] for i in range(scan.count)), dtype=np.int64, count=scan.count
        )
    return dense.type_ranks


def _number(hit: Hit) -> int:
    return int(hit.fact.id[5:])


def fuse(
    scan: ScanFields,
    lexical: Sequence[Hit],
    store: VectorStore | None,
    query_vector: Matrix | None,
    note: str,
    type: str | None,
    limit: int,
    min_score: float,
) -> list[HybridHit]:
    """The best `limit` facts by the fused score (at least `min_score`), from bm25's ranked `lexical`
    hits and, when `query_vector` is given, the similarity of every fact that has a vector."""
    if query_vector is None or store is None:
        # bm25's order, scored as the fusion scores it; nothing computed per fact of the scan, so
        # the first searches of a server whose model is still loading cost what bm25's do.
        return [
            _hybrid_hit(hit, n, None, None, note)
            for n, hit in enumerate(lexical[:limit], 1)
            if SCALE * BM25_WEIGHT / (K + n) >= min_score
        ]
    dense = _dense(scan)
    ranks_b = {
        dense.numbers[_number(h)]: (n, h) for n, h in enumerate(lexical[:CANDIDATES], 1) if _number(h) in dense.numbers
    }
    sims: dict[int, tuple[int, float]] = {}
    known: npt.NDArray[np.bool_] | None = None
    if query_vector is not None and store is not None and scan.count:
        matrix, known = aligned(scan, store)
        similarity = matrix @ query_vector
        eligible = known & (similarity >= SIMILARITY_FLOOR)
        if type is not None:
            eligible &= _type_ranks(scan, dense) == TYPE_RANK.get(type, -1)
        if scan.eligible is not None:
            mask = np.zeros(scan.count, dtype=np.bool_)
            mask[list(scan.eligible)] = True
            eligible &= mask
        similarity = np.where(eligible, similarity, -np.inf)
        top = min(CANDIDATES, int(eligible.sum()))
        if top:
            best = np.argpartition(-similarity, top - 1)[:top]
            best = best[np.argsort(-similarity[best], kind="stable")]
            sims = {int(i): (n, float(similarity[i])) for n, i in enumerate(best, 1)}
    scores: dict[int, float] = {}
    for i, (n, _h) in ranks_b.items():
        scores[i] = BM25_WEIGHT / (K + n)
    for i, (n, _s) in sims.items():
        scores[i] = scores.get(i, 0.0) + (1 - BM25_WEIGHT) / (K + n)
    ordered = sorted(scores, key=lambda i: (-round(SCALE * scores[i], 9), *scan.order_at(i)))
    hits: list[HybridHit] = []
    for i in ordered:
        score = round(SCALE * scores[i], 9)
        if score < min_score or len(hits) >= limit:
            break
        rank_b, hit_b = ranks_b.get(i, (None, None))
        rank_d, sim = sims.get(i, (None, None))
        if sim is not None:
            why = ""
        elif known is not None and not known[i]:
            why = "this fact has no vector yet: ranked by bm25 alone"
        else:
            why = "not among the most similar"
        hit = _hybrid_hit(hit_b, rank_b, sim, rank_d, why, fact=scan.fact_at(i) if hit_b is None else None, score=score)
        hits.append(hit)
    return hits


def _hybrid_hit(
    lexical: Hit | None,
    rank_b: int | None,
    similarity: float | None,
    rank_d: int | None,
    note: str,
    *,
    fact: Fact | None = None,
    score: float | None = None,
) -> HybridHit:
    """A fused hit from its parts (`fact`: when bm25 did not rank it)."""
    if score is None:
        score = round(SCALE * BM25_WEIGHT / (K + (rank_b or 0)), 9)
    if lexical is not None:
        hit = HybridHit(
            lexical.fact, score, score, lexical.type_multiplier, lexical.confidence_multiplier, lexical.matches
        )
    else:
        assert fact is not None
        hit = HybridHit(fact, score, score, 1.0, 1.0, ())
    hit.bm25, hit.bm25_rank, hit.similarity, hit.dense_rank, hit.note = lexical, rank_b, similarity, rank_d, note
    return hit
