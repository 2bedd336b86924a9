"""StatusHeader: the project root, active and total facts, doctor status, proposals
waiting, the screen's own counts, and a gauge of the index's tokens against its budget.

Every screen carries one. `StatusHeader()` feeds itself: it reads the app's project in a
worker when mounted and again on `refresh_status()` (a LiveScreen calls it whenever it is
shown or the files change). `StatusHeader(root_label)` is fed by its screen instead (the
memory screen, which has all of it at hand already). A screen adds its own figures with
`show_count("waves", "3 waves")`.

Textual's Header shows a title, not this line: it is a Horizontal of stock Labels and a
ProgressBar, styled in app.tcss (`Foundry · root`, the counts, the doctor's verdict, the
proposals waiting, hidden while there are none, `index`, the gauge, its figures, then the
screen's own figures in the order first shown). The root is the absolute path, shortened from
the left to the room the line leaves it; below COMPACT_BELOW columns the line is compact (shorter
words, smaller gaps and gauge) so that the index gauge stays in view at 80 columns.
While the sentence vectors are built in the background (issue 29), a figure after the gauge
says how far (`count-vectors`: `vectors 1,234/10,000`); it is gone once they are done.
`part(name)` reads what one part says in full (root, counts, doctor, pending, gauge-figures,
count-<key>), `shown_text(name)` what it shows now.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any, ClassVar

from rich.cells import cell_len
from textual import events, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Label
from textual.worker import Worker

from foundry_tui.core.memory.project import vector_progress_text
from foundry_tui.core.memory.reports.status import MemoryStatus
from foundry_tui.core.memory.reports.views import Overview
from foundry_tui.tui.common.index_gauge import IndexGauge
from foundry_tui.tui.common.text import plain, shown
from foundry_tui.tui.common.workers import deliver, worker_state_changed

if TYPE_CHECKING:
    from foundry_tui.core.memory.reports.doctor import DoctorReport
    from foundry_tui.tui.app import FoundryApp


VECTORS_POLL = 0.5  # seconds between looks at the sentence vectors' build (two attributes, no disk)
FIRST_READ_WAIT = 5.0  # seconds at most that the doctor waits for the screen's first read
DOCTOR_AFTER_READ = 0.3  # seconds after the screen's first read: time to show it before the doctor starts

GAUGE_WIDTH = 14  # the gauge's cells on screen (app.tcss): full when the index reaches its budget
# Below this width (80x24's terminal, say) the line is compact (the `-compact` rules in
# app.tcss): parts one cell apart, shorter words, the gauge 10 cells, no "Foundry · ", so
# that the counts, the doctor and the index gauge all fit beside the root.
COMPACT_BELOW = 100
GAP, COMPACT_GAP = 2, 1  # cells between parts (app.tcss: `margin-right`)
COMPACT_GAUGE_WIDTH = 10
MIN_ROOT_CELLS = 12  # the root keeps at least its last cells, however full the line


def left_shortened(text: str, cells: int) -> str:
    """`text` in at most `cells` cells, its start replaced by `…` when it is longer (a path's
    end names the folder)."""
    if cell_len(text) <= cells:
        return text
    kept = ""
    for char in reversed(text):
        if cell_len(kept) + cell_len(char) + 1 > cells:
            break
        kept = char + kept
    return f"…{kept}"


class StatusHeader(Horizontal):
    """One line of status above the panes."""

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
        self._again = False  # asked to read again while a read was under way: read once it ends
        # What each part shows, by the name `part` takes ("" when hidden).
        self._parts: dict[str, str] = {"counts": "loading…", "doctor": "", "pending": "", "gauge-figures": ""}
        self._compact_parts: dict[str, str] = {}  # the compact line's words, where they differ
        self.compact = False
        self._gauge: tuple[int, int] | None = None  # the index gauge's total and progress, once read
        self._screen_counts: dict[str, str] = {}

    def compose(self) -> ComposeResult:
        yield Label(plain(self._root_text()), id="root-label")
        yield Label("loading…", id="counts")
        yield Label("", id="doctor-status")
        pending = Label("", id="pending-count")
        pending.display = False  # takes no room until a proposal waits
        yield pending
        yield Label("index", id="gauge-label")
        yield IndexGauge(total=1, show_eta=False, show_percentage=False, id="gauge")
        yield Label("", id="gauge-figures")

    # ---- what it shows ------------------------------------------------------------------------

    def part(self, name: str) -> str:
        """What one part of the line shows ("" when hidden): `root`, `counts`, `doctor`,
        `pending`, `gauge-figures` or `count-<key>` (a KeyError for any other)."""
        if name.startswith("count-"):
            return self._screen_counts[name.removeprefix("count-")]
        if name == "root":
            return self._root_text()
        return self._parts[name]

    def _root_text(self) -> str:
        label = self.root_label if self.root_label is not None else getattr(self.app, "root_label", "")
        return shown(f"Foundry · {label}")  # a folder may be named `[x]` or hold an ESC

    def shown_text(self, name: str) -> str:
        """What the part shows now: its compact words on a compact line, the root shortened."""
        if name == "root":
            return self._fitted_root()
        return self._compact_parts.get(name, self._parts[name]) if self.compact else self._parts[name]

    _LABELS: ClassVar[dict[str, str]] = {
        "counts": "counts",
        "doctor": "doctor-status",
        "pending": "pending-count",
        "gauge-figures": "gauge-figures",
    }

    def _set(self, name: str, label_id: str, text: str, compact: str | None = None) -> Label:
        self._parts[name] = text
        if compact is None:
            self._compact_parts.pop(name, None)
        else:
            self._compact_parts[name] = compact
        label = self.query_one(f"#{label_id}", Label)
        label.update(plain(self.shown_text(name)))
        self._fit_root()
        return label

    def _fitted_root(self) -> str:
        """The root, from the left as far as the line has room beside the memory's parts (the
        screen's own figures come after and may be cut)."""
        label = self.root_label if self.root_label is not None else getattr(self.app, "root_label", "")
        text = shown(label) if self.compact else self._root_text()
        if not self.is_mounted or not self.size.width:
            return text
        gap = COMPACT_GAP if self.compact else GAP
        taken = 0  # `size` is the content's, inside the padding
        for name in self._LABELS:
            words = self.shown_text(name)
            if words:
                taken += cell_len(words) + gap
        taken += cell_len("index") + 1 + (COMPACT_GAUGE_WIDTH if self.compact else GAUGE_WIDTH)
        return left_shortened(text, max(MIN_ROOT_CELLS, self.size.width - taken - gap))

    def _fit_root(self) -> None:
        if self.is_mounted:
            self.query_one("#root-label", Label).update(plain(self._fitted_root()))

    def on_resize(self, event: events.Resize) -> None:
        compact = event.size.width < COMPACT_BELOW
        if compact != self.compact:
            self.compact = compact
            self.set_class(compact, "-compact")
            for name, label_id in self._LABELS.items():
                self.query_one(f"#{label_id}", Label).update(plain(self.shown_text(name)))
        self._fit_root()

    def _draw_gauge(self) -> None:
        """Set the gauge from the last figures (it redraws itself at each new width: IndexGauge)."""
        if self._gauge is None or not self.is_mounted:
            return
        total, progress = self._gauge
        gauge = self.query_one("#gauge", IndexGauge)
        gauge.update(total=total, progress=progress)
        gauge.redraw()

    # ---- reading ------------------------------------------------------------------------------

    def on_mount(self) -> None:
        if self.feeds_itself:  # after the screen's own mount, which starts its read first
            self.call_after_refresh(self._start)
        self.set_interval(VECTORS_POLL, self.show_vectors)

    def show_vectors(self) -> None:
        """The background build of the sentence vectors (issue 29): `vectors 1,234/10,000` while
        it embeds, nothing once it is done or when none runs. It reads what the builder thread
        last set (Project.vector_progress, Project.building_vectors), never the disk."""
        project = getattr(self.app, "project", None)
        if project is None:
            return
        done, total = project.vector_progress()
        text = vector_progress_text(done, total) if total > 0 and project.building_vectors() else ""
        if text != self._screen_counts.get("vectors", ""):
            self.show_count("vectors", text)

    def _start(self) -> None:
        if self._reading is None:
            self._reading = self._count()

    def refresh_status(self) -> None:
        """Read the status again (a header fed by its screen ignores this). Asked while a read
        is under way (it may have counted before the write that asks), it reads once more when
        that read ends: the figures shown never predate the latest request."""
        if not (self.feeds_itself and self.is_mounted):
            return
        reading = self._reading
        if reading is None or reading.is_finished:
            self._again = False
            self._reading = self._count()
        else:
            self._again = True

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
        if event.worker is self._reading and event.worker.is_finished and self._again:
            self.refresh_status()

    # ---- feeding ------------------------------------------------------------------------------

    def show_doctor(self, report: DoctorReport | None) -> None:
        """The doctor's verdict (it runs after the first paint; None while it runs)."""
        if report is None:
            self._set("doctor", "doctor-status", "doctor: checking…")
            return
        problems = report.failed + report.warned
        # `(d)` where the screen opens the report (the memory screen); F2 and then d elsewhere.
        hint = " (d)" if hasattr(self.screen, "action_show_doctor") else ""
        text = "doctor: ok" if not problems else f"doctor: {problems} problem{'s' if problems != 1 else ''}{hint}"
        compact = "doctor: ok" if not problems else f"doctor: {problems}{hint}"
        self._set("doctor", "doctor-status", text, compact).set_class(not report.ok, "failing")

    def show_pending(self, count: int) -> None:
        """How many proposals wait for a curator (the Approvals screen, F9)."""
        text = f"{count} proposal{'s' if count != 1 else ''} pending (F9)" if count > 0 else ""
        self._set("pending", "pending-count", text, f"{count} pending (F9)" if count > 0 else "").display = count > 0

    def show_count(self, key: str, text: str) -> None:
        """A figure of the screen's own (waves, sessions, searches), after the gauge (the
        line is cut at the screen's edge: the memory's own figures come first)."""
        text = shown(text)
        self._screen_counts[key] = text
        found = self.query(f"#count-{key}")
        if found:
            label = found.first(Label)
            label.update(plain(text))
        elif self.is_attached:  # a worker's figure may come as the app ends
            label = Label(plain(text), id=f"count-{key}", classes="screen-count")
            self.mount(label)
        else:
            return
        label.display = bool(text)

    def show(self, status: Overview | MemoryStatus) -> None:
        if isinstance(status, Overview):
            total = len(status.facts) + len(status.broken)
            status = MemoryStatus(len(status.active), total, status.index_tokens, status.budget)
        self._set(
            "counts",
            "counts",
            f"{status.active} active / {status.total} facts",
            f"{status.active}/{status.total} active",
        )
        self._gauge = (max(0, status.budget), min(status.index_tokens, status.budget))
        self._draw_gauge()
        figures = f"~{status.index_tokens}/{status.budget}"
        self._set("gauge-figures", "gauge-figures", f"{figures} tokens", figures)


def feed_headers(screen: Any) -> None:
    """Ask every self-fed header on `screen` to read the status again."""
    for header in screen.query(StatusHeader):
        header.refresh_status()
