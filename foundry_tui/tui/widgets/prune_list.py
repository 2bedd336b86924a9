"""PruneList: the prune report's groups (expired, superseded, missing reasoning), each entry selectable."""

from __future__ import annotations

from rich.text import Text

from foundry_tui.core.memory.prune import GROUPS
from foundry_tui.core.memory.views import Overview
from foundry_tui.tui.widgets.row_list import Row, RowList


class PruneList(RowList):
    """Candidates for retirement; nothing is deleted automatically."""

    BORDER_TITLE = "Prune candidates"

    def show(self, overview: Overview) -> None:
        options: list[Row] = []
        for group in GROUPS:
            members = [e for e in overview.prune if e.group == group]
            if members:
                options.append((None, Text(group, style="bold underline")))
                for entry in members:
                    title = overview.facts[entry.fact_id].title
                    line = Text.assemble((entry.fact_id, "bold"), f" — {entry.detail}  ", (title, "dim"))
                    options.append((entry.fact_id, line))
        if not options:
            options.append((None, Text("none", style="dim")))
        self.replace_rows(options)
        self.border_subtitle = f"{len(overview.prune)} candidates"
