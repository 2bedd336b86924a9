"""StatusHeader: the project root, active and total facts, doctor status, proposals
waiting, the screen's own counts, and a gauge of the index's tokens against its budget.

Every screen carries one. `StatusHeader()` feeds itself: it reads the app's project in a
worker when mounted and again on `refresh_status()` (a LiveScreen calls it whenever it is
shown or the files change). `StatusHeader(root_label)` is fed by its screen instead (the
memory screen, which has all of it at hand already). A screen adds its own figures with
`show_count("waves", "3 waves")`.

It is one widget with no children that draws its line itself (it was a row of six Labels
and a ProgressBar, nine widgets to compose, mount and style on every screen before the
first frame): `Foundry · root`, the counts, the doctor's verdict, the proposals waiting
(no room at all while there are none), `index`, the gauge, its figures, then the screen's
own figures in the order first shown, two cells apart, cut at the screen's edge (the
memory's own figures come first). The gauge is Textual's own bar renderable in the colours
a ProgressBar gives it. The styles are component classes in app.tcss; `part(name)` reads
what one part shows (root, counts, doctor, pending, gauge-figures, count-<key>).
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any, ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import work
from textual.message import Message
from textual.renderables.bar import Bar
from textual.strip import Strip
from textual.widget import Widget
from textual.worker import Worker

from foundry_tui.core.memory.reports.doctor import DoctorReport
from foundry_tui.core.memory.reports.status import MemoryStatus
from foundry_tui.core.memory.reports.views import Overview
from foundry_tui.tui.common.text import shown
from foundry_tui.tui.common.workers import deliver, worker_state_changed

if TYPE_CHECKING:
    from foundry_tui.tui.app import FoundryApp


FIRST_READ_WAIT = 5.0  # seconds at most that the doctor waits for the screen's first read
DOCTOR_AFTER_READ = 0.3  # seconds after the screen's first read: time to show it before the doctor starts

GAP = 2  # cells after each part (the Labels' margin-right)
GAUGE_GAP = 1  # cells between `index` and the gauge
GAUGE_WIDTH = 14  # the gauge's cells on screen: full when the index reaches its budget


class StatusHeader(Widget):
    """One line of status above the panes."""

    ALLOW_SELECT = False  # drawn as strips (no text to select)
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "status-header--root",
        "status-header--doctor-ok",
        "status-header--doctor-failing",
        "status-header--pending",
        "status-header--muted",
        "status-header--bar",
        "status-header--bar-complete",
    }

    class Counted(Message):
        """What the header's own worker read (the status, and the proposals waiting)."""

        def __init__(self, status: MemoryStatus, pending: int) -> None:
            super().__init__()
            self.status = status
            self.pending = pending

    class Checked(Message):
        def __init__(self, report: DoctorReport) -> None:
            super().__init__()
            self.report = report

    def __init__(self, root_label: str | None = None) -> None:
        super().__init__()
        self.feeds_itself = root_label is None
        self.root_label = root_label
        self._reading: Worker[None] | None = None
        self._counts = "loading…"
        self._doctor = ""
        self._failing = False
        self._pending = ""  # "" while no proposal waits (it takes no room)
        self._figures = ""
        self._progress = 0.0
        self._total = 1.0
        self._screen_counts: dict[str, str] = {}  # in the order first shown; "" hides one
        self._line: tuple[int, Strip] | None = None  # (width, strip) as last drawn

    # ---- what it shows ------------------------------------------------------------------------

    def part(self, name: str) -> str:
        """What one part of the line shows ("" when hidden): `root`, `counts`, `doctor`,
        `pending`, `gauge-figures` or `count-<key>` (a KeyError for any other)."""
        if name.startswith("count-"):
            return self._screen_counts[name.removeprefix("count-")]
        if name == "root":
            return self._root_text()
        parts = {
            "counts": self._counts,
            "doctor": self._doctor,
            "pending": self._pending,
            "gauge-figures": self._figures,
        }
        return parts[name]

    def _root_text(self) -> str:
        label = self.root_label if self.root_label is not None else getattr(self.app, "root_label", "")
        return shown(f"Foundry · {label}")  # a folder may be named `[x]` or hold an ESC

    def _changed(self) -> None:
        self._line = None
        self.refresh()

    # ---- reading ------------------------------------------------------------------------------

    def on_mount(self) -> None:
        if self.feeds_itself:  # after the screen's own mount, which starts its read first
            self.call_after_refresh(self._start)

    def _start(self) -> None:
        if self._reading is None:
            self._reading = self._count()

    def refresh_status(self) -> None:
        """Read the status again (a header fed by its screen ignores this; so does one whose
        read is still under way)."""
        reading = self._reading
        if self.feeds_itself and self.is_mounted and (reading is None or reading.is_finished):
            self._reading = self._count()

    @work(thread=True, exclusive=True, group="status-header", name="Status not read", exit_on_error=False)
    def _count(self) -> None:
        from foundry_tui.core.gate.proposals import pending_count
        from foundry_tui.core.memory.reports.doctor import run_doctor
        from foundry_tui.core.memory.reports.status import memory_status

        app: FoundryApp = self.app  # type: ignore[assignment]
        project, today = app.project, app.today
        with project.lock:
            status = memory_status(project, today)
        deliver(self, self.Counted(status, pending_count(project.layout)))
        # The doctor checks every fact: let the screen's own first read go first (a LiveScreen
        # sets `first_read_done` when it ends), and its result reach the screen (the lock and
        # the interpreter are shared), a few seconds at most.
        first_read_done = getattr(self.screen, "first_read_done", None)
        if isinstance(first_read_done, threading.Event) and not first_read_done.is_set():
            first_read_done.wait(FIRST_READ_WAIT)
            time.sleep(DOCTOR_AFTER_READ)
        with project.lock:
            deliver(self, self.Checked(run_doctor(project, today)))

    def on_status_header_counted(self, event: Counted) -> None:
        self.show(event.status)
        self.show_pending(event.pending)

    def on_status_header_checked(self, event: Checked) -> None:
        self.show_doctor(event.report)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker_state_changed(self, event)

    # ---- feeding ------------------------------------------------------------------------------

    def show_doctor(self, report: DoctorReport | None) -> None:
        """The doctor's verdict (it runs after the first paint; None while it runs)."""
        if report is None:
            self._doctor = "doctor: checking…"
            self._changed()
            return
        problems = report.failed + report.warned
        # `(d)` where the screen opens the report (the memory screen); F2 and then d elsewhere.
        hint = " (d)" if hasattr(self.screen, "action_show_doctor") else ""
        self._doctor = (
            "doctor: ok" if not problems else f"doctor: {problems} problem{'s' if problems != 1 else ''}{hint}"
        )
        self._failing = not report.ok
        self._changed()

    def show_pending(self, count: int) -> None:
        """How many proposals wait for a curator (the Approvals screen, F9)."""
        self._pending = f"{count} proposal{'s' if count != 1 else ''} pending (F9)" if count > 0 else ""
        self._changed()

    def show_count(self, key: str, text: str) -> None:
        """A figure of the screen's own (waves, sessions, searches), after the gauge (the
        line is cut at the screen's edge: the memory's own figures come first)."""
        self._screen_counts[key] = shown(text)
        self._changed()

    def show(self, status: Overview | MemoryStatus) -> None:
        if isinstance(status, Overview):
            total = len(status.facts) + len(status.broken)
            status = MemoryStatus(len(status.active), total, status.index_tokens, status.budget)
        self._counts = f"{status.active} active / {status.total} facts"
        self._total = max(0, status.budget)
        self._progress = min(status.index_tokens, status.budget)
        self._figures = f"~{status.index_tokens}/{status.budget} tokens"
        self._changed()

    # ---- drawing ------------------------------------------------------------------------------

    def notify_style_update(self) -> None:
        """A new theme (or any style change) makes the line as drawn stale."""
        super().notify_style_update()
        self._changed()

    def render_line(self, y: int) -> Strip:
        width = self.content_region.width
        if y:
            return Strip.blank(width, self._gap_style())
        line = self._line
        if line is None or line[0] != width:
            line = self._line = (width, self._render_status(width))
        return line[1]

    def _gap_style(self) -> Style:
        """The cells between parts: the header's background only."""
        return Style(bgcolor=self.rich_style.bgcolor)

    def _percentage(self) -> float:
        """As a ProgressBar of this total and progress gives its Bar (whole half cells)."""
        total = self._total
        percentage = min(max(self._progress / total, 0.0), 1.0) if total else 1.0
        halves = GAUGE_WIDTH * 2
        return int(percentage * halves) / halves

    def _gauge(self) -> list[Segment]:
        percentage = self._percentage()
        style = self.get_component_rich_style("status-header--bar" if percentage < 1 else "status-header--bar-complete")
        bar = Bar(
            highlight_range=(0, GAUGE_WIDTH * percentage),
            highlight_style=Style.from_color(style.color),
            background_style=Style.from_color(style.bgcolor),
            width=GAUGE_WIDTH,
        )
        console = self.app.console
        return list(console.render(bar, console.options.update_width(GAUGE_WIDTH)))

    def _render_status(self, width: int) -> Strip:
        base = self.rich_style
        muted = self.get_component_rich_style("status-header--muted")
        gap = self._gap_style()
        segments: list[Segment] = []

        def add(text: str, style: Style, after: int = GAP) -> None:
            if text:
                segments.append(Segment(text, style))
            segments.append(Segment(" " * after, gap))

        add(self._root_text(), self.get_component_rich_style("status-header--root"))
        add(self._counts, base)
        doctor = "status-header--doctor-failing" if self._failing else "status-header--doctor-ok"
        add(self._doctor, self.get_component_rich_style(doctor))  # its room kept while empty, as before
        if self._pending:
            add(self._pending, self.get_component_rich_style("status-header--pending"))
        add("index", muted, GAUGE_GAP)
        segments.extend(Segment.apply_style(self._gauge(), base))
        add(self._figures, base)
        for text in self._screen_counts.values():
            if text:
                add(text, muted)
        return Strip(segments).crop(0, width)


def feed_headers(screen: Any) -> None:
    """Ask every self-fed header on `screen` to read the status again."""
    for header in screen.query(StatusHeader):
        header.refresh_status()
