"""The Health screen's charts, drawn with plotext (through textual-plotext's `Plot`, one
figure per chart, so that charts can be drawn in a worker thread without sharing
plotext's module-level figure) into Rich Text, at a width the screen gives.

Days are grouped into buckets of several days when there are more days than the width
can show as bars (a year of events becomes about a bar per week), so a chart costs the
same to draw whatever the span.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from rich.text import Text
from textual.app import App
from textual.color import Color

from foundry_tui.core.artefacts.health import WRITE_OUTCOMES, HealthFigures, SearchDay, WriteDay
from foundry_tui.core.history.timeline import TimelinePoint
from foundry_tui.core.memory.model.vocabulary import TYPE_ORDER

RGB = tuple[int, int, int]
T = TypeVar("T")
COLUMNS_PER_BAR = 3  # a bar and a gap, at the least
MAX_POINTS = 120  # a line over history: at most this many points (the last of each bucket)


@dataclass(frozen=True)
class ChartColours:
    """RGB colours from the app's theme (plotext takes RGB tuples)."""

    good: RGB
    bad: RGB
    warn: RGB
    primary: RGB
    muted: RGB
    other: RGB  # the read gate's denials, beside the write outcomes
    palette: tuple[RGB, ...]  # one per fact type

    @classmethod
    def of(cls, app: App[object]) -> ChartColours:
        v = app.theme_variables or app.get_css_variables()

        def rgb(name: str, fallback: str = "#888888") -> RGB:
            return Color.parse(v.get(name, fallback)).rgb

        names = ("primary", "success", "warning", "error", "secondary", "accent", "foreground", "primary-lighten-3")
        palette = tuple(dict.fromkeys(rgb(n) for n in names))  # a theme may give two names one colour
        muted = Color.parse(v.get("foreground", "#888888")).blend(Color.parse(v.get("background", "#000000")), 0.5).rgb
        return cls(rgb("success"), rgb("error"), rgb("warning"), rgb("primary"), muted, rgb("secondary"), palette)


@dataclass
class Charts:
    """The drawn charts; None where there is nothing to draw (the screen says why instead)."""

    searches: Text | None
    writes: Text | None
    index: Text | None
    types: Text | None


def draw_charts(
    figures: HealthFigures, width: int, height: int, colours: ChartColours, *, events: Charts | None = None
) -> Charts:
    """The four charts; `events`: the two charts of the events, drawn already (draw_event_charts)."""
    width, height = max(width, 24), max(height, 6)
    points = figures.timeline.points
    events = events or draw_event_charts(figures, width, height, colours)
    return Charts(
        events.searches,
        events.writes,
        index_chart(points, figures.tokens.budget, width, height, colours) if points else None,
        types_chart(points, width, height, colours) if points else None,
    )


def draw_event_charts(figures: HealthFigures, width: int, height: int, colours: ChartColours) -> Charts:
    """The charts of the events only (searches, writes): they can be shown before the git history is read."""
    width, height = max(width, 24), max(height, 6)
    has_events = bool(figures.searches)
    return Charts(
        searches_chart(figures.searches, width, height, colours) if has_events else None,
        writes_chart(figures.writes, width, height, colours) if has_events else None,
        None,
        None,
    )


