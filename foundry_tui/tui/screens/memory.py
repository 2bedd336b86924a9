"""MemoryScreen: the curator's main screen: the index, search, the selected fact and
the prune candidates at once, kept fresh from disk by the app's file watcher."""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING, ClassVar, cast

from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Input
from textual.worker import get_current_worker

from foundry_tui.core.artefacts.adr import adr_titles
from foundry_tui.core.errors import FoundryError
from foundry_tui.core.memory.doctor import DoctorReport, run_doctor
from foundry_tui.core.memory.search import Hit
from foundry_tui.core.memory.views import Overview
from foundry_tui.core.memory.write import WriteRequest, memory_index
from foundry_tui.core.trust.changes import RetireChange
from foundry_tui.core.trust.policy import guarded_memory_write, guarded_write
from foundry_tui.tui.commands import MEMORY_COMMANDS
from foundry_tui.tui.messages import FilesChanged, MemoryChanged
from foundry_tui.tui.screens.confirm import ConfirmScreen
from foundry_tui.tui.screens.doctor import DoctorScreen
from foundry_tui.tui.screens.write_fact import WriteFactScreen
from foundry_tui.tui.widgets.fact_detail import FactDetail
from foundry_tui.tui.widgets.fact_list import FactList
from foundry_tui.tui.widgets.index_pane import IndexPane
from foundry_tui.tui.widgets.prune_list import PruneList
from foundry_tui.tui.widgets.search_pane import SearchPane
from foundry_tui.tui.widgets.status_header import StatusHeader

if TYPE_CHECKING:
    from foundry_tui.tui.app import FoundryApp


