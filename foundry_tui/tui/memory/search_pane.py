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
from textual.worker import Worker

from foundry_tui.core.errors import FoundryError
from foundry_tui.core.memory.model.hits import Hit, format_score
from foundry_tui.core.memory.model.vocabulary import TYPES
from foundry_tui.tui.common.row_list import Row, RowList
from foundry_tui.tui.common.text import counted, highlight_terms, plain, shown
from foundry_tui.tui.common.theme import ThemeColours
from foundry_tui.tui.common.workers import deliver, worker_state_changed

Searcher = Callable[[str, str | None], list[Hit]]


def match_style(colours: ThemeColours) -> str:
    """How a searched word is marked where a fact contains it (underlined: seen without colour too)."""
    return f"bold underline {colours.warning}"


class SearchResults(RowList):
    """The hits of the current query, best first."""


class SearchPane(Vertical):
    """Query, type filter and results; the search itself runs in a worker thread."""

    BORDER_TITLE = "Search"

    @dataclass
    class HitsChanged(Message):
        """New results: the query and its hits by fact id (for the score breakdown)."""

        query: str
        hits: dict[str, Hit]

    @dataclass
    class Searched(Message):
        """The search worker's result: the hits, or why the query could not run."""

        query: str
        hits: list[Hit]
        problem: str | None

    def __init__(self, searcher: Searcher, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.searcher = searcher
        self.shown_query = ""  # the query whose hits are listed: a new one selects its top hit

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
        self._search(self.query_text, self.query_one("#type-filter", Select).selection)

    @work(thread=True, exclusive=True, group="search", name="Search failed", exit_on_error=False)
    def _search(self, query: str, ftype: str | None) -> Searched:
        hits: list[Hit] = []
        problem = None
        if query.strip():
            try:
                hits = self.searcher(query, ftype)
            except FoundryError as exc:  # a query the core refuses: said in the results, not as a failure
                problem = str(exc)
        return deliver(self, self.Searched(query, hits, problem))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker_state_changed(self, event)

    def on_search_pane_searched(self, event: Searched) -> None:
        event.stop()
        self._show(event.query, event.hits, event.problem)

    def _show(self, query: str, hits: list[Hit], problem: str | None) -> None:
        colours = ThemeColours.of(self.app)
        results = self.query_one(SearchResults)
        options: list[Row] = []
        for hit in hits:
            line = Text.assemble(
                (f"{format_score(hit.score):>6} ", f"bold {colours.success}"),
                (hit.fact.id, "bold"),
                " ",
                highlight_terms(
                    Text(shown(hit.fact.title)), [m.term for m in hit.matches if m.title], match_style(colours)
                ),
            )
            options.append((hit.fact.id, line))
        if problem:
            options.append((None, plain(problem, style=colours.error)))
        elif query.strip() and not hits:
            options.append((None, plain(f'No active fact matches "{query}".', style="dim")))
        results.replace_rows(options)
        if hits and query != self.shown_query:  # a new query: its top hit is the fact shown
            results.highlighted = None
            results.highlighted = 0
        self.shown_query = query
        self.border_subtitle = counted(len(hits), "hit") if query.strip() else ""
        self.post_message(self.HitsChanged(query, {h.fact.id: h for h in hits}))
