"""What the facts' sentence vectors tell the curator (issue 29, item 6): pairs of facts that say
nearly the same thing in other words, and the facts a new one is close to.

The vectors are derived data (core/memory/search/vectors.py), embedded by the long-lived processes
(the MCP server, the TUI) and kept in the derived cache; a one-shot process (the CLI, the doctor)
reads that file and never loads the model. A fact without a vector is compared by its words only,
and with no vectors at all every caller behaves exactly as without this module.

The work is bounded: each fact meets only its NEIGHBOURS most similar facts, found in blocks of
BLOCK_ROWS rows of one matrix product (memory grows with BLOCK_ROWS × facts, not facts²), and at
most MAX_PAIRS of those pairs, the most similar first, are read by the word rules (a memory of
many facts alike in meaning gets its closest pairs, not a list no curator reads). The
thresholds were chosen on the tuning sets only (benchmarks/bench_neardup.py and bench_conflicts.py
with --meaning; ADR 0042):

- DUPE_SIMILARITY: a pair at this cosine or more is a near-duplicate candidate unless the
  difference rules of neardup.py tell the claims apart (numbers, names, opposites, a number on
  one side only);
- CONFLICT_SIMILARITY: a pair at this cosine or more is one subject, and a contradiction when
  conflicts.py's rules find a number, a name or a negation that differs;
- CLOSE_SIMILARITY: memory_write names at most MAX_CLOSE active facts at this cosine or more.

numpy is imported at the top: import this module only where vectors are used (inside functions).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from foundry_tui.core.memory.model.facts import Fact, id_order
from foundry_tui.core.memory.model.fields import lowered_text
from foundry_tui.core.memory.search.vectors import VectorStore, fact_text, fingerprint

if TYPE_CHECKING:
    import datetime as _dt

    from foundry_tui.core.memory.project import Project

NEIGHBOURS = 5  # each fact's most similar facts that may become candidates
MAX_PAIRS = 2000  # pairs near in meaning read by the word rules, per scan (the most similar first)
BLOCK_ROWS = 512  # rows of one block of the similarity product (512 × 10,000 float32: 20 MB)
DUPE_SIMILARITY = 0.55
CONFLICT_SIMILARITY = 0.86
# Contradictions proposed by meaning alone are off: chosen on the tuning sets (recall 0.17 -> 0.29
# on conflicts_fresh3 at precision 0.83 -> 0.80), they found none of heldout6's that the words
# missed and added false ones (precision 0.85 -> 0.73, recall 0.31 either way; ADR 0042). A
# contradiction the words find still shows its similarity.
CONTRADICTIONS_BY_MEANING = False
CLOSE_SIMILARITY = 0.75
MAX_CLOSE = 3  # facts memory_write names

Matrix = npt.NDArray[np.float32]


def text_of(fact: Fact) -> str:
    """The text the vector builder embeds for `fact` (hybrid.scan_texts: its lowercased fields)."""
    title, tags, body = lowered_text(fact).split("\0", 2)
    return fact_text(title, tags.split("\n") if tags else [], body)


class FactVectors:
    """The vectors of those facts that have one, by id, L2-normalised; pairs by cosine."""

    def __init__(self, ids: Sequence[str], matrix: Matrix) -> None:
        if matrix.shape[0] != len(ids):
            raise ValueError(f"{len(ids)} ids for {matrix.shape[0]} vectors")
        norms = np.linalg.norm(matrix, axis=1, keepdims=True) if len(ids) else np.ones((0, 1), dtype=np.float32)
        self.ids = list(ids)
        self.matrix: Matrix = (matrix / np.where(norms > 0, norms, 1)).astype(np.float32)
        self.rows = {fact_id: row for row, fact_id in enumerate(self.ids)}
        self._neighbours: tuple[float, dict[tuple[str, str], float]] | None = None  # (its floor, the pairs)

    def __len__(self) -> int:
        return len(self.ids)

    def similarity(self, a: str, b: str) -> float | None:
        """The cosine of two facts' vectors; None when either has none."""
        row_a, row_b = self.rows.get(a), self.rows.get(b)
        if row_a is None or row_b is None:
            return None
        return float(self.matrix[row_a] @ self.matrix[row_b])

    def neighbours(self, floor: float) -> dict[tuple[str, str], float]:
        """The pairs (in id order) of each fact with its NEIGHBOURS most similar facts, at cosine
        `floor` or more (a pair is kept when either fact has the other among its nearest), at
        most MAX_PAIRS, the most similar first (ties by the ids)."""
        if self._neighbours is None or self._neighbours[0] > floor:
            self._neighbours = (floor, self._nearest(floor))
        ranked = sorted(
            ((pair, sim) for pair, sim in self._neighbours[1].items() if sim >= floor),
            key=lambda item: (-item[1], id_order(item[0][0]), id_order(item[0][1])),
        )
        return dict(ranked[:MAX_PAIRS])

    def _nearest(self, floor: float) -> dict[tuple[str, str], float]:
        """Each fact's NEIGHBOURS nearest, those at `floor` or more."""
        count = len(self.ids)
        k = min(NEIGHBOURS, count - 1)
        out: dict[tuple[str, str], float] = {}
        if k <= 0:
            return out
        matrix, ids = self.matrix, self.ids
        for start in range(0, count, BLOCK_ROWS):
            block = matrix[start : start + BLOCK_ROWS] @ matrix.T
            rows = np.arange(block.shape[0])
            block[rows, rows + start] = -np.inf  # not its own neighbour
            best = np.argpartition(block, -k, axis=1)[:, -k:]
            values = np.take_along_axis(block, best, axis=1)
            for r, c in zip(*np.nonzero(values >= floor), strict=True):
                a, b = ids[start + int(r)], ids[int(best[r, c])]
                out[(a, b) if id_order(a) < id_order(b) else (b, a)] = float(values[r, c])
        return out


