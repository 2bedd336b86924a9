"""IndexPane: the active facts as INDEX.md lists them, grouped by type, with the
budget line where the budget cuts the index and the omitted entries dimmed below it."""

from __future__ import annotations

from rich.text import Text
from textual.widgets.option_list import Option

from ...core.facts import Fact
from ...core.views import Overview
from .fact_list import FactList


def fact_prompt(fact: Fact, style: str = "", note: str = "") -> Text:
    text = Text.assemble((fact.id, "bold"), " ", fact.title, style=style)
    for tag in fact.tags:
        text.append(f" {tag}", style="italic dim")
    if note:
        text.append(f"  {note}", style="dim")
    return text


class IndexPane(FactList):
    """The index as the model will see it; inactive facts and broken files on demand."""

    BORDER_TITLE = "Index"

    def show(self, overview: Overview, show_inactive: bool) -> None:
        options: list[Option | None] = []
        current_type = None
        cut = False
        for fact_id in overview.ordered:
            fact = overview.facts[fact_id]
            if fact_id in overview.omitted and not cut:
                cut = True
                options.append(
                    Option(
                        Text(f"── budget {overview.budget} tokens: omitted below ──", style="bold red"), disabled=True
                    )
                )
            if fact.type != current_type:
                current_type = fact.type
                options.append(Option(Text(fact.type, style="bold underline"), disabled=True))
            if fact_id in overview.omitted:
                options.append(Option(fact_prompt(fact, "dim", "omitted"), id=fact_id))
            else:
                options.append(Option(fact_prompt(fact), id=fact_id))
        if not overview.ordered:
            options.append(Option(Text("No active facts yet: press w to write one.", style="dim"), disabled=True))
        if show_inactive and overview.inactive:
            options.append(Option(Text("inactive", style="bold underline"), disabled=True))
            for fact_id, reason in overview.inactive.items():
                options.append(Option(fact_prompt(overview.facts[fact_id], "dim", reason), id=fact_id))
        if overview.broken:
            options.append(Option(Text("broken files", style="bold underline red"), disabled=True))
            for broken in overview.broken:
                options.append(
                    Option(
                        Text.assemble((broken.name, "bold red"), " ", (broken.reason, "red")),
                        id=f"broken:{broken.name}",
                    )
                )
        self.replace_options(options)
        self.border_subtitle = (
            f"{overview.listed}/{len(overview.active)} listed · ~{overview.index_tokens}/{overview.budget} tokens"
        )
