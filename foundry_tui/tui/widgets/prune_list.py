"""PruneList: the prune report's groups (expired, superseded, missing reasoning), each entry selectable."""

from __future__ import annotations

from rich.text import Text
from textual.widgets.option_list import Option

from ...core.prune import GROUPS
from ...core.views import Overview
from .fact_list import FactList


class PruneList(FactList):
    """Candidates for retirement; nothing is deleted automatically."""

    BORDER_TITLE = "Prune candidates"

    def show(self, overview: Overview) -> None:
        options: list[Option | None] = []
        for group in GROUPS:
            members = [e for e in overview.prune if e.group == group]
            if members:
                options.append(Option(Text(group, style="bold underline"), disabled=True))
                for entry in members:
                    title = overview.facts[entry.fact_id].title
                    options.append(
                        Option(
                            Text.assemble((entry.fact_id, "bold"), f" — {entry.detail}  ", (title, "dim")),
                            id=entry.fact_id,
                        )
                    )
        if not options:
            options.append(Option(Text("none", style="dim"), disabled=True))
        self.replace_options(options)
        self.border_subtitle = f"{len(overview.prune)} candidates"
