"""SessionsScreen: the agent sessions' T0 memory (spec 004). Sessions with their last
activity and counters; for the highlighted one, its three tiers and its audit timeline;
promote a working fact into a T1 fact through a dialog pre-filled from it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.events import Resize
from textual.message import Message
from textual.widgets import DataTable, Footer, Label, Static
from textual.widgets.data_table import CursorType

from foundry_tui.core.memory.model.request import WriteRequest
from foundry_tui.core.ops.sessions import promote
from foundry_tui.core.sessions.curation import (
    audit_line,
    promote_preset,
    session_detail,
    session_rows,
)
from foundry_tui.core.sessions.store import SessionStore
from foundry_tui.core.sessions.working import working_facts
from foundry_tui.tui.commands import SESSIONS_COMMANDS
from foundry_tui.tui.common.live import LiveScreen
from foundry_tui.tui.common.messages import MemoryChanged
from foundry_tui.tui.common.status_header import StatusHeader
from foundry_tui.tui.common.workers import deliver
from foundry_tui.tui.memory.write_fact import WriteFactScreen

MIN_FACT_WIDTH = 20  # the working facts' column, however narrow the pane
REFRESH_SECONDS = 5.0  # the store changes on every agent prompt; the file watcher ignores scratch/


def _when(iso: str) -> str:
    return iso[:16].replace("T", " ")


class WorkingFacts(DataTable[str | Text]):
    """A session's working facts, numbered, each row as tall as its fact wrapped at the
    table's width (at 80 columns a fact of 80 characters takes two lines: none is cut)."""

    def __init__(self, *, id: str | None = None, cursor_type: CursorType = "row") -> None:
        super().__init__(id=id, cursor_type=cursor_type)
        self.facts: list[str] = []
        self.wrapped_at = 0  # the fact column's width the rows were made at

    def on_mount(self) -> None:
        self.add_columns("#", "fact")

    def fact_width(self) -> int:
        """The longest fact, or what the table leaves it (its `#` column, the cells' padding,
        a scrollbar) when that is less: there a fact wraps."""
        room = self.size.width - len(str(len(self.facts))) - 6
        return max(MIN_FACT_WIDTH, min(max((cell_len(fact) for fact in self.facts), default=0), room))

    def show(self, facts: list[str], keep: int) -> None:
        """`facts`, the cursor on row `keep` (or the last)."""
        self.facts = facts
        self.wrapped_at = width = self.fact_width()
        self.clear(columns=True)
        self.add_column("#", key="number")
        self.add_column("fact", key="fact", width=width)
        for number, fact in enumerate(facts, 1):
            self.add_row(str(number), Text(fact), key=fact, height=None)  # (a Text: never markup)
        if facts:
            self.move_cursor(row=min(keep, len(facts) - 1), animate=False)

    def on_resize(self, _event: Resize) -> None:
        if self.facts and self.fact_width() != self.wrapped_at:
            self.show(self.facts, self.cursor_row)


@dataclass
class SessionsData:
    rows: list[dict[str, Any]]
    detail: dict[str, Any] | None
    triggers: tuple[int, int]
    where: str
    facts: list[str] = field(default_factory=list)


