"""StatusHeader: the status line, a row of stock Labels and a ProgressBar, fed by its screen
or by its own worker."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual import work
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Label, ProgressBar

import foundry_tui.tui
from foundry_tui.core.memory.reports.doctor import FAIL, OK, WARN, Check, DoctorReport
from foundry_tui.core.memory.reports.status import MemoryStatus
from foundry_tui.tui.common import status_header
from foundry_tui.tui.common.live import LiveScreen
from foundry_tui.tui.common.status_header import FIRST_READ_WAIT, GAUGE_WIDTH, StatusHeader
from foundry_tui.tui.common.text import plain
from tests.tui_helpers import drawn, make_app, settle, text_of

APP_CSS = str(Path(foundry_tui.tui.__file__).parent / "app.tcss")  # the header's styles

# The line as the one-widget copy drew it, written here as the Labels and ProgressBar it
# replaced (the line a user saw before and after): the reference the header is drawn
# against, so that a change to app.tcss that changes the line shows. The gauge's bar is 14
# wide (Textual's default of 32, cut to 14, was full from 44% of the budget on).
OLD_CSS = """
OldHeader { height: 1; background: $panel; padding: 0 1; }
OldHeader Label { margin-right: 2; }
OldHeader #root-label { text-style: bold; }
OldHeader #doctor-status { color: $success; }
OldHeader #doctor-status.failing { color: $error; text-style: bold; }
OldHeader #gauge-label { color: $text-muted; margin-right: 1; }
OldHeader #gauge { width: 14; }
#gauge Bar { width: 14; }
OldHeader .screen-count { color: $text-muted; }
OldHeader #pending-count { color: $warning; }
"""


class OldHeader(Horizontal):
    def compose(self) -> ComposeResult:
        yield Label(plain("Foundry · demo"), id="root-label")
        yield Label("loading…", id="counts")
        yield Label("", id="doctor-status")
        pending = Label("", id="pending-count")
        pending.display = False
        yield pending
        yield Label("index", id="gauge-label")
        yield ProgressBar(total=1, show_eta=False, show_percentage=False, id="gauge")
        yield Label("", id="gauge-figures")

    def show_doctor(self, report: DoctorReport | None) -> None:
        status = self.query_one("#doctor-status", Label)
        if report is None:
            status.update("doctor: checking…")
            return
        problems = report.failed + report.warned
        status.update("doctor: ok" if not problems else f"doctor: {problems} problem{'s' if problems != 1 else ''}")
        status.set_class(not report.ok, "failing")

    def show_pending(self, count: int) -> None:
        label = self.query_one("#pending-count", Label)
        label.update(f"{count} proposal{'s' if count != 1 else ''} pending (F9)")
        label.display = count > 0

    def show_count(self, key: str, text: str) -> None:
        found = self.query(f"#count-{key}")
        if found:
            label = found.first(Label)
            label.update(plain(text))
        else:
            label = Label(plain(text), id=f"count-{key}", classes="screen-count")
            self.mount(label)
        label.display = bool(text)

    def show(self, status: MemoryStatus) -> None:
        self.query_one("#counts", Label).update(f"{status.active} active / {status.total} facts")
        self.query_one("#gauge", ProgressBar).update(
            total=status.budget, progress=min(status.index_tokens, status.budget)
        )
        self.query_one("#gauge-figures", Label).update(f"~{status.index_tokens}/{status.budget} tokens")


class Headers(App[None]):
    """The header on top, and what it is drawn against below it."""

    CSS_PATH = APP_CSS
    CSS = OLD_CSS

    def __init__(self, *others: Widget) -> None:
        super().__init__()
        self.header = StatusHeader("demo")
        self.others = others

    def compose(self) -> ComposeResult:
        yield self.header
        yield from self.others


def _bar_colour(header: StatusHeader, component: str) -> object:
    """The colour the gauge's bar draws `component` in (its filled part, or complete)."""
    return header.query_one("#gauge Bar").get_component_rich_style(component).color


