"""HealthScreen (F5): is the memory getting better or worse? Searches per day with the share
that found nothing, writes per day by outcome with the gate's denials, INDEX.md's tokens
against the budget and the active facts by type over the git history; the most missed
queries (each opens the curator's missed-search tab), the eager versus index-first cost
bars, the token report as markdown, and the event counts. `n` shows each chart's numbers.

One worker reads everything (core/artefacts/health.py) and draws the charts at the
screen's width: the events' charts, the missed queries and the report are shown as soon
as the events are counted (EventsLoaded), the history's charts when git has read it
(Loaded); a resize or a new theme draws them again from what was read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.events import Resize
from textual.message import Message
from textual.widgets import DataTable, Footer, Label, Markdown, OptionList, Static
from textual.widgets.option_list import Option

from foundry_tui.core.artefacts.health import NO_EVENTS, WRITE_OUTCOMES, HealthFigures, health_figures, no_history
from foundry_tui.tui.common.live import LiveScreen
from foundry_tui.tui.common.status_header import StatusHeader
from foundry_tui.tui.common.text import plain
from foundry_tui.tui.common.theme import ThemeColours
from foundry_tui.tui.common.workers import deliver
from foundry_tui.tui.health.charts import ChartColours, Charts, draw_charts, draw_event_charts

NO_WRITES = (
    "No writes recorded yet: each memory_write an agent makes through the MCP server is counted here by its "
    "outcome (created, updated, unchanged, parked, denied), with the read gate's denials."
)
NO_TYPES = "The active facts by type at the end of each day that changed them appear here once the memory is in git."
BAR_WIDTH = 30  # half the screen's width at 80 columns
CHART_KEYS = ("searches", "writes", "index", "types")
CHART_HEIGHT = 12


def cost_bars(eager: int, index_first: int, colours: ThemeColours) -> Text:
    """Two bars on one scale: what loading everything costs, and what the index costs."""
    scale = max(eager, index_first, 1)
    text = Text()
    for label, value, style in (("eager      ", eager, colours.error), ("index-first", index_first, colours.success)):
        filled = max(1, round(BAR_WIDTH * value / scale)) if value else 0
        text.append(f"{label} ", style="bold")
        text.append("█" * filled, style=style)
        text.append("░" * (BAR_WIDTH - filled), style="dim")
        text.append(f" ~{value}\n")
    return text


NARROW_BELOW = 100  # FoundryApp.HORIZONTAL_BREAKPOINTS' `-narrow`


class HealthScreen(LiveScreen):
    """Four charts in a grid, then the missed queries, the costs and the report."""

    BUSY_ON_LOAD = False  # its charts are shown as each part arrives (the history last)

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "toggle_numbers", "Numbers"),
        Binding("c", "open_missed", "Missed → curator"),
    ]

    @dataclass
    class Loaded(Message):
        figures: HealthFigures
        charts: Charts

    @dataclass
    class EventsLoaded(Message):
        """The events' figures and charts, posted while the git history is still being read."""

        figures: HealthFigures
        charts: Charts

    @dataclass
    class Drawn(Message):
        charts: Charts

    def __init__(self) -> None:
        super().__init__()
        self.figures: HealthFigures | None = None
        self.missed: list[tuple[str, int]] = []  # the most missed queries, as listed (known before the history)
        self.drawn_width = 0
        self.numbers_filled = False  # the tables are filled when first shown (a year is 365 rows each)

    def compose(self) -> ComposeResult:
        self._reading = self.load()  # the read starts now: mounting the widgets takes a moment too
        yield StatusHeader()
        with VerticalScroll(id="health"):
            with Grid(id="charts"):
                for key, title in (
                    ("searches", "Searches per day: found something / found nothing"),
                    ("writes", "Writes per day by outcome, and the read gate's denials"),
                    ("index", "INDEX.md tokens against the budget, over the git history"),
                    ("types", "Active facts by type, over the git history"),
                ):
                    with Vertical(classes="chart-cell", id=f"{key}-cell"):
                        yield Label(title, classes="chart-title")
                        yield Static("loading…", id=f"{key}-chart", classes="chart")
                        # Each chart's numbers (a DataTable) are mounted under it when first asked for:
                        # four tables nobody looks at would cost the first paint their styling.
            with Horizontal(id="health-lower"):
                with Vertical(id="missed-box"):
                    yield Label("Most missed searches (enter: open in the curator)", classes="chart-title")
                    yield OptionList(id="top-missed")
                with Vertical(id="cost-box"):
                    yield Label("Tokens per session: loading everything, or the index first", classes="chart-title")
                    yield Static("", id="cost-bars")
            yield Markdown("", id="token-report")
            yield DataTable(id="events", cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:  # LiveScreen's on_mount (the load) runs too: Textual calls each class's handler
        self.query_one("#events", DataTable).add_columns("event", "count")

    def _chart_size(self) -> tuple[int, int]:
        """The width of one grid cell (half the screen, less the padding and the scrollbar; the
        whole screen below NARROW_BELOW columns, where the grid has one column: app.tcss)."""
        width = self.app.size.width
        if width < NARROW_BELOW:
            return max(width - 6, 24), CHART_HEIGHT
        return max((width - 8) // 2, 24), CHART_HEIGHT

    @work(thread=True, exclusive=True, group="health", name="Health not read", exit_on_error=False)
    def load(self) -> Loaded:
        """The events' charts are drawn and shown while git is still reading (most of the
        history's time is git's, in other processes); then the history's."""
        width, height = self._chart_size()
        colours = ChartColours.of(self.app)
        drawn: list[Charts] = []

        def events_read(figures: HealthFigures) -> None:
            drawn.append(draw_event_charts(figures, width, height, colours))
            deliver(self, self.EventsLoaded(figures, drawn[0]))

        # (health_figures takes the project's lock itself; the history is read by another
        # process, as this one's threads are busy building the screen meanwhile)
        figures = health_figures(self.project, self.today, events_read, history_apart=True)
        charts = draw_charts(figures, width, height, colours, events=drawn[0] if drawn else None)
        return deliver(self, self.Loaded(figures, charts))

    @work(thread=True, exclusive=True, group="health-draw", name="Charts not drawn", exit_on_error=False)
    def redraw(self, figures: HealthFigures) -> Drawn:
        width, height = self._chart_size()
        return deliver(self, self.Drawn(draw_charts(figures, width, height, ChartColours.of(self.app))))

    def on_resize(self, _event: Resize) -> None:
        if self.figures is not None and self._chart_size()[0] != self.drawn_width:
            self.redraw(self.figures)

    def on_health_screen_drawn(self, event: Drawn) -> None:
        self._show_charts(event.charts)

    def on_health_screen_events_loaded(self, event: EventsLoaded) -> None:
        """Everything but the history's charts (which still say loading…)."""
        figures = event.figures
        self.missed = figures.missed
        for key, chart in (("searches", event.charts.searches), ("writes", event.charts.writes)):
            self._show_chart(key, chart, NO_EVENTS if key == "searches" else NO_WRITES)
        tokens = figures.tokens
        self.query_one("#cost-bars", Static).update(cost_bars(tokens.eager, tokens.index, ThemeColours.of(self.app)))
        self.query_one("#token-report", Markdown).update(tokens.text())
        events = self.query_one("#events", DataTable)
        events.clear()
        for kind, count in tokens.events.items():
            events.add_row(plain(kind), str(count))  # a kind is read from events.jsonl: text, not markup
        if not tokens.events:
            events.add_row("(no events recorded yet)", "")
        missed = self.query_one("#top-missed", OptionList)
        missed.clear_options()
        if figures.missed:
            missed.add_options(
                Option(Text.assemble((f"×{count} ", "bold"), plain(query)), id=f"missed:{i}")
                for i, (query, count) in enumerate(figures.missed)
            )
        else:
            missed.add_option(Option(Text("No search came back empty.", style="dim"), disabled=True))
        header = self.query_one(StatusHeader)
        share = figures.empty_total / figures.search_total if figures.search_total else 0.0
        header.show_count("searches", f"{figures.search_total} searches, {share:.0%} empty" if figures.searches else "")

    def on_health_screen_loaded(self, event: Loaded) -> None:
        self.figures = figures = event.figures
        self._show_charts(event.charts)
        self.numbers_filled = False
        if any(t.display for t in self.query(".numbers").results(DataTable)):
            self._fill_numbers(figures)

    def _show_charts(self, charts: Charts) -> None:
        self.drawn_width = self._chart_size()[0]
        figures = self.figures
        timeline = figures.timeline if figures is not None else None
        empty_history = no_history(timeline) if timeline is not None else ""
        for key, chart, empty in (
            ("searches", charts.searches, NO_EVENTS),
            ("writes", charts.writes, NO_WRITES),
            ("index", charts.index, empty_history),
            ("types", charts.types, NO_TYPES),
        ):
            self._show_chart(key, chart, empty)

    def _show_chart(self, key: str, chart: Text | None, empty: str) -> None:
        widget = self.query_one(f"#{key}-chart", Static)
        widget.set_class(chart is None, "empty")
        widget.update(chart if chart is not None else Text(empty, style="italic"))

    def _fill_numbers(self, figures: HealthFigures) -> None:
        self.numbers_filled = True

        def fill(key: str, columns: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
            table = self.query_one(f"#{key}-numbers", DataTable)
            table.clear(columns=True)
            table.add_columns(*columns)
            table.add_rows(rows)

        fill(
            "searches",
            ("day", "searches", "found nothing", "share"),
            [(d.day, str(d.searches), str(d.empty), f"{d.empty_share:.0%}") for d in figures.searches if d.searches],
        )
        fill(
            "writes",
            ("day", *WRITE_OUTCOMES, "gate denials"),
            [
                (d.day, *(str(d.outcomes[o]) for o in WRITE_OUTCOMES), str(d.gate_denials))
                for d in figures.writes
                if any(d.outcomes.values()) or d.gate_denials
            ],
        )
        points = figures.timeline.points
        fill(
            "index",
            ("day", "commit", "INDEX.md tokens", "budget"),
            [(p.date, p.commit[:8], str(p.index_tokens or 0), str(figures.tokens.budget)) for p in points],
        )
        kinds = sorted({t for p in points for t in p.active})
        fill(  # the total before the types: in sight at 80 columns, where the seven types scroll
            "types",
            ("day", "active", *kinds),
            [(p.date, str(sum(p.active.values())), *(str(p.active.get(t, 0)) for t in kinds)) for p in points],
        )

    def recolour(self) -> None:
        if self.figures is not None:
            self.redraw(self.figures)
            self.query_one("#cost-bars", Static).update(
                cost_bars(self.figures.tokens.eager, self.figures.tokens.index, ThemeColours.of(self.app))
            )

    # ---- actions ---------------------------------------------------------------------------

    async def action_toggle_numbers(self) -> None:
        """Each chart's numbers, as a table under it (and hidden again)."""
        tables = list(self.query(".numbers").results(DataTable))
        if not tables:
            for key in CHART_KEYS:
                table: DataTable[str] = DataTable(id=f"{key}-numbers", classes="numbers", cursor_type="row")
                table.display = False
                tables.append(table)
                await self.query_one(f"#{key}-cell", Vertical).mount(table)
        show = not any(t.display for t in tables)
        if show and not self.numbers_filled and self.figures is not None:
            self._fill_numbers(self.figures)
        for table in tables:
            table.display = show

    @on(OptionList.OptionSelected, "#top-missed")
    async def _missed_chosen(self, event: OptionList.OptionSelected) -> None:
        await self.open_missed(event.option_index)

    async def action_open_missed(self) -> None:
        highlighted = self.query_one("#top-missed", OptionList).highlighted
        await self.open_missed(highlighted if highlighted is not None else 0)

    async def open_missed(self, position: int) -> None:
        """The curator's missed-search tab, on this query (its nearest facts, `t` to tag one)."""
        if not 0 <= position < len(self.missed):
            self.notify("No missed search to open: none came back empty.", severity="warning")
            return
        query = self.missed[position][0]
        from foundry_tui.tui.curator.screen import CuratorScreen

        await self.app.switch_mode("curator")
        curator = self.app.screen
        if isinstance(curator, CuratorScreen):
            curator.show_missed(query)
