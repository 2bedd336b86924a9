"""What the index omits over its budget, and the consolidations (merges of near-duplicates)
that would save the most index tokens."""

from __future__ import annotations

import datetime as _dt

from foundry_tui.core.curation.neardup import DupeFinder, group
from foundry_tui.core.memory.model.facts import id_order
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.reports.index_file import build_index, index_line
from foundry_tui.core.tokens import tokens_for_chars


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
    options.sort(key=lambda c: (-c.saved_tokens, [id_order(i) for i in c.ids]))
    return report.omitted_ids, options


def render_over_budget(omitted: list[str], options: list[Consolidation]) -> str:
    lines = ["Over budget:" if omitted else "The index fits its budget.", ""]
    if omitted:
        lines.append(f"  omitted: {', '.join(omitted)}")
    for option in options:
        lines.append(f"  merge {', '.join(option.ids)}: saves ~{option.saved_tokens} index tokens")
    return "\n".join(lines)
