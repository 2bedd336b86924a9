"""SearchPane: a query box that searches as you type (the core's scoring, limit and
minimum score from config), a type filter, and the hits with their scores."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Input, Select
from textual.worker import get_current_worker

from foundry_tui.core.errors import FoundryError
from foundry_tui.core.memory.facts import TYPES
from foundry_tui.core.memory.search import Hit, format_score
from foundry_tui.tui.widgets.fact_list import FactList, Row

Searcher = Callable[[str, str | None], list[Hit]]


class SearchResults(FactList):
    """The hits of the current query, best first."""


class SearchPane(Vertical):
    """Query, type filter and results; the search itself runs in a worker thread."""

    BORDER_TITLE = "Search"

    @dataclass
    class HitsChanged(Message):
        """New results: the query and its hits by fact id (for the score breakdown)."""

        query: str
        hits: dict[str, Hit]

    def __init__(self, searcher: Searcher, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.searcher = searcher

    def compose(self) -> ComposeResult:
        with Horizontal(id="search-bar"):
            yield Input(placeholder="search facts as an agent would…", id="query")
            yield Select([(t, t) for t in TYPES], prompt="any type", id="type-filter")
        yield SearchResults(id="results")

    @property
    def query_text(self) -> str:
        return self.query_one("#query", Input).value

    @on(Input.Changed, "#query")
    @on(Select.Changed, "#type-filter")
    def _criteria_changed(self) -> None:
        self.refresh_results()

    def refresh_results(self) -> None:
        """Search again with the current query and filter (after typing or a change on disk)."""
        selected = self.query_one("#type-filter", Select).value
        ftype = selected if isinstance(selected, str) else None
        self._search(self.query_text, ftype)

    @work(thread=True, exclusive=True, group="search")
    def _search(self, query: str, ftype: str | None) -> None:
        hits: list[Hit] = []
        problem = None
        if query.strip():
            try:
                hits = self.searcher(query, ftype)
            except FoundryError as exc:
                problem = str(exc)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show, query, hits, problem)

    def _show(self, query: str, hits: list[Hit], problem: str | None) -> None:
        results = self.query_one(SearchResults)
        options: list[Row] = []
        for hit in hits:
            line = Text.assemble(
                (f"{format_score(hit.score):>6} ", "bold green"), (hit.fact.id, "bold"), " ", hit.fact.title
            )
            options.append((hit.fact.id, line))
        if problem:
            options.append((None, Text(problem, style="red")))
        elif query.strip() and not hits:
            options.append((None, Text(f'No active fact matches "{query}".', style="dim")))
        results.replace_rows(options)
        self.border_subtitle = f"{len(hits)} hits" if query.strip() else ""
        self.post_message(self.HitsChanged(query, {h.fact.id: h for h in hits}))
