"""LiveScreen: a screen whose content is read from disk in a worker, and read again
whenever it is shown, whenever the file watcher reports a change, whenever the screen
itself wrote (MemoryChanged: said, then read), and when the theme changes (its colours
are built with the theme's). `reread` is the one path: the content and the self-fed
StatusHeader together (the header's first read is its own, when it is mounted)."""

from __future__ import annotations

import threading
from typing import ClassVar

from textual.worker import Worker

from foundry_tui.tui.common.confirming import ConfirmingScreen
from foundry_tui.tui.common.messages import CodeChanged, FilesChanged, MemoryChanged
from foundry_tui.tui.common.status_header import feed_headers


class LiveScreen(ConfirmingScreen[None]):
    """Subclasses implement `load()`: a thread worker that reads and returns a message
    carrying what it read, which the subclass shows when it arrives."""

    def load(self) -> object:  # a @work method, which returns its Worker
        raise NotImplementedError

    _reading: object = None  # the read started by the mount (a Worker)
    # Whether a slow load covers the screen with the busy indicator (FoundryScreen._show_busy);
    # a screen that shows its parts as they arrive (Health) says no.
    BUSY_ON_LOAD: ClassVar[bool] = True
    # Whether what the screen shows depends on the refs' states (issue 30): read again when the
    # code that active facts cite changes (CodeChanged), as when the memory does.
    READS_CODE: ClassVar[bool] = False
    _load_group: str | None = None

    def __init__(self) -> None:
        super().__init__()
        # Set once the mount's read has ended, however it ended: the self-fed header's worker
        # waits for it before it runs the doctor (they share the lock and the interpreter).
        self.first_read_done = threading.Event()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # Textual calls FoundryScreen's handler too (each class's in turn): no super() here.
        if event.worker is self._reading and event.worker.is_finished:
            self.first_read_done.set()

    def on_mount(self) -> None:
        if self._reading is None:  # a screen may start its read earlier (HealthScreen: in compose)
            self._reading = self.load()
        if isinstance(self._reading, Worker):
            self._load_group = self._reading.group

    def busy_groups(self) -> frozenset[str]:
        groups = super().busy_groups()
        if self.BUSY_ON_LOAD and self._load_group is not None:
            return groups | {self._load_group}
        return groups

    def on_screen_resume(self) -> None:
        # A screen's first show follows its mount (more than once): the mount's read is still under way.
        if isinstance(self._reading, Worker) and not self._reading.is_finished:
            return
        self.reread()

    def on_files_changed(self, _event: FilesChanged) -> None:
        self.reread()

    def on_code_changed(self, _event: CodeChanged) -> None:
        if self.READS_CODE:
            self.reread()

    def on_memory_changed(self, event: MemoryChanged) -> None:
        """This screen wrote (decided a proposal, merged, promoted): say what changed, read again."""
        if event.summary:
            self.notify(event.summary, timeout=6)
        self.reread()

    def reread(self) -> None:
        """Read the content and every self-fed header again: after a write, a change on disk, a return."""
        self.load()
        feed_headers(self)

    def recolour(self) -> None:
        self.load()
