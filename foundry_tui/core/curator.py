"""The curator's other tools: searches that found nothing (and the facts that nearly
matched them), and the index's omitted entries with the consolidations that would
save the most index tokens."""

from __future__ import annotations

import datetime as _dt
from collections import Counter

from .events import read_events
from .facts import Fact
from .index import build_index, index_line
from .memory import Project
from .neardup import DupeFinder, group, terms
from .tokens import tokens_for_chars


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
    those sharing the most (idf-weighted) normalised words with it, synonyms included."""
    counts: Counter[str] = Counter()
    spelled: dict[str, str] = {}
    for event in read_events(project.layout):
        if event.get("kind") == "memory_search" and event.get("hits") == 0 and isinstance(event.get("query"), str):
            key = " ".join(event["query"].lower().split())
            counts[key] += 1
            spelled.setdefault(key, event["query"].strip())
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
        scored.sort(key=lambda fs: (-fs[1], fs[0].id))
        result.append(MissedSearch(spelled[key], count, scored[:near]))
    return result


def render_missed(missed: list[MissedSearch]) -> str:
    lines = ["Searches that found nothing (most frequent first):", ""]
    lines += [m.line() for m in missed] or ["  none"]
    return "\n".join(lines)


class Consolidation:
    """A near-duplicate group and the index tokens its merge would save."""

    def __init__(self, ids: list[str], saved_tokens: int) -> None:
        self.ids = ids
        self.saved_tokens = saved_tokens


def over_budget(project: Project, today: _dt.date) -> tuple[list[str], list[Consolidation]]:
    """The ids the index omits, and the consolidations that save the most index tokens
    (a merge keeps one index line for the group: the others' lines are saved)."""
    project.sync()
    active = project.active_facts(today)
    _text, report = build_index(active, project.config().index_token_budget)
    by_id = {f.id: f for f in active}
    finder = DupeFinder(active)
    options = []
    for ids in group(finder.scan(project.config().dupe_threshold)):
        lengths = sorted((len(index_line(by_id[i])) + 1 for i in ids), reverse=True)
        options.append(Consolidation(ids, tokens_for_chars(sum(lengths[1:]))))
    options.sort(key=lambda c: (-c.saved_tokens, c.ids))
    return report.omitted_ids, options


def render_over_budget(omitted: list[str], options: list[Consolidation]) -> str:
    lines = ["Over budget:" if omitted else "The index fits its budget.", ""]
    if omitted:
        lines.append(f"  omitted: {', '.join(omitted)}")
    for option in options:
        lines.append(f"  merge {', '.join(option.ids)}: saves ~{option.saved_tokens} index tokens")
    return "\n".join(lines)
