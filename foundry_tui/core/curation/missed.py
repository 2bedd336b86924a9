"""Searches that found nothing, most frequent first, with the facts that nearly matched them."""

from __future__ import annotations

import datetime as _dt
from collections import Counter

from foundry_tui.core.curation.neardup import DupeFinder, terms
from foundry_tui.core.events import missed_key, read_events
from foundry_tui.core.memory.model.facts import Fact
from foundry_tui.core.memory.project import Project


class MissedSearch:
    """A query that returned no hits, how often, and the active facts closest to it."""

    def __init__(self, query: str, count: int, near: list[tuple[Fact, float]]) -> None:
        self.query = query
        self.count = count
        self.near = near

    def line(self) -> str:
        near = ", ".join(f"{f.id} ({score:.2f})" for f, score in self.near) or "no fact shares a word with it"
        return f'  "{self.query}" × {self.count}: nearest {near}'


def missed_searches(project: Project, today: _dt.date, near: int = 3) -> list[MissedSearch]:
    """memory_search events with no hits, most frequent first, each with its nearest facts:
    those sharing the most (idf-weighted) normalised words with it, synonyms included. A next
    page (an `offset`) found nothing new, which is no missed search."""
    counts: Counter[str] = Counter()
    spelled: dict[str, str] = {}
    for event in read_events(project.layout):
        query = event.get("query")
        key = missed_key(query)
        if (
            event.get("kind") == "memory_search"
            and event.get("hits") == 0
            and not event.get("offset")
            and key is not None
            and isinstance(query, str)  # always, when a key is found: for the type checker
        ):
            counts[key] += 1
            spelled.setdefault(key, query.strip())
    project.sync()
    active = project.active_facts(today)
    finder = DupeFinder(active)
    result = []
    for key, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        words = set(terms(key))
        scored = []
        for fact in active:
            weights = finder.features[fact.id].weights
            shared = words & set(weights)
            if shared:
                scored.append((fact, sum(finder.idf[w] for w in shared) / max(len(words), 1)))
        scored.sort(key=lambda fs: (-fs[1], fs[0].order_key))
        result.append(MissedSearch(spelled[key], count, scored[:near]))
    return result


def render_missed(missed: list[MissedSearch]) -> str:
    lines = ["Searches that found nothing (most frequent first):", ""]
    lines += [m.line() for m in missed] or ["  none"]
    return "\n".join(lines)