class SessionsScreen(LiveScreen):
    """The curator's view of session memory; `p` promotes the highlighted working fact."""

    SCREEN_COMMANDS = SESSIONS_COMMANDS
    BINDINGS: ClassVar[list[BindingType]] = [command.binding() for command in SESSIONS_COMMANDS]

    @dataclass
    class Loaded(Message):
        data: SessionsData

    def __init__(self) -> None:
        super().__init__()
        self.selected: str | None = None
        self.data: SessionsData | None = None
        self._shown: str | None = None  # the session whose detail is on screen

    def compose(self) -> ComposeResult:
        yield StatusHeader()
        with Horizontal(id="sessions-panes"):
            table: DataTable[str] = DataTable(id="sessions", cursor_type="row")
            table.border_title = "Sessions"
            yield table
            with VerticalScroll(id="session-detail") as detail:
                detail.border_title = "Session"
                yield Static("", id="session-head", markup=False)
                yield Label("Working memory (p: promote the highlighted fact)", id="working-label")
                yield WorkingFacts(id="working", cursor_type="row")
                yield Static("", id="session-tiers", markup=False)
                yield Static("", id="session-audit", markup=False)
        yield Footer()

    def on_mount(self) -> None:  # Textual runs LiveScreen's on_mount (the first load) too
        # tiers: working facts / observation entries / reflection entries
        self.query_one("#sessions", DataTable).add_columns("session", "last active", "tiers", "rolling", "observed")
        self.set_interval(REFRESH_SECONDS, self.load)

    @work(thread=True, exclusive=True, group="sessions", name="Sessions not read", exit_on_error=False)
    def load(self) -> Loaded:
        store = SessionStore(self.project.layout)
        try:
            rows = session_rows(store)
            known = {row["session"] for row in rows}
            chosen = self.selected if self.selected in known else (rows[0]["session"] if rows else None)
            detail = session_detail(store, chosen) if chosen else None
        finally:
            store.close()
        config = self.project.config_or_defaults()[0]
        facts = working_facts(detail["memory"])[0] if detail else []
        triggers = (config.observation_trigger_tokens, config.reflection_trigger_tokens)
        return deliver(self, self.Loaded(SessionsData(rows, detail, triggers, store.where(), facts)))

    def on_sessions_screen_loaded(self, event: Loaded) -> None:
        data = self.data = event.data
        count = len(data.rows)
        self.query_one(StatusHeader).show_count("sessions", f"{count} session{'s' if count != 1 else ''}")
        table = self.query_one("#sessions", DataTable)
        detail = data.detail
        self.selected = detail["session"] if detail else None
        # Refilling the table moves its cursor: those moves are not the user's choice of session.
        with self.prevent(DataTable.RowHighlighted):
            table.clear()
            for row in data.rows:
                table.add_row(
                    row["session"][:8],
                    _when(row["last_active"])[5:],
                    f"{row['working_facts']}/{row['observation_entries']}/{row['reflection_entries']}",
                    f"{row['rolling']:,}",
                    f"{row['observation']:,}",
                    key=row["session"],
                )
            if self.selected is not None:
                index = next(i for i, row in enumerate(data.rows) if row["session"] == self.selected)
                table.move_cursor(row=index, animate=False)
            self._show_detail(data)

    def _show_detail(self, data: SessionsData) -> None:
        head = self.query_one("#session-head", Static)
        working = self.query_one(WorkingFacts)
        detail = data.detail
        # A refresh of the session shown keeps the cursor on the fact it was on.
        same = detail is not None and detail["session"] == self._shown
        keep = working.cursor_row if same else 0
        self._shown = detail["session"] if detail else None
        if detail is None:
            working.show([], 0)
            head.update(f"No sessions in {data.where} yet: they appear when an agent's foundry hooks run.")
            self.query_one("#session-tiers", Static).update("")
            self.query_one("#session-audit", Static).update("")
            return
        ledger = detail["ledger"]
        observation_trigger, reflection_trigger = data.triggers
        lines = [
            f"{detail['session']}",
            f"created {_when(detail['created'])}, last active {_when(detail['last_active'])}",
            f"tokens: rolling {ledger['rolling']:,}/{observation_trigger:,} · observed "
            f"{ledger['observation']:,}/{reflection_trigger:,} · {ledger['total']:,} in all",
        ]
        if ledger["generating"]:
            lines.append(f"waiting for the agent's {ledger['generating']}")
        head.update("\n".join(lines))
        working.show(data.facts, keep)
        memory = detail["memory"]
        tiers = []
        for tier in ("reflection", "observation"):
            entries = (memory[tier] or {}).get("entries") or []
            note = ""
            if tier == "observation" and entries and not detail["observation_in_context"]:
                note = " (older than the reflection: not in the context)"
            tiers.append(f"[{tier}]{note}")
            tiers += [f"- {_when(e['at'])} {e['text']}" for e in entries] or ["(empty)"]
            tiers.append("")
        self.query_one("#session-tiers", Static).update("\n".join(tiers).rstrip("\n"))
        audit = [f"Audit ({len(detail['audit'])} records)", *(audit_line(e) for e in detail["audit"])]
        self.query_one("#session-audit", Static).update("\n".join(audit))

    @on(DataTable.RowHighlighted, "#sessions")
    def _session_highlighted(self, event: DataTable.RowHighlighted) -> None:
        key = event.row_key.value
        if key is not None and key != self.selected:
            self.selected = key
            self.load()

    def busy_groups(self) -> frozenset[str]:
        """The promote is a write (through the door, under the memory lock): busy past BUSY_DELAY too."""
        return super().busy_groups() | {"promote"}

    def action_promote(self) -> None:
        working = self.query_one(WorkingFacts)
        if self.selected is None or not self.data or not self.data.facts:
            self.notify(
                "No working fact to promote: pick a session whose working memory has facts.", severity="warning"
            )
            return
        fact = self.data.facts[min(working.cursor_row, len(self.data.facts) - 1)]
        session_id = self.selected

        def written(request: WriteRequest | None) -> None:
            if request is not None:
                self._promote(session_id, request, fact)

        self.app.push_screen(
            WriteFactScreen(promote_preset(fact, session_id), f"Promote a working fact of session {session_id[:13]}"),
            written,
        )

    @work(thread=True, group="promote", name="Not promoted", exit_on_error=False)
    def _promote(self, session_id: str, request: WriteRequest, fact: str) -> MemoryChanged:
        store = SessionStore(self.project.layout)
        try:
            gate = promote(self.actor, store, session_id, request, fact)
        finally:
            store.close()
        return deliver(self, MemoryChanged(f"Promoted: {gate.text.splitlines()[0]}" if gate.written else gate.text))