class MemoryScreen(Screen[None]):
    """Four panes over one Overview of the memory, rebuilt off the UI thread."""

    SCOPE = "main"
    BINDINGS: ClassVar[list[BindingType]] = [command.binding() for command in MEMORY_COMMANDS]

    overview: reactive[Overview | None] = reactive(None, always_update=True)
    selected: reactive[str | None] = reactive(None)
    show_inactive: reactive[bool] = reactive(False)

    def __init__(self) -> None:
        super().__init__()
        self.hits: dict[str, Hit] = {}
        self.doctor: DoctorReport | None = None
        self.search_query = ""

    @property
    def foundry(self) -> FoundryApp:
        return cast("FoundryApp", self.app)

    def compose(self) -> ComposeResult:
        yield StatusHeader(self.foundry.root_label)
        with Horizontal(id="panes"):
            with Vertical(id="left"):
                yield IndexPane(id="index")
                yield PruneList(id="prune")
            with Vertical(id="right"):
                yield SearchPane(self._search, id="search")
                yield FactDetail(id="detail")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(IndexPane).focus()
        self.load()

    # ---- loading (a worker thread: disk and parsing never run on the UI thread) ------------

    @work(thread=True, exclusive=True, group="load")
    def load(self, announce: bool = False, summary: str = "") -> None:
        try:
            with self.foundry.project.lock:  # one consistent view while other workers write
                overview = Overview(
                    self.foundry.project, self.foundry.today, adr_titles(self.foundry.project.layout), with_doctor=False
                )
        except FoundryError as exc:
            self.app.call_from_thread(self.notify, str(exc), severity="error")
            return
        if get_current_worker().is_cancelled:
            return
        self.app.call_from_thread(self._loaded, overview, announce, summary)

    def _loaded(self, overview: Overview, announce: bool, summary: str) -> None:
        self.overview = overview
        self.call_after_refresh(self._after_paint)
        message = summary or (overview.changes.summary() if announce else "")
        if message:
            self.notify(message, timeout=4)

    def _after_paint(self) -> None:
        """Work that should not compete with painting the memory: the word index (searches
        as you type stay within a frame at any size once it exists; a no-op after the first
        time, scans answer meanwhile) and the doctor."""
        self.foundry.project.use_search_index(background=True)
        self.check_doctor()
        self.count_proposals()

    @work(thread=True, exclusive=True, group="proposals")
    def count_proposals(self) -> None:
        """The header's count of proposals waiting for a curator (after the paint, like doctor)."""
        from foundry_tui.core.trust.proposals import pending_count

        try:
            count = pending_count(self.foundry.project.layout)
        except FoundryError:
            return
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self.query_one(StatusHeader).show_pending, count)

    @work(thread=True, exclusive=True, group="doctor")
    def check_doctor(self) -> None:
        """Doctor after the paint: it re-reads INDEX.md, asks git, and checks every fact."""
        try:
            with self.foundry.project.lock:
                report = run_doctor(self.foundry.project, self.foundry.today)
        except FoundryError as exc:
            self.app.call_from_thread(self.notify, f"doctor failed: {exc}", severity="error")
            return
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._doctor_done, report)

    def _doctor_done(self, report: DoctorReport) -> None:
        self.doctor = report
        self.query_one(StatusHeader).show_doctor(report)

    def watch_overview(self, overview: Overview | None) -> None:
        if overview is None:
            return
        self.query_one(StatusHeader).show(overview)
        index = self.query_one(IndexPane)
        index.show(overview, self.show_inactive)
        if self.selected is None and index.row_ids:
            self.selected = index.row_ids[0]  # start on the first fact of the index
        self.query_one(PruneList).show(overview)
        self.query_one(SearchPane).refresh_results()
        self._show_detail()

    def watch_show_inactive(self, show: bool) -> None:
        if self.overview is not None:
            self.query_one(IndexPane).show(self.overview, show)

    def watch_selected(self) -> None:
        self._show_detail()

    def _show_detail(self) -> None:
        if self.overview is not None:
            hit = self.hits.get(self.selected) if self.selected else None
            self.query_one(FactDetail).show(self.selected, self.overview, hit, self.search_query)

    def _search(self, query: str, ftype: str | None) -> list[Hit]:
        return self.foundry.project.search(query, self.foundry.today, type=ftype)

    @on(FactList.FactHighlighted)
    def _fact_highlighted(self, event: FactList.FactHighlighted) -> None:
        self.selected = event.fact_id

    @on(SearchPane.HitsChanged)
    def _hits_changed(self, event: SearchPane.HitsChanged) -> None:
        self.hits, self.search_query = event.hits, event.query
        self._show_detail()

    def on_files_changed(self, _event: FilesChanged) -> None:
        self.load(announce=True)

    def on_memory_changed(self, event: MemoryChanged) -> None:
        self.load(summary=event.summary)

    def on_screen_resume(self) -> None:
        if self.overview is not None:
            self.load()

    # ---- actions ---------------------------------------------------------------------------

    def action_focus_search(self) -> None:
        self.query_one("#query", Input).focus()

    def action_toggle_inactive(self) -> None:
        self.show_inactive = not self.show_inactive

    def action_show_doctor(self) -> None:
        if self.doctor is None:
            self.notify("The doctor is still checking; try again in a moment.")
            return
        self.app.push_screen(DoctorScreen(self.doctor))

    def _selected_fact(self, need_active: bool = False) -> str | None:
        fact_id = self.selected
        if self.overview is None or not fact_id or fact_id not in self.overview.facts:
            self.notify("Select a fact first (in the index, the search results or the prune list).", severity="warning")
            return None
        if need_active and fact_id in self.overview.inactive:
            self.notify(f"{fact_id} is already inactive ({self.overview.inactive[fact_id]}).", severity="warning")
            return None
        return fact_id

    def action_write_fact(self) -> None:
        def written(req: WriteRequest | None) -> None:
            if req is not None:
                self.confirm_write(
                    req,
                    [
                        "memory_write: a new fact file in .foundry/memory/facts/ (or nothing, if an identical "
                        "fact is active; a same-titled one is superseded, not changed)",
                        "INDEX.md is rebuilt",
                    ],
                )

        self.app.push_screen(WriteFactScreen(), written)

    def confirm_write(self, req: WriteRequest, changes: list[str]) -> None:
        def confirmed(answer: str | None) -> None:
            if answer is not None:
                self._write(req)

        self.app.push_screen(ConfirmScreen(f"Write “{req.title}”?", changes), confirmed)

    @work(thread=True, group="write")
    def _write(self, req: WriteRequest) -> None:
        try:
            gate = guarded_memory_write(self.foundry.project, self.foundry.caller, req, self.foundry.today)
            reply = gate.text
        except FoundryError as exc:
            self.app.call_from_thread(self.notify, f"Not written: {exc}", severity="error", timeout=8)
            return
        self.app.call_from_thread(self.post_message, MemoryChanged(reply))

    def action_retire_fact(self) -> None:
        fact_id = self._selected_fact(need_active=True)
        if fact_id is None:
            return
        yesterday = (self.foundry.today - _dt.timedelta(days=1)).isoformat()

        def confirmed(expires: str | None) -> None:
            if expires is not None:
                self._retire(fact_id, expires)

        self.app.push_screen(
            ConfirmScreen(
                f"Retire {fact_id}?",
                [
                    f".foundry/memory/facts/{fact_id}.md: expires is set (nothing else changes; no file is deleted)",
                    "INDEX.md is rebuilt without it",
                ],
                field=("Expires on (YYYY-MM-DD; earlier than today makes it inactive now)", yesterday),
            ),
            confirmed,
        )

    @work(thread=True, group="write")
    def _retire(self, fact_id: str, expires: str) -> None:
        try:
            gate = guarded_write(
                self.foundry.project, self.foundry.caller, RetireChange([fact_id], expires), self.foundry.today
            )
        except FoundryError as exc:
            self.app.call_from_thread(self.notify, f"Not retired: {exc}", severity="error", timeout=8)
            return
        summary = f"{fact_id} expires {expires}. {gate.result.write_line()}" if gate.written else gate.text
        self.app.call_from_thread(self.post_message, MemoryChanged(summary))

    def action_add_why(self) -> None:
        fact_id = self._selected_fact(need_active=True)
        if fact_id is None or self.overview is None:
            return
        fact = self.overview.facts[fact_id]
        if not fact.needs_why:
            self.notify(
                f"{fact_id} needs no Why line (it is a {fact.type}{' with one' if fact.has_why else ''}).",
                severity="warning",
            )
            return
        preset = WriteRequest(
            title=fact.title,
            body=f"{fact.body}\n\n**Why:** ",
            type=fact.type,
            scope=fact.scope,
            tags=fact.tags,
            confidence=fact.confidence,
            source=fact.source,
            expires=fact.expires,
        )

        def edited(req: WriteRequest | None) -> None:
            if req is not None:
                self.confirm_write(
                    req,
                    [
                        f"memory_write: a new version of {fact_id} in .foundry/memory/facts/, "
                        f"with supersedes: {fact_id}",
                        f"{fact_id}.md stays on disk, inactive",
                        "INDEX.md is rebuilt",
                    ],
                )

        self.app.push_screen(WriteFactScreen(preset, f"Add the Why line to {fact_id}"), edited)

    def action_rebuild_index(self) -> None:
        def confirmed(answer: str | None) -> None:
            if answer is not None:
                self._reindex()

        self.app.push_screen(
            ConfirmScreen("Rebuild the index?", [".foundry/memory/INDEX.md is regenerated from the active facts"]),
            confirmed,
        )

    @work(thread=True, group="write")
    def _reindex(self) -> None:
        try:
            text = memory_index(self.foundry.project, self.foundry.today).rebuild_text()
        except FoundryError as exc:
            self.app.call_from_thread(self.notify, f"Not rebuilt: {exc}", severity="error")
            return
        self.app.call_from_thread(self.post_message, MemoryChanged(text.splitlines()[-1]))
