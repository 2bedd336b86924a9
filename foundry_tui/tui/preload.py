"""Preload: the index the memory screen paints first, read while Textual is imported.

`foundry tui` starts it before it imports the app: a thread reads the first-frame record
(reports/first_frame.py: the first rows and the counts, written by the last full load, for
the same snapshot, folder and day), or without one that matches, loads the parse cache's
snapshot and orders the index from its columns (`views.index_view_of`, as the screen's
early index does). Reading and checking the file run outside the interpreter lock; the
rest takes turns with the imports. No fact file is stat'ed here, so the first paint does
not wait for the stat of every file: the screen's first load compares every file with
the snapshot right after that paint, and when one changed meanwhile, the full load
paints what is on disk a moment later (ADR 0013).

This module imports no Textual: it runs before Textual is imported.
"""

from __future__ import annotations

import datetime as _dt
import threading

# index_view_of imports index_file where it is used: imported here, on the main thread, so the
# thread imports nothing while the main thread imports Textual.
import foundry_tui.core.memory.reports.index_file  # noqa: F401
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.reports.first_frame import read_first_frame
from foundry_tui.core.memory.reports.views import IndexView, index_view_of


class Preload:
    """One project's snapshot and early index, read in a thread (`start`, then `view`)."""

    def __init__(self, project: Project, today: _dt.date) -> None:
        self.project = project
        self.today = today
        self._view: IndexView | None = None
        self._thread = threading.Thread(target=self._read, name="foundry-preload", daemon=True)

    def start(self) -> Preload:
        self._thread.start()
        return self

    def _read(self) -> None:
        project = self.project
        layout = project.layout
        try:
            if not layout.foundry.is_dir():
                return  # no memory: the app shows how to make one
            layout.check_inside(layout.facts_dir)  # a folder linked out of the root: the load says so
            with project.lock:
                # The first-frame record, when it matches the snapshot, the folder and the day: the
                # snapshot itself is then read by the screen's load, after the paint.
                self._view = read_first_frame(project, self.today)
                if self._view is not None:
                    return
                snapshot = project.store.load_snapshot_ahead()
                if snapshot is not None:
                    budget = project.config_or_defaults()[0].index_token_budget
                    self._view = index_view_of(snapshot, self.today, budget)
        except Exception:  # nothing to show ahead: the screen's load reads and reports as usual
            self._view = None

    def view(self) -> IndexView | None:
        """The index from the snapshot (None without a usable one), once the thread is done."""
        self._thread.join()
        return self._view
