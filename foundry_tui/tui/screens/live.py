"""LiveScreen: a screen whose content is read from disk in a worker, and read again
whenever it is shown and whenever the file watcher reports a change."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.screen import Screen

from foundry_tui.tui.messages import FilesChanged

if TYPE_CHECKING:
    from foundry_tui.tui.app import FoundryApp


class LiveScreen(Screen[None]):
    """Subclasses implement `load()` (a thread worker that reads, then updates the screen)."""

    @property
    def foundry(self) -> FoundryApp:
        return cast("FoundryApp", self.app)

    def load(self) -> object:  # a @work method, which returns its Worker
        raise NotImplementedError

    def on_mount(self) -> None:
        self.load()

    def on_screen_resume(self) -> None:
        self.load()

    def on_files_changed(self, _event: FilesChanged) -> None:
        self.load()
