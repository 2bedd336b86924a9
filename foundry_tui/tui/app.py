"""FoundryApp: the screens as modes (each imported when first shown), the commands,
and the file watcher."""

from __future__ import annotations

import datetime as _dt
import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from textual import work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.worker import Worker

from foundry_tui.core.memory.project import Project
from foundry_tui.core.trust.principal import Caller, resolve_caller
from foundry_tui.tui import collector
from foundry_tui.tui.commands import APP_COMMANDS, FoundryCommands
from foundry_tui.tui.common.messages import FilesChanged
from foundry_tui.tui.common.workers import worker_state_changed

TYPE_CHECKING = False
if TYPE_CHECKING:
    from foundry_tui.core.memory.reports.views import IndexView
    from foundry_tui.tui.preload import Preload

IGNORED_PARTS = {"metrics", "scratch"}  # change on every agent call; nothing on screen depends on them
# The collector paused by `foundry tui` runs again once the memory is drawn, or after this
# many seconds whatever the screen (the memory screen's first load may have failed).
COLLECTOR_PAUSED_AT_MOST = 3.0


def lazy_screen(module: str, name: str) -> Callable[[], Screen[Any]]:
    """A mode's screen, its module imported only when the mode is first shown."""

    def make() -> Screen[Any]:
        screen_class: type[Screen[Any]] = getattr(importlib.import_module(module), name)
        screen = screen_class()
        # A new screen's widgets are styled as they mount, so it is up to date with the CSS;
        # left at Textual's -1, the first switch to its mode re-parses every stylesheet twice
        # (App.refresh_css, ~80 ms each), which the first paint waited for.
        screen._css_update_count = screen.app._css_update_count
        return screen

    return make


class FoundryApp(App[None]):
    """The curator's terminal application over one project's memory."""

    CSS_PATH = "app.tcss"
    TITLE = "Foundry"
    COMMANDS = App.COMMANDS | {FoundryCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        *(command.binding() for command in APP_COMMANDS),
        Binding("escape", "switch_mode('memory')", show=False),
    ]
    MODES = {
        "memory": lazy_screen("foundry_tui.tui.memory.screen", "MemoryScreen"),
        "blackboard": lazy_screen("foundry_tui.tui.board.screen", "BlackboardScreen"),
        "library": lazy_screen("foundry_tui.tui.library.screen", "LibraryScreen"),
        "health": lazy_screen("foundry_tui.tui.health.screen", "HealthScreen"),
        "curator": lazy_screen("foundry_tui.tui.curator.screen", "CuratorScreen"),
        "sessions": lazy_screen("foundry_tui.tui.sessions.screen", "SessionsScreen"),
        "history": lazy_screen("foundry_tui.tui.history.screen", "HistoryScreen"),
        "approvals": lazy_screen("foundry_tui.tui.curator.approvals", "ApprovalsScreen"),
    }

    def __init__(
        self,
        root: Path,
        today: _dt.date,
        *,
        watch: bool = True,
        root_label: str | None = None,
        read_only: bool = False,
        caller: Caller | None = None,
        preload: Preload | None = None,
    ) -> None:
        super().__init__()
        self.read_only = read_only  # `foundry tui --at REV`: the screens refuse every write action
        # `foundry tui` reads the parse cache's index while Textual is imported (tui/preload.py).
        self.project = preload.project if preload is not None else Project(root)
        self._preload = preload
        # Who this session acts as, fixed at start: every write goes through the trust gate as it.
        self.caller = caller if caller is not None else resolve_caller()
        self.today = today
        self.watch_enabled = watch
        self._watching = False
        self._first_switch = False  # the first switch of mode, from the blank default screen
        self.root_label = root_label or str(root)

    def on_mount(self) -> None:
        if collector.paused():
            self.set_timer(COLLECTOR_PAUSED_AT_MOST, collector.resume)
        if self.project.layout.foundry.is_dir():
            # Once the app's own start-up has ended: Textual holds every frame until then, so
            # a screen mounted from here rendered its first frame only to have it thrown away.
            self._first_switch = True
            self.call_later(self._open_first)
        else:
            self.push_screen(lazy_screen("foundry_tui.tui.common.empty", "EmptyScreen")())
            self.call_after_refresh(collector.resume)

    def _open_first(self) -> None:
        # Unless a key typed during start-up already switched to another screen.
        if self.current_mode == self.DEFAULT_MODE and len(self.screen_stack) == 1:
            self.open_memory()

    def open_memory(self) -> None:
        """Show the memory screen (at start, or once `foundry init` made the memory). It calls
        `memory_drawn` once its first index is on screen (or its first load has read the
        files): the file watcher's imports and setup do not hold up the first paint."""
        self.switch_mode("memory")

    def delay_update(self, delay: float = 0.05) -> None:
        """Textual holds the frames for 50 ms on a switch of mode, to hide the old screen
        going blank. The first switch, from the app's blank default screen to the memory
        screen, has nothing to hide, and the hold threw away the first frame it had already
        rendered (~30 ms at 10,000 facts, and the next one waited for the timer): skipped,
        once, for the switch asked for at start (after `foundry init` on the empty screen,
        that screen is on the terminal and the switch keeps its hold)."""
        if self._first_switch:
            self._first_switch = False
            return
        super().delay_update(delay)

    def take_preloaded_view(self) -> IndexView | None:
        """The index read ahead from the parse cache (once; None without one), for the memory
        screen's first paint."""
        preload, self._preload = self._preload, None
        return preload.view() if preload is not None else None

    def memory_drawn(self) -> None:
        """The memory screen's first index is drawn: start what waited for it. The cyclic
        collector, if `foundry tui` paused it (tui/collector.py), runs again, and the files
        are watched from now on (once; not with `watch=False`)."""
        collector.resume()
        if self.watch_enabled and not self._watching:
            self._watching = True
            self.watch_files()

    def action_show_keys(self) -> None:
        if self.screen.query("HelpPanel"):
            self.action_hide_help_panel()
        else:
            self.action_show_help_panel()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker_state_changed(self, event)

    @work(exclusive=True, group="watch", name="Stopped watching the files", exit_on_error=False)
    async def watch_files(self) -> None:
        """Watch .foundry/ and docs/adr/; each debounced batch becomes one refresh."""
        from watchfiles import awatch

        layout = self.project.layout
        folders = [str(p) for p in (layout.foundry, layout.adr_dir) if p.is_dir()]
        if not folders:
            return
        async for changes in awatch(*folders, debounce=150, step=25):
            paths = frozenset(path for _change, path in changes if not IGNORED_PARTS & set(Path(path).parts))
            if paths:
                self.screen.post_message(FilesChanged(paths))
