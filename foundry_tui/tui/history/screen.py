"""HistoryScreen: the memory's history from git, as `foundry memory log` reads it
(which commit created, superseded, merged, renumbered or expired which fact, and the
commits that changed code active facts cite: "code" rows, issue 30), the work tree's
uncommitted changes first. Below NARROW_BELOW columns the list keeps the commit, the
action, the fact and a title as wide as the rest, and the highlighted row's whole line
(date, author, subject, detail) shows under it. Enter opens a commit (what it did to each fact, its refs
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
from textual.events import Resize
from textual.message import Message
from textual.widgets import DataTable, Footer, Static

from foundry_tui.core.artefacts.waves import DiffLine
from foundry_tui.core.errors import FoundryError
from foundry_tui.core.history.git_history import (
    CODE_ACTION,
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


NARROW_BELOW = 100  # FoundryApp.HORIZONTAL_BREAKPOINTS' `-narrow` (app.tcss: `Screen.-narrow #history…`)
WIDE_COLUMNS = ("commit", "date", "author", "action", "fact", "title", "detail")
NARROW_COLUMNS = ("commit", "action", "fact", "title")  # the rest in #history-row, under the list
NARROW_FIXED = (10, 10, 9)  # the narrow list's columns before the title ("▸ " and 8 digits, "superseded", "fact-0001")
NARROW_CHROME = 4  # #history's padding (one column a side) and the list's vertical scrollbar (two)
MIN_TITLE = 20  # the narrow title column's least width, however narrow the screen


def row_text(event: MemoryEvent) -> tuple[str, str]:
    """What the narrow layout shows under the list for the highlighted row: the commit, its
    date, author and subject (one line, cut with an ellipsis), then the row's whole line
    (its title and detail, wrapped)."""
    if event.commit == UNCOMMITTED:
        head = "work tree · not committed"
    else:
        head = " · ".join(p for p in (event.commit[:8], event.date, event.author, event.subject) if p)
    return head, event.line()


class HistoryScreen(LiveScreen):
    """One row per fact event, uncommitted ones first, then newest commit first; a project
    outside git says so in one line."""

    SCREEN_COMMANDS = HISTORY_COMMANDS
    BINDINGS: ClassVar[list[BindingType]] = [command.binding() for command in HISTORY_COMMANDS]

    @dataclass
    class Loaded(Message):
        events: list[MemoryEvent]
        error: str | None
        code_more: int = 0  # commits that changed cited code beyond the log's MAX_CODE_COMMITS

    @dataclass
    class Opened(Message):
        """A commit's (or the work tree's) changes, read: time to show them."""

        title: str
        lines: list[DiffLine]

    def __init__(self) -> None:
        super().__init__()
        self.commits: list[str] = []  # the commit of each row (UNCOMMITTED for the work tree's)
        self.events: list[MemoryEvent] = []  # each row's event
        self.marked: str | None = None
        self.shown: HistoryScreen.Loaded | None = None  # the last load shown (filled again at a new layout)
        self.columns: tuple[str, ...] = ()

    def compose(self) -> ComposeResult:
        yield StatusHeader()
        with Vertical(id="history"):
            yield Static("", id="history-summary", markup=False)
            yield DataTable(id="history-events", cursor_type="row", zebra_stripes=True)
            with Vertical(id="history-row"):
                yield Static("", id="history-row-head", markup=False)
                yield Static("", id="history-row-line", markup=False)
        yield Footer()

    @property
    def narrow_layout(self) -> bool:
        return self.size.width < NARROW_BELOW

    def _set_columns(self, table: DataTable[str]) -> None:
        """The columns of this width's layout (the narrow title takes the columns left)."""
        table.clear(columns=True)
        if not self.narrow_layout:
            self.columns = WIDE_COLUMNS
            table.add_columns(*WIDE_COLUMNS)
            return
        self.columns = NARROW_COLUMNS
        for name, width in zip(NARROW_COLUMNS, NARROW_FIXED, strict=False):
            table.add_column(name, width=width)
        cells = sum(width + 2 * table.cell_padding for width in NARROW_FIXED) + 2 * table.cell_padding
        table.add_column("title", width=max(MIN_TITLE, self.size.width - NARROW_CHROME - cells))

    def on_resize(self, _event: Resize) -> None:
        """A new width lays the list out again (crossing NARROW_BELOW, its columns; below it,
        the title's width), with the rows it had."""
        if self.shown is not None and (self.narrow_layout or self.columns != WIDE_COLUMNS):
            self.on_history_screen_loaded(self.shown)

    @work(thread=True, exclusive=True, group="history", name="History not read", exit_on_error=False)
    def load(self) -> Loaded:
        try:
            uncommitted, _patch = uncommitted_changes(self.project.layout)
            log = memory_log(self.project.layout)
            events, error, more = uncommitted + log.events, None, log.code_more
        except FoundryError as exc:
            events, error, more = [], str(exc), 0
        return deliver(self, self.Loaded(events, error, more))

    def on_history_screen_loaded(self, event: Loaded) -> None:
        self.shown = event
        table: DataTable[str] = self.query_one(DataTable)
        row = table.cursor_row
        self._set_columns(table)
        self.commits, self.events = [], []
        summary = self.query_one("#history-summary", Static)
        if event.error is not None:
            summary.update(f"No history: {event.error}")
            self._show_row()
            return
        committed = [e for e in event.events if e.commit != UNCOMMITTED]
        commits = len({e.commit for e in committed})
        code = sum(1 for e in committed if e.action == CODE_ACTION)
        facts = f"{len(committed) - code} fact events"
        if code:
            facts += f" and {code} code change{'s' if code != 1 else ''}"
            facts += f" (and {event.code_more} older)" if event.code_more else ""
        text = f"{facts} in {commits} commits (foundry memory log)"
        waiting = len(event.events) - len(committed)
        if waiting:
            text = f"{waiting} uncommitted change{'s' if waiting != 1 else ''} first, then " + text
        summary.update(text + " · Enter opens a commit, m marks one, d diffs the marked one with it")
        for e in event.events:
            shown_commit = "work tree" if e.commit == UNCOMMITTED else e.commit[:8]
            mark = "▸ " if self.marked is not None and e.commit == self.marked else ""
            cells = {"commit": mark + shown_commit, "date": e.date, "author": e.author, "action": e.action}
            cells |= {"fact": e.shown_id, "title": e.title, "detail": e.detail}
            table.add_row(*(cells[name] for name in self.columns))
            self.commits.append(e.commit)
            self.events.append(e)
        if self.commits:
            table.move_cursor(row=min(row, len(self.commits) - 1))
        self._show_row()

    @on(DataTable.RowHighlighted, "#history-events")
    def _row_highlighted(self) -> None:
        self._show_row()

    def _show_row(self) -> None:
        """The highlighted row's whole line under the list (shown by app.tcss below NARROW_BELOW)."""
        row = self.query_one(DataTable).cursor_row
        head, line = row_text(self.events[row]) if self.events and 0 <= row < len(self.events) else ("", "")
        self.query_one("#history-row-head", Static).update(head)
        self.query_one("#history-row-line", Static).update(line)

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
