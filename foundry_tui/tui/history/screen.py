"""HistoryScreen: the memory's history from git, as `foundry memory log` reads it
(which commit created, superseded, merged, renumbered or expired which fact), the work
tree's uncommitted changes first. Enter opens a commit (what it did to each fact, its refs
among it, the cited code it changed and which facts cite it, and the line diff of the fact
files: `commit_changes`); `m` marks a commit and `d` diffs it with the highlighted one,
as `foundry memory diff` does."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Footer, Static

from foundry_tui.core.artefacts.waves import DiffLine
from foundry_tui.core.errors import FoundryError
from foundry_tui.core.history.git_history import (
    UNCOMMITTED,
    MemoryEvent,
    commit_changes,
    memory_diff,
    memory_log,
    uncommitted_changes,
)
from foundry_tui.tui.commands import HISTORY_COMMANDS
from foundry_tui.tui.common.live import LiveScreen
from foundry_tui.tui.common.status_header import StatusHeader
from foundry_tui.tui.common.workers import deliver


def patch_lines(summary: str, patch: str) -> list[DiffLine]:
    """The fact-by-fact summary as headers, then a unified diff's lines by kind."""
    lines = [DiffLine("header", line) for line in summary.splitlines()]
    for line in patch.splitlines():
        if line.startswith(("diff ", "index ", "--- ", "+++ ", "new file", "deleted file")):
            kind = "header"
        elif line.startswith("@@"):
            kind = "hunk"
        elif line.startswith("+"):
            kind = "added"
        elif line.startswith("-"):
            kind = "removed"
        else:
            kind = "same"
        lines.append(DiffLine(kind, line))
    return lines


class HistoryScreen(LiveScreen):
    """One row per fact event, uncommitted ones first, then newest commit first; a project
    outside git says so in one line."""

    SCREEN_COMMANDS = HISTORY_COMMANDS
    BINDINGS: ClassVar[list[BindingType]] = [command.binding() for command in HISTORY_COMMANDS]

    @dataclass
    class Loaded(Message):
        events: list[MemoryEvent]
        error: str | None

    @dataclass
    class Opened(Message):
        """A commit's (or the work tree's) changes, read: time to show them."""

        title: str
        lines: list[DiffLine]

    def __init__(self) -> None:
        super().__init__()
        self.commits: list[str] = []  # the commit of each row (UNCOMMITTED for the work tree's)
        self.marked: str | None = None

    def compose(self) -> ComposeResult:
        yield StatusHeader()
        with Vertical(id="history"):
            yield Static("", id="history-summary", markup=False)
            yield DataTable(id="history-events", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns("commit", "date", "author", "action", "fact", "title", "detail")

    @work(thread=True, exclusive=True, group="history", name="History not read", exit_on_error=False)
    def load(self) -> Loaded:
        try:
            uncommitted, _patch = uncommitted_changes(self.project.layout)
            events, error = uncommitted + memory_log(self.project.layout).events, None
        except FoundryError as exc:
            events, error = [], str(exc)
        return deliver(self, self.Loaded(events, error))

    def on_history_screen_loaded(self, event: Loaded) -> None:
        table = self.query_one(DataTable)
        row = table.cursor_row
        table.clear()
        self.commits = []
        summary = self.query_one("#history-summary", Static)
        if event.error is not None:
            summary.update(f"No history: {event.error}")
            return
        committed = [e for e in event.events if e.commit != UNCOMMITTED]
        commits = len({e.commit for e in committed})
        text = f"{len(committed)} fact events in {commits} commits (foundry memory log)"
        waiting = len(event.events) - len(committed)
        if waiting:
            text = f"{waiting} uncommitted change{'s' if waiting != 1 else ''} first, then " + text
        summary.update(text + " · Enter opens a commit, m marks one, d diffs the marked one with it")
        for e in event.events:
            shown_commit = "work tree" if e.commit == UNCOMMITTED else e.commit[:8]
            mark = "▸ " if self.marked is not None and e.commit == self.marked else ""
            table.add_row(mark + shown_commit, e.date, e.author, e.action, e.fact_id, e.title, e.detail)
            self.commits.append(e.commit)
        if self.commits:
            table.move_cursor(row=min(row, len(self.commits) - 1))

    def _highlighted(self) -> str | None:
        row = self.query_one(DataTable).cursor_row
        if not self.commits or not 0 <= row < len(self.commits):
            self.notify("No commit here: the memory has no history yet.", severity="warning")
            return None
        return self.commits[row]

    @on(DataTable.RowSelected, "#history-events")
    def _row_chosen(self) -> None:
        self.action_show_commit()

    def action_show_commit(self) -> None:
        commit = self._highlighted()
        if commit is not None:
            self.open_changes(commit)

    @work(thread=True, exclusive=True, group="open", name="Commit not read", exit_on_error=False)
    def open_changes(self, commit: str) -> Opened:
        layout = self.project.layout
        if commit == UNCOMMITTED:
            events, patch = uncommitted_changes(layout)
            summary = "\n".join(["the work tree against HEAD (not committed)", *(e.line() for e in events)])
            return deliver(self, self.Opened("Uncommitted changes", patch_lines(summary, patch)))
        diff, patch = commit_changes(layout, commit)
        return deliver(self, self.Opened(f"Commit {commit[:8]}", patch_lines(diff.text(), patch)))

    def action_mark(self) -> None:
        commit = self._highlighted()
        if commit is None:
            return
        if commit == UNCOMMITTED:
            self.notify("The work tree is not a revision: mark a commit.", severity="warning")
            return
        self.marked = None if self.marked == commit else commit
        if self.marked:
            self.notify(f"{commit[:8]} marked: highlight another commit and press d to compare.", timeout=4)
        self.load()

    def action_diff(self) -> None:
        commit = self._highlighted()
        if commit is None:
            return
        if self.marked is None or commit == UNCOMMITTED or commit == self.marked:
            self.notify("Mark a commit with m, then highlight another one and press d.", severity="warning")
            return
        self.diff_revisions(self.marked, commit)

    @work(thread=True, exclusive=True, group="open", name="Not compared", exit_on_error=False)
    def diff_revisions(self, older: str, newer: str) -> Opened:
        diff = memory_diff(self.project.layout, older, newer)
        text = diff.text().replace(f"{older}..{newer}", f"{older[:8]}..{newer[:8]}", 1)
        return deliver(self, self.Opened(f"Memory {older[:8]} → {newer[:8]}", patch_lines(text, "")))

    def on_history_screen_opened(self, event: Opened) -> None:
        from foundry_tui.tui.board.artifact_diff import ArtifactDiffScreen

        self.app.push_screen(ArtifactDiffScreen(event.title, event.lines))
