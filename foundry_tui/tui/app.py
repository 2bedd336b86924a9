"""FoundryApp: the screens as modes (each imported when first shown), the commands,
and the file watchers: the memory's (.foundry/, docs/adr/) and the code's (what active
facts cite, issue 30: planned off the UI thread, planned again when the facts change)."""

from __future__ import annotations

import datetime as _dt
import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from textual import work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.worker import Worker

from foundry_tui.core.memory.project import Project
from foundry_tui.core.trust.principal import Caller, resolve_caller
from foundry_tui.tui import startup
from foundry_tui.tui.commands import APP_COMMANDS, FoundryCommands
from foundry_tui.tui.common.messages import CodeChanged, FilesChanged
from foundry_tui.tui.common.workers import deliver, worker_state_changed

TYPE_CHECKING = False
if TYPE_CHECKING:
    from foundry_tui.core.code_refs import CodeWatch
    from foundry_tui.tui.preload import Preload

IGNORED_PARTS = {"metrics", "scratch"}  # change on every agent call; nothing on screen depends on them
MEMORY = "memory"  # the mode of the memory screen: the app's default mode (tui/startup.py)


def lazy_screen(module: str, name: str) -> Callable[[], Screen[Any]]:
    """A mode's screen, its module imported only when the mode is first shown."""

    def make() -> Screen[Any]:
        screen_class: type[Screen[Any]] = getattr(importlib.import_module(module), name)
        return screen_class()

    return make


# The memory screen, imported when first made (the app's default screen, or after `foundry init`).
MEMORY_SCREEN = lazy_screen("foundry_tui.tui.memory.screen", "MemoryScreen")


class CodePlanned(Message):
    """What the code's watcher should watch, planned in a worker (grounding.code_watch)."""

    def __init__(self, plan: CodeWatch) -> None:
        super().__init__()
        self.plan = plan


class FoundryApp(App[None]):
    """The curator's terminal application over one project's memory."""

    CSS_PATH = "app.tcss"
    TITLE = "Foundry"
    COMMANDS = App.COMMANDS | {FoundryCommands}
    # Layouts per width (app.tcss's `.-narrow` rules): below 100 columns (80x24) the panes are
    # shared out differently, so that titles, paths, validity and dates stay readable.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    BINDINGS: ClassVar[list[BindingType]] = [
        *(command.binding() for command in APP_COMMANDS),
        # In the footer and the keys panel as F2's "f2/esc" (the same action: shown once).
        Binding("escape", "switch_mode('memory')", "Memory", show=False, key_display="f2/esc"),
    ]
    # The memory screen is the default mode's screen, made with the app (`get_default_screen`);
    # the mode is registered once the app is mounted, for the switches back to it.
    DEFAULT_MODE = MEMORY
    MODES = {
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
        notice: str | None = None,
    ) -> None:
        super().__init__()
        self.read_only = read_only  # `foundry tui --at REV`: the screens refuse every write action
        # `foundry tui` reads the parse cache's index while Textual is imported (tui/startup.py).
        self.project = preload.project if preload is not None else Project(root)
        self.project.semantic_wait = False  # hybrid: rank lexically while the model loads (issue 29)
        self.preload = preload  # taken by the memory screen's first paint
        # Who this session acts as, fixed at start: every write goes through the trust gate as it.
        self.caller = caller if caller is not None else resolve_caller()
        self.today = today
        self.watch_enabled = watch
        self.watching = False
        self.code_watch: CodeWatch | None = None  # what the code's watcher watches now
        self.start_ended = False  # whether Textual's start-up, which drops every frame, has ended
        self.root_label = root_label or str(root)
        self.notice = notice  # said once the first screen is up (where the demo's copy lives)

    def get_default_screen(self) -> Screen[Any]:
        return startup.first_screen(self, MEMORY_SCREEN)

    def on_mount(self) -> None:
        self.add_mode(MEMORY, MEMORY_SCREEN)  # its stack exists: never called
        startup.app_mounted(self, lazy_screen("foundry_tui.tui.common.empty", "EmptyScreen"))
        if self.notice:
            self.notify(self.notice, timeout=10)
        if not self.is_headless:  # a terminal's app: under Pilot the test's loop keeps its signals
            from foundry_tui.tui.ending import end_on_signals

            end_on_signals(self)

    def open_memory(self) -> None:
        """Show the memory screen once `foundry init` made the memory: over the blank default
        screen the empty screen was pushed on, in the memory's mode."""
        if self.current_mode != MEMORY:
            self.switch_mode(MEMORY)
        self.delay_update()  # as a switch of mode does: the empty screen was on the terminal
        self.push_screen(MEMORY_SCREEN())

    def action_show_keys(self) -> None:
        if self.screen.query("HelpPanel"):
            self.action_hide_help_panel()
        else:
            self.action_show_help_panel()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker_state_changed(self, event)

    @work(exclusive=True, group="watch", name="Stopped watching the files", exit_on_error=False)
    async def watch_files(self) -> None:
        """Watch .foundry/ and docs/adr/; each debounced batch becomes one refresh. The code
        the active facts cite is watched beside (`watch_code`), planned now and again after
        each load of the memory screen (which syncs the store the plan reads)."""
        from watchfiles import awatch

        layout = self.project.layout
        folders = [str(p) for p in (layout.foundry, layout.adr_dir) if p.is_dir()]
        if not folders:
            return
        self.plan_code_watch()
        async for changes in awatch(*folders, debounce=150, step=25):
            paths = frozenset(path for _change, path in changes if not IGNORED_PARTS & set(Path(path).parts))
            if paths:
                # Every screen of the stack: one under a dialog (the write form, a confirm) is on
                # view too. The screens of other modes read again when shown (LiveScreen, MemoryScreen).
                for screen in self.screen_stack:
                    screen.post_message(FilesChanged(paths))

    @work(thread=True, exclusive=True, group="code-plan", name="Not watching the code", exit_on_error=False)
    def plan_code_watch(self) -> CodePlanned:
        """What to watch for the code today's active facts cite (the store as last synced, and
        two git processes when the refs changed: a thread). A no-op until the files are watched."""
        from foundry_tui.core.memory.reports.grounding import code_watch

        return deliver(self, CodePlanned(code_watch(self.project, self.today, self.code_watch)))

    def on_code_planned(self, event: CodePlanned) -> None:
        if not self.watching or event.plan == self.code_watch:
            return  # the same places: the watcher in place goes on
        self.code_watch = event.plan
        self.watch_code(event.plan)  # exclusive: the previous plan's watcher is cancelled

    @work(exclusive=True, group="watch-code", name="Stopped watching the code", exit_on_error=False)
    async def watch_code(self, plan: CodeWatch) -> None:
        """Watch the folders of `plan`, flat (never the repository, never recursively); a batch
        that touched a cited file, or git's index or HEAD, becomes one CodeChanged. After git's
        own change (a checkout may have made a watched folder anew) the watches are set again,
        on the folders that exist then."""
        import asyncio
        import os

        from watchfiles import awatch

        while True:
            folders = await asyncio.to_thread(lambda: [f for f in plan.folders if os.path.isdir(f)])
            if not folders:
                return
            again = False
            # No default filter: it drops every path under .git, and `plan.relevant` is the filter.
            async for changes in awatch(*folders, watch_filter=None, debounce=150, step=25, recursive=False):
                paths = plan.relevant(path for _change, path in changes)
                if paths:
                    for screen in self.screen_stack:
                        screen.post_message(CodeChanged(paths))
                if plan.git_dir is not None and any(os.path.dirname(path) == plan.git_dir for path in paths):
                    again = True
                    break
            if not again:
                return