def bucket_size(days: int, width: int) -> int:
    """How many days one bar holds so that the bars fit the width."""
    bars = max((width - 8) // COLUMNS_PER_BAR, 1)
    return max(-(-days // bars), 1)


def _buckets(items: Sequence[T], size: int) -> list[list[T]]:
    return [list(items[i : i + size]) for i in range(0, len(items), size)]


def _label(first: str, size: int) -> str:
    return first[5:] if size == 1 else f"{first[5:]}+"


def _plot(width: int, height: int):  # type: ignore[no-untyped-def]  # plotext's figure is untyped
    from textual_plotext.plot import Plot

    plt = Plot()
    plt.theme("clear")  # no colours of its own for canvas and axes: the screen's show through
    # plotext bounds a figure by the terminal it finds (shutil.get_terminal_size): the screen's
    # charts are parts of that terminal's width and height, so the bound never cuts them.
    plt.plotsize(width, height)
    return plt


def _xticks(plt, labels: list[str], width: int) -> None:  # type: ignore[no-untyped-def]
    label_width = max((len(label) for label in labels), default=1) + 2
    every = max(-(-len(labels) * label_width // max(width - 8, 1)), 1)
    shown = list(range(0, len(labels), every))
    plt.xticks([i + 1 for i in shown], [labels[i] for i in shown])


def _day_numbers(dates: list[str]) -> list[int]:
    """Each `YYYY-MM-DD` as days after the first, plus one: a time axis, where 17 days and 84
    days apart are not drawn alike (the history's points are the days with commits)."""
    import datetime as _dt

    days = [_dt.date.fromisoformat(d).toordinal() for d in dates]
    return [day - days[0] + 1 for day in days] if days else []


def _time_xticks(plt, xs: list[int], labels: list[str], width: int) -> None:  # type: ignore[no-untyped-def]
    """Tick labels at their dates' places, each far enough from the last one shown not to overlap.

    plotext centres a label among the free cells within its own length of its place, and places
    the labels in an order of its own (a set's, so the hash seed's): labels nearer than twice
    their length would move by a cell from run to run. So they are kept twice as far apart."""
    label_width = 2 * max((len(label) for label in labels), default=1) + 2
    span = max(xs[-1] - xs[0], 1) if xs else 1
    gap = label_width * span / max(width - 8, 1)  # the x distance one label takes
    ticks: list[int] = []
    names: list[str] = []
    for x, label in zip(xs, labels, strict=True):
        if not ticks or x - ticks[-1] >= gap:
            ticks.append(x)
            names.append(label)
    plt.xticks(ticks, names)


def _text(plt, legend: list[tuple[str, RGB]]) -> Text:  # type: ignore[no-untyped-def]
    """The chart, then its legend on a line of its own (plotext's would cover the bars)."""
    text = Text.from_ansi(plt.build().rstrip("\n"), no_wrap=True)
    text.append("\n")
    for name, (r, g, b) in legend:
        text.append("■", style=f"rgb({r},{g},{b})")
        text.append(f"{name} ")
    return text


def searches_chart(days: list[SearchDay], width: int, height: int, colours: ChartColours) -> Text:
    size = bucket_size(len(days), width)
    groups = _buckets(days, size)
    found = [sum(d.searches - d.empty for d in g) for g in groups]
    empty = [sum(d.empty for d in g) for g in groups]
    labels = [_label(g[0].day, size) for g in groups]
    plt = _plot(width, height)
    positions = list(range(1, len(groups) + 1))
    plt.stacked_bar(positions, [found, empty], color=[colours.good, colours.bad])
    _xticks(plt, labels, width)
    return _text(plt, [("found something", colours.good), ("found nothing", colours.bad)])


def writes_chart(days: list[WriteDay], width: int, height: int, colours: ChartColours) -> Text:
    size = bucket_size(len(days), width)
    groups = _buckets(days, size)
    series = [[sum(d.outcomes[o] for d in g) for g in groups] for o in WRITE_OUTCOMES]
    series.append([sum(d.gate_denials for d in g) for g in groups])
    labels = [_label(g[0].day, size) for g in groups]
    tints = [colours.good, colours.primary, colours.muted, colours.warn, colours.bad, colours.other]
    plt = _plot(width, height)
    plt.stacked_bar(list(range(1, len(groups) + 1)), series, color=tints)
    _xticks(plt, labels, width)
    return _text(plt, list(zip([*WRITE_OUTCOMES, "gate denied"], tints, strict=True)))


def _sample(points: list[TimelinePoint]) -> list[TimelinePoint]:
    size = -(-len(points) // MAX_POINTS)
    return [group[-1] for group in _buckets(points, size)] if size > 1 else points


def index_chart(points: list[TimelinePoint], budget: int, width: int, height: int, colours: ChartColours) -> Text:
    shown = _sample(points)
    xs = _day_numbers([p.date for p in shown])
    plt = _plot(width, height)
    plt.plot(xs, [p.index_tokens or 0 for p in shown], color=colours.primary, marker="braille")
    plt.plot(xs, [budget] * len(xs), color=colours.bad, marker="braille")
    plt.ylim(0, max(budget, *(p.index_tokens or 0 for p in shown)) * 1.1)
    _time_xticks(plt, xs, [p.date[2:] for p in shown], width)
    last = shown[-1].index_tokens or 0
    return _text(plt, [(f"INDEX.md tokens (now ~{last})", colours.primary), (f"budget {budget}", colours.bad)])


def types_chart(points: list[TimelinePoint], width: int, height: int, colours: ChartColours) -> Text:
    shown = _sample(points)
    size = max(-(-len(shown) // max((width - 8) // COLUMNS_PER_BAR, 1)), 1)
    shown = [g[-1] for g in _buckets(shown, size)]
    present = [t for t in TYPE_ORDER if any(p.active.get(t) for p in shown)]
    others = sorted({t for p in shown for t in p.active} - set(TYPE_ORDER))  # a hand-written type
    kinds = present + others
    series = [[p.active.get(t, 0) for p in shown] for t in kinds]
    plt = _plot(width, height)
    if not kinds:
        series, kinds = [[0] * len(shown)], ["no active facts"]
    tints = [colours.palette[i % len(colours.palette)] for i in range(len(kinds))]
    xs = _day_numbers([p.date for p in shown])
    plt.stacked_bar(xs, series, color=tints)
    _time_xticks(plt, xs, [p.date[2:] for p in shown], width)
    return _text(plt, list(zip(kinds, tints, strict=True)))
