"""LiveScreen: a screen whose content is read from disk in a worker, and read again
whenever it is shown, whenever the file watcher reports a change, and when the theme
changes (its colours are built with the theme's)."""

from __future__ import annotations

from foundry_tui.tui.messages import FilesChanged
from foundry_tui.tui.screens.base import FoundryScreen


class LiveScreen(FoundryScreen[None]):
    """Subclasses implement `load()`: a thread worker that reads and returns a message
    carrying what it read, which the subclass shows when it arrives."""

    def load(self) -> object:  # a @work method, which returns its Worker
        raise NotImplementedError

    def on_mount(self) -> None:
        self.load()

    def on_screen_resume(self) -> None:
        self.load()

    def on_files_changed(self, _event: FilesChanged) -> None:
        self.load()

    def recolour(self) -> None:
        self.load()