# The last FactVectors built, by what it was built from: the curator's near-duplicates and
# contradictions of one load share its neighbours (one matrix product, not two).
_LAST: list[tuple[VectorStore, int, tuple[tuple[str, bytes], ...], FactVectors]] = []


def vectors_of(store: VectorStore | None, facts: Sequence[Fact]) -> FactVectors | None:
    """The vectors `store` knows of `facts` (None when it knows none: compare by words only)."""
    if store is None or not len(store) or not facts:
        return None
    prints = [fingerprint(text_of(fact)) for fact in facts]
    key = tuple(zip((f.id for f in facts), prints, strict=True))
    if _LAST and _LAST[0][0] is store and _LAST[0][1] == store.version and _LAST[0][2] == key:
        return _LAST[0][3]
    matrix, known = store.gather(prints)
    if not known.any():
        return None
    found = FactVectors([fact.id for fact, has in zip(facts, known, strict=True) if has], matrix[known])
    _LAST[:] = [(store, store.version, key, found)]
    return found


def project_vectors(project: Project, facts: Sequence[Fact]) -> FactVectors | None:
    """The vectors the derived cache holds for `facts` (read from the file; the model is never
    loaded here), or None when the model is off or not installed, or no fact has a vector yet."""
    return vectors_of(project.vector_store(), facts)


class Close:
    """An active fact close in meaning to one just written."""

    __slots__ = ("fact", "similarity")

    def __init__(self, fact: Fact, similarity: float) -> None:
        self.fact = fact
        self.similarity = similarity

    def line(self) -> str:
        return (
            f'Close to {self.fact.id} "{self.fact.title}" (similarity {self.similarity:.2f}): '
            "supersede it if this replaces it."
        )


def close_facts(project: Project, fact_id: str, today: _dt.date) -> list[Close]:
    """The active facts (at most MAX_CLOSE, closest first) at CLOSE_SIMILARITY or more to the
    fact `fact_id` just written; [] unless this process holds a warm model and the vectors (the
    model is never loaded for this: a one-shot process says nothing)."""
    encoder = project.warm_encoder()
    store = project.vector_store() if encoder is not None else None
    if encoder is None or store is None or not len(store):
        return []
    with project.lock:  # the builder thread adds vectors under it
        written = project.store.get(fact_id)
        if written is None:
            return []
        others = [f for f in project.active_facts(today) if f.id != fact_id and f.id != written.supersedes]
        vectors = vectors_of(store, others)
    if vectors is None:
        return []
    mine = encoder.encode([text_of(written)])[0]
    similarity = vectors.matrix @ (mine / (np.linalg.norm(mine) or 1.0))
    by_id = {f.id: f for f in others}
    ranked = sorted(
        (i for i in np.flatnonzero(similarity >= CLOSE_SIMILARITY)),
        key=lambda i: (-float(similarity[i]), id_order(vectors.ids[int(i)])),
    )
    return [Close(by_id[vectors.ids[int(i)]], float(similarity[i])) for i in ranked[:MAX_CLOSE]]


def close_text(close: Sequence[Close]) -> str:
    """What memory_write adds, in a content item of its own, about the facts close to the new one."""
    return "\n".join(c.line() for c in close)