def report(*statuses: str) -> DoctorReport:
    return DoctorReport([Check(f"check {n}", status, "") for n, status in enumerate(statuses)])


async def test_the_parts_show_their_texts() -> None:
    app = Headers()
    async with app.run_test(size=(160, 4)) as pilot:
        header = app.header
        assert header.part("root") == "Foundry · demo"
        assert header.part("counts") == "loading…"
        assert header.part("doctor") == header.part("pending") == header.part("gauge-figures") == ""
        header.show(MemoryStatus(13, 16, 404, 4000))
        header.show_doctor(None)
        await pilot.pause()
        assert header.part("counts") == "13 active / 16 facts"
        assert header.part("gauge-figures") == "~404/4000 tokens"
        assert header.part("doctor") == "doctor: checking…"
        header.show_doctor(report(OK, WARN))
        assert header.part("doctor") == "doctor: 1 problem"
        header.show_doctor(report(OK, OK))
        await pilot.pause()
        assert header.part("doctor") == "doctor: ok"
        assert text_of(drawn(app, 0)).startswith(
            " Foundry · demo  13 active / 16 facts  doctor: ok  index ━╺━━━━━━━━━━━━~404/4000 tokens  "
        )
        with pytest.raises(KeyError):
            header.part("gauge")
        with pytest.raises(KeyError):
            header.part("count-waves")


async def test_the_pending_count_takes_no_room_at_zero() -> None:
    app = Headers()
    async with app.run_test(size=(160, 4)) as pilot:
        header = app.header
        header.show_doctor(report(OK))
        header.show_pending(0)
        await pilot.pause()
        assert header.part("pending") == ""
        assert "doctor: ok  index" in text_of(drawn(app, 0))
        header.show_pending(1)
        await pilot.pause()
        assert header.part("pending") == "1 proposal pending (F9)"
        assert "doctor: ok  1 proposal pending (F9)  index" in text_of(drawn(app, 0))
        header.show_pending(3)
        assert header.part("pending") == "3 proposals pending (F9)"
        header.show_pending(0)
        await pilot.pause()
        assert "doctor: ok  index" in text_of(drawn(app, 0))


async def test_a_failing_doctor_is_bold_in_the_error_colour() -> None:
    app = Headers()
    async with app.run_test(size=(160, 4)) as pilot:
        header = app.header
        for statuses, failing in (((OK, WARN), False), ((FAIL, WARN), True), ((OK,), False)):
            header.show_doctor(report(*statuses))
            await pilot.pause()
            line = drawn(app, 0)
            start = text_of(line).index("doctor:")
            first = line[start]
            style = header.query_one("#doctor-status").rich_style
            assert first[1] == style.color and first[3] == failing
            assert style.color != header.rich_style.color
        assert header.part("doctor") == "doctor: ok"


async def test_the_screens_own_figures_come_after_the_gauge_in_the_order_first_shown() -> None:
    app = Headers()
    async with app.run_test(size=(200, 4)) as pilot:
        header = app.header
        header.show(MemoryStatus(1, 2, 3, 40))
        header.show_count("waves", "3 waves")
        header.show_count("docs", "2 runbooks, 1 ADRs")
        header.show_count("waves", "4 waves")  # keeps its place
        await pilot.pause()
        assert header.part("count-waves") == "4 waves"
        text = text_of(drawn(app, 0))
        assert "~3/40 tokens  4 waves  2 runbooks, 1 ADRs  " in text
        header.show_count("waves", "")  # hidden: no room
        await pilot.pause()
        assert header.part("count-waves") == ""
        assert "~3/40 tokens  2 runbooks, 1 ADRs  " in text_of(drawn(app, 0))
        header.show_count("waves", "[b]\x1b")  # in its first place again; literal, controls escaped
        await pilot.pause()
        assert header.part("count-waves") == "[b]\\u001b"
        assert "~3/40 tokens  [b]\\u001b  2 runbooks, 1 ADRs  " in text_of(drawn(app, 0))


