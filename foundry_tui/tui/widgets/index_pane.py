"""IndexPane: the active facts as INDEX.md lists them, grouped by type, with the
budget line where the budget cuts the index and the omitted entries dimmed below it."""

from __future__ import annotations

from functools import partial

from rich.text import Text

from foundry_tui.core.memory.facts import Fact
from foundry_tui.core.memory.views import Overview
from foundry_tui.tui.theme import ThemeColours
from foundry_tui.tui.widgets.row_list import Row, RowList


def fact_prompt(fact: Fact, style: str = "", note: str = "") -> Text:
    text = Text.assemble((fact.id, "bold"), " ", fact.title, style=style)
    for tag in fact.tags:
        text.append(f" {tag}", style="italic dim")
    if note:
        text.append(f"  {note}", style="dim")
    return text


class IndexPane(RowList):
    """The index as the model will see it; inactive facts and broken files on demand."""

    BORDER_TITLE = "Index"

    def show(self, overview: Overview, show_inactive: bool) -> None:
        error = ThemeColours.of(self.app).error
        options: list[Row] = []
        current_type = None
        cut = False
        for fact_id in overview.ordered:
            fact = overview.facts[fact_id]
            if fact_id in overview.omitted and not cut:
                cut = True
                options.append(
                    (None, Text(f"── budget {overview.budget} tokens: omitted below ──", style=f"bold {error}"))
                )
            if fact.type != current_type:
                current_type = fact.type
                options.append((None, Text(fact.type, style="bold underline")))
            if fact_id in overview.omitted:
                options.append((fact_id, partial(fact_prompt, fact, "dim", "omitted")))
            else:
                options.append((fact_id, partial(fact_prompt, fact)))
        if not overview.ordered:
            options.append((None, Text("No active facts yet: press w to write one.", style="dim")))
        if show_inactive and overview.inactive:
            options.append((None, Text("inactive", style="bold underline")))
            for fact_id, reason in overview.inactive.items():
                options.append((fact_id, partial(fact_prompt, overview.facts[fact_id], "dim", reason)))
        if overview.broken:
            options.append((None, Text("broken files", style=f"bold underline {error}")))
            for broken in overview.broken:
                entry = Text.assemble((broken.name, f"bold {error}"), " ", (broken.reason, error))
                options.append((f"broken:{broken.name}", entry))
        self.replace_rows(options)
        self.border_subtitle = (
            f"{overview.listed}/{len(overview.active)} listed · ~{overview.index_tokens}/{overview.budget} tokens"
        )
