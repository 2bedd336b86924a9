"""HistoryScreen: the memory's history from git, as `foundry memory log` reads it
(which commit created, superseded, merged, renumbered or expired which fact)."""

from __future__ import annotations

from dataclasses import dataclass

from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Footer, Static

from foundry_tui.core.errors import FoundryError
from foundry_tui.core.history.git_history import MemoryEvent, memory_log
from foundry_tui.tui.common.live import LiveScreen
from foundry_tui.tui.common.status_header import StatusHeader
from foundry_tui.tui.common.workers import deliver


class HistoryScreen(LiveScreen):
    """One row per fact event, newest commit first; a project outside git says so in one line."""

    @dataclass
    class Loaded(Message):
        events: list[MemoryEvent]
        error: str | None

    def compose(self) -> ComposeResult:
        yield StatusHeader()
        with Vertical(id="history"):
            yield Static("", id="history-summary", markup=False)
            yield DataTable(id="history-events", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns("commit", "date", "author", "action", "fact", "title", "detail")

    @work(thread=True, exclusive=True, group="history", name="History not read", exit_on_error=False)
    def load(self) -> Loaded:
        try:
            events, error = memory_log(self.project.layout).events, None
        except FoundryError as exc:
            events, error = [], str(exc)
        return deliver(self, self.Loaded(events, error))

    def on_history_screen_loaded(self, event: Loaded) -> None:
        table = self.query_one(DataTable)
        table.clear()
        summary = self.query_one("#history-summary", Static)
        if event.error is not None:
            summary.update(f"No history: {event.error}")
            return
        commits = len({e.commit for e in event.events})
        summary.update(f"{len(event.events)} fact events in {commits} commits (foundry memory log)")
        for e in event.events:
            table.add_row(e.commit[:8], e.date, e.author, e.action, e.fact_id, e.title, e.detail)
