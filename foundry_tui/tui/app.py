"""FoundryApp: the screens as modes, the commands, and the file watcher."""

from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import ClassVar

from textual import work
from textual.app import App
from textual.binding import Binding, BindingType

from foundry_tui.core.memory.project import Project
from foundry_tui.core.trust.principal import Caller, resolve_caller
from foundry_tui.tui.commands import APP_COMMANDS, FoundryCommands
from foundry_tui.tui.messages import FilesChanged
from foundry_tui.tui.screens.approvals import ApprovalsScreen
from foundry_tui.tui.screens.blackboard import BlackboardScreen
from foundry_tui.tui.screens.curator import CuratorScreen
from foundry_tui.tui.screens.empty import EmptyScreen
from foundry_tui.tui.screens.library import LibraryScreen
from foundry_tui.tui.screens.memory import MemoryScreen
from foundry_tui.tui.screens.tokens import TokensScreen

IGNORED_PARTS = {"metrics", "scratch"}  # change on every agent call; nothing on screen depends on them


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
        "memory": MemoryScreen,
        "blackboard": BlackboardScreen,
        "library": LibraryScreen,
        "tokens": TokensScreen,
        "curator": CuratorScreen,
        "approvals": ApprovalsScreen,
    }

    def __init__(
        self,
        root: Path,
        today: _dt.date,
        *,
        watch: bool = True,
        root_label: str | None = None,
        caller: Caller | None = None,
    ) -> None:
        super().__init__()
        self.project = Project(root)
        # Who this session acts as, fixed at start: every write goes through the trust gate as it.
        self.caller = caller if caller is not None else resolve_caller()
        self.today = today
        self.watch_enabled = watch
        self.root_label = root_label or str(root)

    def on_mount(self) -> None:
        if self.project.layout.foundry.is_dir():
            self.open_memory()
        else:
            self.push_screen(EmptyScreen())

    def open_memory(self) -> None:
        if isinstance(self.screen, EmptyScreen):
            self.pop_screen()
        self.switch_mode("memory")
        if self.watch_enabled:
            self.watch_files()

    def action_show_keys(self) -> None:
        if self.screen.query("HelpPanel"):
            self.action_hide_help_panel()
        else:
            self.action_show_help_panel()

    @work(exclusive=True, group="watch")
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
