"""IndexPane: the active facts as INDEX.md lists them, grouped by type, with the
budget line where the budget cuts the index and the omitted entries dimmed below it. In a
narrow pane (80x24) a row shows its id's number only, leaving the title more room."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from rich.text import Text
from textual.strip import Strip

from foundry_tui.core.collector_hold import held
from foundry_tui.core.memory.reports.views import IndexView
from foundry_tui.tui.common.row_list import Row, RowList
from foundry_tui.tui.common.text import shown
from foundry_tui.tui.common.theme import ThemeColours
from foundry_tui.tui.startup import frames_shown

# Below this many columns inside the pane (36 at 80x24 and at 100 columns, 46 at 120), a fact's row shows the
# number of its id ("0009" for fact-0009): five more characters of its title.
COMPACT_BELOW = 40
ID_PREFIX = "fact-"


def fact_prompt(
    entry: Callable[[str], tuple[str, tuple[str, ...]]],
    fact_id: str,
    style: str = "",
    note: str = "",
    *,
    compact: bool = False,
) -> Text:
    """One fact's row: its id (its number only when `compact`), title and tags (`entry` gives
    the title and tags when the row first comes into view)."""
    title, tags = entry(fact_id)
    label = fact_id.removeprefix(ID_PREFIX) if compact else fact_id
    text = Text.assemble((label, "bold"), " ", shown(title), style=style)
    for tag in tags:
        text.append(f" {shown(tag)}", style="italic dim")
    if note:
        text.append(f"  {shown(note)}", style="dim")
    return text


class IndexPane(RowList):
    """The index as the model will see it; inactive facts and broken files on demand."""

    BORDER_TITLE = "Index"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._when_drawn: list[Callable[[], object]] = []

    def when_drawn(self, callback: Callable[[], object]) -> None:
        """Call `callback` once the rows shown now have been drawn on a frame that reaches the
        terminal (tui/startup.py: what waits for the first paint, the file watcher and the
        load's stat of every file, must not start on a frame Textual throws away)."""
        self._when_drawn.append(callback)

    def render_line(self, y: int) -> Strip:
        if self._when_drawn:
            if not frames_shown(self.app):
                self.call_later(self.refresh)  # not this frame: the next one, which is shown
            else:
                callbacks, self._when_drawn = self._when_drawn, []
                for callback in callbacks:
                    self.call_later(callback)  # runs once this frame's rendering has returned
        return super().render_line(y)

    def fact_row(
        self, entry: Callable[[str], tuple[str, tuple[str, ...]]], fact_id: str, style: str = "", note: str = ""
    ) -> Text:
        """A fact's row as drawn at the pane's width now (RowList keeps drawn lines by width)."""
        compact = self.scrollable_content_region.width < COMPACT_BELOW
        return fact_prompt(entry, fact_id, style, note, compact=compact)

    def show(self, view: IndexView, show_inactive: bool) -> None:
        # A row or two of small objects per fact (100,000 at most): the cyclic collector,
        # which would scan the growing list again and again meanwhile, waits until they exist.
        # The first paint's rows are frozen with the rest of the start-up (tui/collector.py);
        # a repaint after a reload freezes nothing (core/collector_hold.py: that leaked).
        with held():
            self._show(view, show_inactive)

    def _show(self, view: IndexView, show_inactive: bool) -> None:
        error = ThemeColours.of(self.app).error
        entry = view.entry
        options: list[Row] = []
        current_type = None
        cut = False
        omitted = view.omitted
        for fact_id, fact_type in zip(view.ordered, view.types, strict=True):
            if fact_id in omitted and not cut:
                cut = True
                options.append((None, Text(f"── budget {view.budget} tokens: omitted below ──", style=f"bold {error}")))
            if fact_type != current_type:
                current_type = fact_type
                options.append((None, Text(fact_type, style="bold underline")))
            if fact_id in omitted:
                options.append((fact_id, partial(self.fact_row, entry, fact_id, "dim", "omitted")))
            else:
                options.append((fact_id, partial(self.fact_row, entry, fact_id)))
        if not view.ordered:
            options.append((None, Text("No active facts yet: press w to write one.", style="dim")))
        if show_inactive and view.inactive:
            options.append((None, Text("inactive", style="bold underline")))
            for fact_id, reason in view.inactive.items():
                options.append((fact_id, partial(self.fact_row, entry, fact_id, "dim", reason)))
        if view.broken:
            options.append((None, Text("broken files", style=f"bold underline {error}")))
            for broken in view.broken:
                entry_text = Text.assemble((shown(broken.name), f"bold {error}"), " ", (shown(broken.reason), error))
                options.append((f"broken:{broken.name}", entry_text))
        whole = view.whole
        if whole is None:
            self.replace_rows(options)
        else:  # the first rows only (the first-frame record): as tall as the whole index's rows
            height = whole.active + whole.groups + (1 if whole.omitted else 0) + (0 if whole.active else 1)
            self.replace_rows(options, height=height + (1 + whole.broken if whole.broken else 0))
        self.border_subtitle = f"{view.listed}/{view.active} listed · ~{view.index_tokens}/{view.budget} tokens"