@pytest.mark.parametrize(
    ("tokens", "budget"),
    [(0, 4000), (150, 4000), (404, 4000), (875, 4000), (2000, 4000), (3990, 4000), (4000, 4000), (5000, 4000), (0, 0)],
)
async def test_the_gauge_is_drawn_as_a_progress_bar_of_width_14(tokens: int, budget: int) -> None:
    bar = ProgressBar(total=budget, show_eta=False, show_percentage=False, id="gauge")
    bar.styles.width = GAUGE_WIDTH
    app = Headers(bar)
    async with app.run_test(size=(120, 4)) as pilot:
        header = app.header
        header.show(MemoryStatus(1, 1, tokens, budget))
        bar.update(progress=min(tokens, budget))
        await pilot.pause()
        line = text_of(drawn(app, 0))
        start = line.index("index ") + len("index ")
        ours = [(char, colour) for char, colour, _bg, _bold, _dim in drawn(app, 0)[start : start + GAUGE_WIDTH]]
        theirs = [(char, colour) for char, colour, _bg, _bold, _dim in drawn(app, 1)[:GAUGE_WIDTH]]
        assert ours == theirs
        colours = {colour for _char, colour in ours}
        if 0 < tokens < budget:
            assert _bar_colour(header, "bar--bar") in colours
        if tokens >= budget:
            assert colours == {_bar_colour(header, "bar--complete")}


