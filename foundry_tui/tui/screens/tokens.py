"""TokensScreen: the token report, the eager-versus-index-first cost drawn as bars,
and the recorded event counts."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import DataTable, Footer, Static

from foundry_tui.core.artefacts.token_report import TokenFigures, token_figures
from foundry_tui.tui.screens.live import LiveScreen
from foundry_tui.tui.theme import ThemeColours
from foundry_tui.tui.workers import deliver

BAR_WIDTH = 50


def cost_bars(eager: int, index_first: int, colours: ThemeColours) -> Text:
    """Two bars on one scale: what loading everything costs, and what the index costs."""
    scale = max(eager, index_first, 1)
    text = Text()
    for label, value, style in (("eager      ", eager, colours.error), ("index-first", index_first, colours.success)):
        filled = max(1, round(BAR_WIDTH * value / scale)) if value else 0
        text.append(f"{label} ", style="bold")
        text.append("█" * filled, style=style)
        text.append("░" * (BAR_WIDTH - filled), style="dim")
        text.append(f" ~{value} tokens per session\n")
    return text


class TokensScreen(LiveScreen):
    """The report as `foundry tokens` prints it, with bars and an event table."""

    @dataclass
    class Loaded(Message):
        figures: TokenFigures

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="tokens"):
            yield Static("", id="cost-bars")
            yield Static("", id="token-report", markup=False)
            yield DataTable(id="events", cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns("event", "count")

    @work(thread=True, exclusive=True, group="tokens", name="Token report not read", exit_on_error=False)
    def load(self) -> Loaded:
        with self.project.lock:
            return deliver(self, self.Loaded(token_figures(self.project, self.today)))

    def on_tokens_screen_loaded(self, event: Loaded) -> None:
        figures = event.figures
        self.query_one("#cost-bars", Static).update(cost_bars(figures.eager, figures.index, ThemeColours.of(self.app)))
        self.query_one("#token-report", Static).update(figures.text())
        table = self.query_one(DataTable)
        table.clear()
        counts = figures.events
        for kind, count in counts.items():
            table.add_row(kind, str(count))
        if not counts:
            table.add_row("(no events recorded yet)", "")
