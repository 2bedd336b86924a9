"""`foundry tui`'s start-up, in the order it happens; the other modules call into this one.

1. Before Textual is imported (`cmd_tui`: `collector_paused`, `start_preload`):
   the cyclic collector is paused (tui/collector.py: Textual's import and the first screen
   build hundreds of thousands of objects that live as long as the app; scanning them again
   and again costs a few percent of the first paint), and a thread reads the parse cache's
   index (tui/preload.py) while the main thread imports Textual.
2. The app composes its first screen as its default screen (`first_screen`): the memory
   screen when `.foundry/` exists, else a blank screen with the screen that offers
   `foundry init` over it. No mode switch at start: Textual holds every frame for 50 ms on
   a switch of mode, and re-parses every stylesheet for a mode's new screen; the default
   screen is mounted with the app, styled as it mounts.
3. The memory screen's mount paints the preloaded index (`take_preloaded_view`). Textual
   throws away the frames it renders during its own start-up; the index pane reports
   "drawn" only on a frame rendered once that start-up has ended (`frames_shown`: the app's
   message loop runs, which it starts after its start-up batch).
4. Once drawn (`memory_drawn`): the collector runs again, freezing what is alive then
   (`gc.freeze`, the only freeze: core/collector_hold.py), and the file watcher starts. The
   memory screen's first load, which waited for the same signal, then compares every file
   with the parse cache and builds the full Overview (screens/memory.py).
5. Whatever becomes of the first screen, the collector runs again after
   COLLECTOR_PAUSED_AT_MOST seconds (`app_mounted`), and when the app ends before it.

Steps 1's functions import no Textual (they run before Textual is imported); the app's
steps import it where they need it.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
from collections.abc import Iterator
from pathlib import Path

from foundry_tui.tui import collector

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Protocol

    from textual.app import App
    from textual.screen import Screen

    from foundry_tui.core.memory.project import Project
    from foundry_tui.core.memory.reports.views import IndexView
    from foundry_tui.tui.preload import Preload

    class FoundryApp(Protocol):
        """What the start-up asks of the app (tui/app.py's FoundryApp), so that this module,
        which the app and the memory screen call into, imports neither of them."""

        project: Project
        preload: Preload | None
        watch_enabled: bool
        watching: bool
        start_ended: bool

        def watch_files(self) -> object: ...

        def set_timer(self, delay: float, callback: Callable[[], object]) -> object: ...

        def push_screen(self, screen: Screen[Any]) -> object: ...

        def call_after_refresh(self, callback: Callable[[], object]) -> bool: ...

        def call_later(self, callback: Callable[..., object], *args: object) -> bool: ...


# The collector paused by `foundry tui` runs again once the memory is drawn, or after this
# many seconds whatever the screen (the memory screen's first load may have failed).
COLLECTOR_PAUSED_AT_MOST = 3.0


# ---- 1. before Textual is imported ----------------------------------------------------------


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The collector paused for `foundry tui`'s run; on again when it ends, whatever ended it
    (an error before the app ran, or an app that ended before its first screen)."""
    collector.pause()
    try:
        yield
    finally:
        collector.resume()


def start_preload(root: Path, today: _dt.date) -> Preload:
    """The parse cache's index, read in a thread while Textual is imported."""
    from foundry_tui.core.memory.project import Project
    from foundry_tui.tui.preload import Preload

    return Preload(Project(root), today).start()


# ---- 2. the app's first screen ----------------------------------------------------------------


def first_screen(app: FoundryApp, memory_screen: Callable[[], Screen[Any]]) -> Screen[Any]:
    """The app's default screen: the memory screen (made by `memory_screen`, which the app
    gives: it imports the screen), or (no `.foundry/`) a blank one for the screen that offers
    `foundry init` (`app_mounted` pushes it)."""
    if app.project.layout.foundry.is_dir():
        return memory_screen()
    from textual.screen import Screen

    return Screen()


def app_mounted(app: FoundryApp, empty_screen: Callable[[], Screen[Any]]) -> None:
    """The app is mounted (its start-up batch still holds the frames): bound the collector's
    pause, offer `foundry init` where there is no memory, and note when the start-up ends."""
    if collector.paused():
        app.set_timer(COLLECTOR_PAUSED_AT_MOST, collector.resume)
    if not app.project.layout.foundry.is_dir():
        app.push_screen(empty_screen())
        app.call_after_refresh(collector.resume)
    # The app's own queue is handled once its message loop runs, after its start-up batch.
    app.call_later(_start_ended, app)


def _start_ended(app: FoundryApp) -> None:
    app.start_ended = True


# ---- 3. the first paint ------------------------------------------------------------------------


def frames_shown(app: App[object]) -> bool:
    """Whether a frame rendered now reaches the terminal: not while the app starts (Textual
    renders the screen during its start-up batch and drops the result). An app that is not
    Foundry's (a widget's test) counts every frame as shown."""
    return bool(getattr(app, "start_ended", True))


def take_preloaded_view(app: FoundryApp) -> IndexView | None:
    """The index read ahead from the parse cache (once; None without one)."""
    preload, app.preload = app.preload, None
    return preload.view() if preload is not None else None


# ---- 4. once the memory is drawn ------------------------------------------------------------------


def memory_drawn(app: FoundryApp) -> None:
    """The memory screen's first index is drawn (or its first load has read the files): the
    collector runs again (once), and the files are watched from now on (once; not with
    `watch=False`)."""
    collector.resume()
    if app.watch_enabled and not app.watching:
        app.watching = True
        app.watch_files()