@pytest.mark.parametrize(("tokens", "full_cells"), [(0, 0), (1000, 3), (2000, 7), (2000 * 14 // 16, 6), (3999, 13)])
async def test_the_gauge_fills_in_proportion_to_the_budget(tokens: int, full_cells: int) -> None:
    """14 cells for the whole budget (it was a 32-cell bar cut to 14: full from 44% on)."""
    app = Headers()
    async with app.run_test(size=(120, 2)) as pilot:
        header = app.header
        header.show(MemoryStatus(1, 1, tokens, 4000))
        await pilot.pause()
        line = drawn(app, 0)
        start = text_of(line).index("index ") + len("index ")
        gauge = line[start : start + GAUGE_WIDTH]
        filled = _bar_colour(header, "bar--bar")
        assert sum(1 for char, colour, _bg, _bold, _dim in gauge if char == "━" and colour == filled) == full_cells


Steps = list[tuple[str, tuple[object, ...]]]
STEPS: list[Steps] = [
    [],  # as composed: loading…
    [("show", (MemoryStatus(13, 16, 404, 4000),)), ("show_doctor", (None,))],
    [
        ("show", (MemoryStatus(13, 16, 404, 4000),)),
        ("show_doctor", (report(OK),)),
        ("show_count", ("waves", "2 waves")),
    ],
    [
        ("show", (MemoryStatus(9000, 10000, 3990, 4000),)),
        ("show_doctor", (report(FAIL, WARN, WARN),)),
        ("show_pending", (2,)),
        ("show_count", ("sessions", "12 sessions")),
        ("show_count", ("searches", "")),
        ("show_count", ("docs", "2 runbooks, 1 ADRs")),
    ],
    [
        ("show", (MemoryStatus(1, 1, 4100, 4000),)),
        ("show_doctor", (report(OK),)),
        ("show_pending", (1,)),
        ("show_pending", (0,)),
    ],
]


def feed(app: Headers, old: OldHeader, steps: Steps) -> None:
    for method, arguments in steps:
        for header in (app.header, old):
            getattr(header, method)(*arguments)


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
@pytest.mark.parametrize("width", [160])  # narrower, the root is shortened and the line compact: the next tests
@pytest.mark.parametrize("steps", range(len(STEPS)))
async def test_the_line_is_the_old_rows_line_cell_for_cell(theme: str, width: int, steps: int) -> None:
    old = OldHeader()
    app = Headers(old)
    async with app.run_test(size=(width, 4)) as pilot:
        app.theme = theme
        await pilot.pause()
        feed(app, old, STEPS[steps])
        await pilot.pause()
        await pilot.pause()
        ours, theirs = drawn(app, 0), drawn(app, 1)
        assert text_of(ours) == text_of(theirs)
        assert ours == theirs
        # A change of theme redraws it in the new theme's colours.
        app.theme = "textual-light" if theme == "textual-dark" else "textual-dark"
        await pilot.pause()
        await pilot.pause()
        changed = drawn(app, 0)
        assert changed == drawn(app, 1)
        assert changed != ours


class SlowFirstRead(LiveScreen):
    """A screen whose first read lasts until `release` is set."""

    def __init__(self, release: threading.Event) -> None:
        super().__init__()
        self.release = release

    def compose(self) -> ComposeResult:
        yield StatusHeader()

    @work(thread=True, exclusive=True, group="slow-read", name="Not read", exit_on_error=False)
    def load(self) -> None:
        self.release.wait(10)


async def _until(pilot: Pilot[Any], condition: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        await pilot.pause(0.01)
    return True


async def test_a_self_fed_header_runs_the_doctor_once_the_screens_first_read_ends(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The doctor checks every fact: it waits for the screen's own first read (the lock and
    the interpreter are shared), and starts as soon as that read ends, told so by the screen."""
    monkeypatch.setattr(status_header, "DOCTOR_AFTER_READ", 0.0)
    release = threading.Event()
    app = make_app(demo_root)
    async with app.run_test(size=(140, 30)) as pilot:
        await settle(pilot)
        screen = SlowFirstRead(release)
        await app.push_screen(screen)
        header = screen.query_one(StatusHeader)
        assert await _until(pilot, lambda: header.part("counts") != "loading…", 5)
        await pilot.pause(0.3)
        assert header.part("doctor") == "", "the doctor waits while the screen's first read runs"
        released = time.monotonic()
        release.set()
        ok = await _until(pilot, lambda: header.part("doctor").startswith("doctor: "), 5)
        assert ok, header.part("doctor")
        assert time.monotonic() - released < FIRST_READ_WAIT / 2, "started by the read's end, not a time-out"


class LongRoot(App[None]):
    CSS_PATH = APP_CSS

    def __init__(self, root: str) -> None:
        super().__init__()
        self.header = StatusHeader(root)

    def compose(self) -> ComposeResult:
        yield self.header


LONG_ROOT = "/home/someone/projects/clients/acme/services/orders-service"


@pytest.mark.parametrize(
    ("width", "line"),
    [
        # 80 columns: compact, the root cut from the left, the counts, the doctor and the gauge all in view.
        (80, " …me/services/orders-service 13/16 active doctor: 1 index ━━━━━╺━━━━~2000/4000  "),
        (
            160,
            " Foundry · "
            + LONG_ROOT
            + "  13 active / 16 facts  doctor: 1 problem  index ━━━━━━━╺━━━━━━~2000/4000 tokens",
        ),
    ],
)
async def test_the_root_is_shortened_from_the_left_and_the_gauge_stays_in_view(width: int, line: str) -> None:
    app = LongRoot(LONG_ROOT)
    async with app.run_test(size=(width, 4)) as pilot:
        header = app.header
        header.show(MemoryStatus(13, 16, 2000, 4000))
        header.show_doctor(report(OK, WARN))
        await pilot.pause()
        await pilot.pause()
        drawn_line = text_of(drawn(app, 0))
        assert drawn_line.startswith(line), drawn_line
        assert header.part("root") == f"Foundry · {LONG_ROOT}"  # the full text, whatever is drawn
        assert header.part("doctor") == "doctor: 1 problem"  # no (d): this app opens no doctor
        assert len(drawn_line.rstrip()) <= width


def test_left_shortened_keeps_the_end_in_the_cells_given() -> None:
    assert status_header.left_shortened("/a/b/c", 10) == "/a/b/c"
    assert status_header.left_shortened("/abcdef/ghij", 8) == "…ef/ghij"
    assert status_header.left_shortened("/路径/项目", 6) == "…/项目"  # wide characters count two cells
