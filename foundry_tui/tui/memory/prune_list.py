"""PruneList: the prune report's groups (expired, superseded, missing reasoning), each entry selectable."""

from __future__ import annotations

from functools import partial

from rich.text import Text

from foundry_tui.core.memory.reports.prune import GROUPS, PruneEntry
from foundry_tui.core.memory.reports.views import Overview
from foundry_tui.tui.common.row_list import Row, RowList
from foundry_tui.tui.common.text import counted, marked, shown


def entry_line(entry: PruneEntry, title: str) -> Text:
    """`fact-0011 — add a Why: line  <title>`: the report's words, its marker shown bold."""
    return Text.assemble((entry.fact_id, "bold"), " — ", marked(entry.detail), "  ", (shown(title), "dim"))


class PruneList(RowList):
    """Candidates for retirement; nothing is deleted automatically."""

    BORDER_TITLE = "Prune candidates"

    def show(self, overview: Overview) -> None:
        options: list[Row] = []
        facts = overview.facts
        for group in GROUPS:
            members = [e for e in overview.prune if e.group == group]
            if members:
                options.append((None, Text(group, style="bold underline")))
                for entry in members:
                    # Made when the row first comes into view: a thousand candidates, a screenful drawn.
                    options.append((entry.fact_id, partial(entry_line, entry, facts[entry.fact_id].title)))
        if not options:
            options.append((None, Text("none", style="dim")))
        self.replace_rows(options)
        self.border_subtitle = counted(len(overview.prune), "candidate")
