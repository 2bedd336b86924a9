"""Driving the real Textual app headless with Pilot: shared by the tests, the screenshot
script and the TUI benchmark (which import it as `tests.tui_helpers`)."""

from __future__ import annotations

import contextlib
import time
import weakref
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from rich.segment import Segment
from textual.app import App
from textual.geometry import Region
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget
from textual.worker import WorkerCancelled, WorkerFailed

from foundry_tui.tui.app import FoundryApp
from foundry_tui.tui.common.row_list import RowList

from .helpers import TODAY

ScreenT = TypeVar("ScreenT", bound=Screen[Any])
Steps = Callable[[Pilot[Any]], Awaitable[None]]


WATCHERS = frozenset({"watch", "watch-code"})  # the app's watchers' worker groups (tui/app.py)


def make_app(root: Path, *, watch: bool = False) -> FoundryApp:
    """The app on `root` with a frozen date and no path on screen."""
    return FoundryApp(root, TODAY, watch=watch, root_label="demo")


async def settle(pilot: Pilot[Any]) -> None:
    """Let workers finish and the screen catch up (a load chains into a search and the doctor)."""
    for _ in range(4):
        # Every worker but the file watchers, which run until the app closes.
        for worker in [w for w in pilot.app.workers if w.group not in WATCHERS]:
            with contextlib.suppress(WorkerFailed, WorkerCancelled):  # the app reports those itself
                await worker.wait()
        await pilot.pause(0.02)


async def until(pilot: Pilot[Any], condition: Callable[[], bool], what: str, timeout: float = 120.0) -> None:
    """Pause until `condition()` holds, failing with `what` after `timeout` seconds. By time, not
    by a count of pauses: a loaded machine stretches each pause, and a message posted by a
    finished worker may still be on its way when `settle` returns."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"still waiting for {what} after {timeout:.0f} s"
        await pilot.pause(0.01)


async def press(pilot: Pilot[Any], *keys: str) -> None:
    """Press `keys` one by one, letting the app settle after each (a key may start workers)."""
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


async def open_mode(pilot: Pilot[Any], key: str, screen_type: type[ScreenT], tab: str | None = None) -> ScreenT:
    """Let the first screen load, press the mode's key (f3, f5, f6 …), optionally switch to
    one of its tabs, and return the screen, checked to be a `screen_type`."""
    from textual.widgets import TabbedContent

    await settle(pilot)
    await press(pilot, key)
    screen = pilot.app.screen
    assert isinstance(screen, screen_type), f"{key} opened {type(screen).__name__}"
    if tab is not None:
        screen.query_one(TabbedContent).active = tab
        await settle(pilot)
    return screen


def snapshot_steps(*keys: str, before: Callable[[Pilot[Any]], Awaitable[Any]] | None = None) -> Steps:
    """A snapshot's `run_before`: settle (or run `before`), press `keys`, then take the focus
    away so that no cursor blinks in the picture and let tab underlines slide into place."""

    async def run_before(pilot: Pilot[Any]) -> None:
        if before is None:
            await settle(pilot)
        else:
            await before(pilot)
        await press(pilot, *keys)
        pilot.app.screen.set_focus(None)
        await settle(pilot)
        await pilot.wait_for_scheduled_animations()

    return run_before


@dataclass(frozen=True)
class Notice:
    """One notification as `App.notify` was asked for it."""

    message: str
    severity: str


_NOTICES: weakref.WeakKeyDictionary[App[Any], list[Notice]] = weakref.WeakKeyDictionary()


@contextlib.contextmanager
def notices_recorded() -> Iterator[None]:
    """Record every `App.notify` (Textual's public method every widget's `notify` calls) for
    `notices`; tests/conftest.py keeps it on for every test."""
    real_notify = App.notify

    def notify(self: App[Any], message: str, **options: Any) -> None:
        _NOTICES.setdefault(self, []).append(Notice(str(message), str(options.get("severity", "information"))))
        real_notify(self, message, **options)

    App.notify = notify  # type: ignore[method-assign]
    try:
        yield
    finally:
        App.notify = real_notify  # type: ignore[method-assign]


def notices(app: App[Any]) -> list[Notice]:
    """Every notification the app was asked to show, oldest first."""
    return list(_NOTICES.get(app, []))


def notifications(pilot: Pilot[Any]) -> list[str]:
    """The texts of every notification the app has shown, oldest first."""
    return [notice.message for notice in notices(pilot.app)]


async def select(pilot: Pilot[Any], row_id: str, list_id: str = "#index") -> None:
    """Move to `row_id` in a list, as the arrow keys would."""
    rows = pilot.app.screen.query_one(list_id, RowList)
    rows.focus()
    rows.highlighted = None  # so that moving onto the entry the cursor is already on still counts
    rows.highlighted = rows.index_of(row_id)
    await settle(pilot)


def option_ids(pilot: Pilot[Any], list_id: str) -> list[str]:
    return pilot.app.screen.query_one(list_id, RowList).row_ids


async def select_artifact(pilot: Pilot[Any], key: str) -> None:
    """Move the board's artifacts pane to the artifact `wave/name.json`, as the arrow keys
    would, and wait until its panes have scrolled to its first violation (once laid out)."""
    from foundry_tui.tui.board.artifact_tree import ArtifactTree
    from foundry_tui.tui.board.revealing_scroll import RevealingScroll

    tree = pilot.app.screen.query_one(ArtifactTree)
    tree.focus()
    for wave in tree.root.children:
        for leaf in wave.children:
            if leaf.data is not None and leaf.data.key == key:
                tree.move_cursor(leaf)
                await settle(pilot)
                for _ in range(100):  # the scroll follows the layout for a moment (RevealingScroll)
                    if not any(pane.revealing for pane in pilot.app.screen.query(RevealingScroll)):
                        break
                    await pilot.pause(0.05)
                await settle(pilot)
                return
    raise AssertionError(f"{key} is not in the artifacts pane")


# A drawn cell: its character, colour (None for a space: its foreground is not seen),
# background, bold and dim.
Cell = tuple[str, object, object, bool, bool]


def cells(strip: list[Segment]) -> list[Cell]:
    """Each cell of a drawn line (a strip's segments), for comparing what two widgets draw."""
    out: list[Cell] = []
    for segment in strip:
        style = segment.style
        for char in segment.text:
            colour = style.color if style and char != " " else None
            out.append(
                (char, colour, style.bgcolor if style else None, bool(style and style.bold), bool(style and style.dim))
            )
    return out


def drawn(app: App[Any], row: int) -> list[Cell]:
    """The cells of one line of the app's screen as it is drawn now (-1: the bottom line):
    each run of cells from the widget on top there (`Screen.get_widget_at`), as that widget
    renders them (`Widget.render_lines`)."""
    screen = app.screen
    width, height = screen.size
    y = row % height
    runs: list[tuple[Widget, Region, int, int]] = []  # (widget, its region, first cell, end)
    for x in range(width):
        widget, region = screen.get_widget_at(x, y)
        if runs and runs[-1][0] is widget and runs[-1][3] == x:
            runs[-1] = (widget, region, runs[-1][2], x + 1)
        else:
            runs.append((widget, region, x, x + 1))
    line: list[Segment] = []
    for widget, region, start, end in runs:
        [strip] = widget.render_lines(Region(0, y - region.y, region.width, 1))
        line.extend(strip.crop(start - region.x, end - region.x))
    return cells(line)


def text_of(line: list[Cell]) -> str:
    return "".join(cell[0] for cell in line)
