"""MemoryScreen: the curator's main screen: the index, search, the selected fact and
the prune candidates at once, kept fresh from disk by the app's file watcher."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Footer, Input

from foundry_tui.core.memory.model.hits import Hit
from foundry_tui.core.memory.reports.first_frame import write_first_frame
from foundry_tui.core.memory.reports.views import IndexView, Overview, early_index
from foundry_tui.tui import startup
from foundry_tui.tui.commands import MEMORY_COMMANDS
from foundry_tui.tui.common.confirming import ConfirmingScreen
from foundry_tui.tui.common.messages import CodeChanged, FilesChanged, MemoryChanged
from foundry_tui.tui.common.row_list import RowList
from foundry_tui.tui.common.status_header import StatusHeader
from foundry_tui.tui.common.workers import deliver
from foundry_tui.tui.memory.fact_detail import FactDetail
from foundry_tui.tui.memory.index_pane import IndexPane
from foundry_tui.tui.memory.prune_list import PruneList
from foundry_tui.tui.memory.search_pane import SearchPane

# How long the first load waits for the index it sent ahead to be painted, before it builds
# the rest (a bound: the paint normally takes a frame or two).
EARLY_PAINT_WAIT = 1.0

# What only the actions and the doctor need is imported where it is used: the first paint
# does not wait for the write path, the trust gate, the dialogs or the doctor.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from foundry_tui.core.memory.model.facts import Fact
    from foundry_tui.core.memory.model.request import WriteRequest
    from foundry_tui.core.memory.reports.doctor import DoctorReport
    from foundry_tui.tui.memory.code_diff import CodeDiffReady


class MemoryScreen(ConfirmingScreen[None]):
    """Four panes over one Overview of the memory, rebuilt off the UI thread."""

    SCREEN_COMMANDS = MEMORY_COMMANDS
    BINDINGS: ClassVar[list[BindingType]] = [command.binding() for command in MEMORY_COMMANDS]

    overview: reactive[Overview | None] = reactive(None, always_update=True)
    selected: reactive[str | None] = reactive(None)
    show_inactive: reactive[bool] = reactive(False)

    @dataclass
    class Loaded(Message):
        """A fresh Overview, and what to say about it (the changes seen, or what this app wrote)."""

        overview: Overview
        announce: bool
        summary: str

    @dataclass
    class IndexRead(Message):
        """The index, sent ahead of the Overview at the first load (from the parse cache's
        columns); `painted` is set once it is on screen."""

        view: IndexView
        painted: threading.Event

    class FilesRead(Message):
        """The first load has read the files: time to watch them."""

    @dataclass
    class DoctorChecked(Message):
        report: DoctorReport

    def __init__(self) -> None:
        super().__init__()
        self.hits: dict[str, Hit] = {}
        self.doctor: DoctorReport | None = None
        self.search_query = ""
        self._paint_signals: list[threading.Event] = []  # the first load's, until set
        self.to_select: str | None = None  # a fact this screen wrote: selected once a load has it
        # An edit whose text was not written (refused, or its confirm cancelled): the selection
        # it was made from → its draft file, which the next `e` on it opens again.
        self.drafts: dict[str, Path] = {}

    def compose(self) -> ComposeResult:
        yield StatusHeader(self.foundry.root_label)
        with Horizontal(id="panes"):
            with Vertical(id="left"):
                yield IndexPane(id="index")
                yield PruneList(id="prune")
            with Vertical(id="right"):
                yield SearchPane(self._search, id="search")
                yield FactDetail(self.project.layout, id="detail")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(IndexPane).focus()
        view = startup.take_preloaded_view(self.foundry)
        if view is None:
            self.load()
            return
        # The index read ahead from the parse cache is in the first frame; the load compares
        # the files with the cache once it is drawn, and shows what changed, if anything.
        painted = threading.Event()
        self._show_early(view, painted)
        self.load(early_painted=painted)

    # ---- loading (a worker thread: disk and parsing never run on the UI thread) ------------

    @work(thread=True, exclusive=True, group="load", name="Memory not read", exit_on_error=False)
    def load(self, announce: bool = False, summary: str = "", early_painted: threading.Event | None = None) -> Loaded:
        from foundry_tui.core.artefacts.adr import adr_titles  # here: not before the first paint

        project = self.project
        first = self.overview is None
        if early_painted is not None:
            self._wait_for(early_painted)  # the stat of every file waits for the first paint
        with project.lock:  # one consistent view while other workers write
            changes = project.sync()
            # The first load from an unchanged parse cache paints the index before building the
            # facts: the same rows the Overview gives, from the cache's columns.
            early = early_index(project, self.today) if first and early_painted is None else None
            if early is not None:
                painted = threading.Event()
                deliver(self, self.IndexRead(early, painted))  # starts the file watcher once painted
                self._wait_for(painted)
                # Whatever changed before the watcher was in place is seen here.
                changes.merge(project.sync())
            elif first and early_painted is None:
                deliver(self, self.FilesRead())
            overview = Overview(project, self.today, adr_titles(project.layout), with_doctor=False, changes=changes)
            identity, dir_mtime = project.store.snapshot_identity, project.store.dir_mtime
        loaded = deliver(self, self.Loaded(overview, announce, summary))
        if identity is not None and dir_mtime is not None:  # the next start's first frame (ADR 0013)
            write_first_frame(project, self.today, overview.index_view(), identity, dir_mtime)
        return loaded

    @staticmethod
    def _wait_for(painted: threading.Event) -> None:
        """Let the UI thread paint (it and this thread share one interpreter) before building
        the rest; never longer than EARLY_PAINT_WAIT. The screen sets `painted` once the index
        is drawn, or when it is unmounted (the worker is cancelled then: nothing to wait for)."""
        painted.wait(EARLY_PAINT_WAIT)

    def on_memory_screen_index_read(self, event: IndexRead) -> None:
        if self.overview is None and not self.show_inactive:  # else the Overview is here, or needed
            self._show_early(event.view, event.painted)
        else:
            self._index_painted(event.painted)

    def _show_early(self, view: IndexView, painted: threading.Event) -> None:
        """The header and the index from the parse cache; `painted` is set once they are drawn."""
        self._paint_signals.append(painted)
        self.query_one(StatusHeader).show(view.status())
        index = self.query_one(IndexPane)
        index.show(view, False)
        if view.recorded:
            # From the first-frame record: the load's first step is then the snapshot's read (its
            # marshal sections hold the interpreter lock for tens of ms at a time), which would hold
            # back this frame's output to the terminal; it waits until the screen has refreshed.
            index.when_drawn(lambda: self.call_after_refresh(self._index_painted, painted))
        else:
            index.when_drawn(lambda: self._index_painted(painted))

    def _index_painted(self, painted: threading.Event) -> None:
        startup.memory_drawn(self.foundry)
        painted.set()

    def on_unmount(self) -> None:
        for painted in self._paint_signals:  # the first load waits for nothing that will come
            painted.set()

    def on_memory_screen_files_read(self, _event: FilesRead) -> None:
        startup.memory_drawn(self.foundry)

    def on_memory_screen_loaded(self, event: Loaded) -> None:
        startup.memory_drawn(self.foundry)  # already, unless the early index was never drawn
        self.overview = event.overview
        if self.foundry.watching:  # the facts this load synced may cite other code (issue 30)
            self.foundry.plan_code_watch()
        self.call_after_refresh(self._after_paint)
        message = event.summary or (event.overview.changes.summary() if event.announce else "")
        if message:
            self.notify(message, timeout=4)

    def _after_paint(self) -> None:
        """Work that should not compete with painting the memory: the word index (searches
        as you type stay within a frame at any size once it exists; a no-op after the first
        time, scans answer meanwhile), the doctor, and the fact pane's Markdown widget."""
        self.query_one(FactDetail).mount_body()
        self.project.use_search_index(background=True)
        self.check_doctor()
        self.count_proposals()

    class ProposalsCounted(Message):
        """How many proposals wait for a curator (the header shows it)."""

        def __init__(self, count: int) -> None:
            super().__init__()
            self.count = count

    @work(thread=True, exclusive=True, group="proposals", name="proposals not counted", exit_on_error=False)
    def count_proposals(self) -> ProposalsCounted:
        """The header's count of proposals waiting for a curator (after the paint, like doctor)."""
        from foundry_tui.core.gate.proposals import pending_count

        return deliver(self, self.ProposalsCounted(pending_count(self.project.layout)))

    def on_memory_screen_proposals_counted(self, event: ProposalsCounted) -> None:
        self.query_one(StatusHeader).show_pending(event.count)

    @work(thread=True, exclusive=True, group="doctor", name="doctor failed", exit_on_error=False)
    def check_doctor(self) -> DoctorChecked:
        """Doctor after the paint: it re-reads INDEX.md, asks git, and checks every fact."""
        from foundry_tui.core.checkup import ALL_CHECKS  # the doctor's checks with curation's
        from foundry_tui.core.memory.reports.doctor import run_doctor

        with self.project.lock:
            return deliver(self, self.DoctorChecked(run_doctor(self.project, self.today, ALL_CHECKS)))

    def on_memory_screen_doctor_checked(self, event: DoctorChecked) -> None:
        self.doctor = event.report
        self.query_one(StatusHeader).show_doctor(event.report)

    def watch_overview(self, overview: Overview | None) -> None:
        if overview is None:
            return
        view = overview.index_view()
        self.query_one(StatusHeader).show(view.status())
        index = self.query_one(IndexPane)
        index.show(view, self.show_inactive)
        self._keep_selection(overview, index)
        self.query_one(PruneList).show(overview)
        self.query_one(SearchPane).refresh_results()
        self._show_detail()

    def _keep_selection(self, overview: Overview, index: IndexPane) -> None:
        """After a load: the fact this screen just wrote, else the one selected while it still
        exists as it was (a broken file still broken; one repaired becomes its fact), else the
        index's row; the index's cursor follows, so that the detail and the lists agree."""
        wanted = self.selected
        if self.to_select is not None and self.to_select in overview.facts:
            wanted, self.to_select = self.to_select, None
        elif wanted is not None and wanted.startswith("broken:"):
            name = wanted.removeprefix("broken:")
            if not any(b.name == name for b in overview.broken):
                repaired = name.removesuffix(".md")
                wanted = repaired if repaired in overview.facts else None
        elif wanted is not None and wanted not in overview.facts:
            wanted = None  # gone from disk
        if wanted is None:
            wanted = index.current_id() or (index.row_ids[0] if index.row_ids else None)
        if wanted is not None:
            index.place(wanted)
        self.selected = wanted

    def watch_show_inactive(self, show: bool) -> None:
        if self.overview is not None:
            self.query_one(IndexPane).show(self.overview.index_view(), show)

    def watch_selected(self) -> None:
        self._show_detail()

    def _show_detail(self) -> None:
        if self.overview is not None:
            hit = self.hits.get(self.selected) if self.selected else None
            self.query_one(FactDetail).show(self.selected, self.overview, hit, self.search_query)

    def _search(self, query: str, ftype: str | None) -> list[Hit]:
        return self.project.search(query, self.today, type=ftype)

    @on(RowList.RowHighlighted)
    def _fact_highlighted(self, event: RowList.RowHighlighted) -> None:
        self.selected = event.row_id

    @on(SearchPane.HitsChanged)
    def _hits_changed(self, event: SearchPane.HitsChanged) -> None:
        self.hits, self.search_query = event.hits, event.query
        self._show_detail()

    def on_files_changed(self, _event: FilesChanged) -> None:
        self.load(announce=True)

    def on_code_changed(self, _event: CodeChanged) -> None:
        """Cited code changed on disk: the same load, whose Overview verifies the refs again
        (in its worker); the facts themselves did not change, so nothing is announced."""
        self.load()

    def on_memory_changed(self, event: MemoryChanged) -> None:
        self.to_select = event.select
        if event.edited is not None:
            self.drafts.pop(event.edited, None)
        self.load(summary=event.summary)

    def on_screen_resume(self) -> None:
        if self.overview is not None:
            self.load()

    def recolour(self) -> None:
        self.overview = self.overview  # every pane is drawn again from it

    # ---- actions ---------------------------------------------------------------------------

    def action_focus_search(self) -> None:
        self.query_one("#query", Input).focus()

    def action_toggle_inactive(self) -> None:
        self.show_inactive = not self.show_inactive

    def action_show_doctor(self) -> None:
        if self.doctor is None:
            self.notify("The doctor is still checking; try again in a moment.")
            return
        from foundry_tui.tui.health.doctor import DoctorScreen

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
        from foundry_tui.tui.memory.write_fact import WriteFactScreen

        changes = [
            f"memory_write: a new fact file in {self.facts_folder()} (or nothing, if an identical "
            "fact is active; a same-titled one is superseded, not changed)",
            "INDEX.md is rebuilt",
        ]
        self.app.push_screen(WriteFactScreen(changes=changes), self._written)

    def _written(self, req: WriteRequest | None) -> None:
        """The form's result, confirmed in the form already: write it (None: cancelled)."""
        if req is not None:
            self._write(req)

    def confirm_write(self, req: WriteRequest, changes: list[str], draft: tuple[str, Path] | None = None) -> None:
        """Ask before memory_write; `draft`: the editor's (selection, draft file), removed once written."""
        self.confirm(f"Write “{req.title}”?", changes, lambda _answer: self._write(req, draft))

    @work(thread=True, group="write", name="Not written", exit_on_error=False)
    def _write(self, req: WriteRequest, draft: tuple[str, Path] | None = None) -> MemoryChanged:
        from foundry_tui.core.ops.facts import write_fact

        gate = write_fact(self.actor, req)
        written = gate.applied.fact_id if gate.applied is not None else None
        if draft is not None:  # written: the edit's draft has served
            from foundry_tui.tui.common.editor import remove_draft

            remove_draft(draft[1])
        edited = draft[0] if draft is not None else None
        return deliver(
            self, MemoryChanged(gate.text, select=written, edited=edited)
        )  # the detail shows what was written

    async def action_open_source(self) -> None:
        from foundry_tui.core.artefacts.adr import ADR_REF

        fact_id = self._selected_fact()
        if fact_id is None or self.overview is None:
            return
        source = self.overview.facts[fact_id].source.strip()
        match = ADR_REF.fullmatch(source)
        if not match:
            self.notify(f"{fact_id}'s source is {source!r}, not an ADR (adr-NNNN).", severity="warning")
            return
        from foundry_tui.tui.library.screen import LibraryScreen

        await self.app.switch_mode("library")
        screen = self.app.screen
        if isinstance(screen, LibraryScreen):
            screen.show_adr(int(match.group(1)))

    def action_retire_fact(self) -> None:
        fact_id = self._selected_fact(need_active=True)
        if fact_id is None:
            return
        self.confirm(
            f"Retire {fact_id}?",
            [
                f"{self.fact_file(fact_id)}: expires is set (nothing else changes; no file is deleted)",
                "INDEX.md is rebuilt without it",
            ],
            lambda expires: self._retire(fact_id, expires),
            field=("Expires on (YYYY-MM-DD; earlier than today makes it inactive now)", self.yesterday),
        )

    @work(thread=True, group="write", name="Not retired", exit_on_error=False)
    def _retire(self, fact_id: str, expires: str) -> MemoryChanged:
        from foundry_tui.core.ops.facts import retire_facts

        gate = retire_facts(self.actor, [fact_id], expires)
        return deliver(self, MemoryChanged(gate.text))  # the CLI's words: retired, or left as it was

    def action_confirm_refs(self) -> None:
        """Re-record the selected fact's refs against today's code, as a new version through
        memory_write (a moved ref follows its new path, a gone one is dropped; issue 30)."""
        from foundry_tui.core.code_refs import FRESH
        from foundry_tui.core.ops.facts import restating

        fact_id = self._selected_fact(need_active=True)
        if fact_id is None or self.overview is None:
            return
        fact = self.overview.facts[fact_id]
        verification = self.overview.verification
        check = None if verification is None else verification.checks.get(fact_id)
        if check is None or not check.refs:
            self.notify(f"{fact_id} cites no code (no refs): nothing to confirm.", severity="warning")
            return
        if all(state.state == FRESH for state in check.refs):
            self.notify(f"{fact_id}: the code it cites is as it was written; nothing to confirm.")
            return
        preset = restating(fact, check=check)
        refs = list(preset.refs or ())
        self.confirm(
            f"Write “{preset.title}”?",
            [
                f"memory_write: a new version of {fact_id} in {self.facts_folder()}, with supersedes: {fact_id}",
                f"its refs re-recorded against today's code: {', '.join(refs) or 'none left'}",
                f"{fact_id}.md stays on disk, inactive",
                "INDEX.md is rebuilt",
            ],
            lambda _answer: self._write(preset),
        )

    def action_show_code_diff(self) -> None:
        """The diff of the selected fact's cited files since it was written (issue 30), made in a worker."""
        fact_id = self._selected_fact()
        if fact_id is None or self.overview is None:
            return
        self._code_diff(self.overview.facts[fact_id])

    @work(thread=True, exclusive=True, group="open", name="No diff", exit_on_error=False)
    def _code_diff(self, fact: Fact) -> CodeDiffReady:
        from foundry_tui.core.memory.reports.grounding import diff_since_written
        from foundry_tui.tui.memory.code_diff import CodeDiffReady

        return deliver(self, CodeDiffReady(fact.id, diff_since_written(self.project, fact)))

    def on_code_diff_ready(self, event: CodeDiffReady) -> None:
        from foundry_tui.tui.memory.code_diff import CodeDiffScreen

        self.app.push_screen(CodeDiffScreen(event.title, event.text))

    def action_add_why(self) -> None:
        from foundry_tui.core.memory.model.facts import field_problems
        from foundry_tui.core.ops.facts import restating
        from foundry_tui.tui.memory.write_fact import WriteFactScreen

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
        problems = field_problems(fact)
        if problems:  # memory_write would refuse the new version's fields: say so before the form
            self.notify(
                f"{fact_id} cannot get a new version here: its {problems[0]} (doctor lists it); "
                "write the fact anew through memory_write",
                severity="warning",
            )
            return
        preset = restating(fact, body=f"{fact.body}\n\n**Why:** ")

        changes = [
            f"memory_write: a new version of {fact_id} in {self.facts_folder()}, with supersedes: {fact_id}",
            f"{fact_id}.md stays on disk, inactive",
            "INDEX.md is rebuilt",
        ]
        form = WriteFactScreen(preset, f"Add the Why line to {fact_id}", focus_body=True, changes=changes)
        self.app.push_screen(form, self._written)

    def action_rebuild_index(self) -> None:
        layout = self.project.layout
        self.confirm(
            "Rebuild the index?",
            [f"{layout.relative(layout.index_path)} is regenerated from the active facts"],
            lambda _answer: self._reindex(),
        )

    @work(thread=True, group="write", name="Not rebuilt", exit_on_error=False)
    def _reindex(self) -> MemoryChanged:
        from foundry_tui.core.ops.facts import rebuild_index

        text = rebuild_index(self.actor).rebuild_text()
        return deliver(self, MemoryChanged(text.splitlines()[-1]))

    # ---- editing in $VISUAL / $EDITOR (tui/common/editor.py) --------------------------------

    @dataclass
    class DraftReady(Message):
        """The selected fact's file (or a kept draft) is in a draft file: time to run the editor."""

        target: str  # the selection: a fact id, or `broken:<file name>`
        draft: Path
        original: str  # the text the editor was given: the same text back writes nothing
        command: list[str]

    @dataclass
    class DraftRead(Message):
        """What the editor saved, checked as the write form checks it (None: left unchanged)."""

        target: str
        draft: Path
        request: WriteRequest | None

    def action_edit_fact(self) -> None:
        from foundry_tui.core.errors import FoundryError
        from foundry_tui.tui.common.editor import NO_EDITOR, editor_command

        target = self.selected
        layout = self.project.layout
        if self.overview is not None and target is not None and target.startswith("broken:"):
            path = layout.facts_dir / target.removeprefix("broken:")
        else:
            fact_id = self._selected_fact()
            if fact_id is None:
                return
            target, path = fact_id, layout.fact_path(fact_id)
        try:
            command = editor_command()
        except FoundryError as exc:
            self.notify(str(exc), severity="warning")
            return
        if command is None:
            self.notify(NO_EDITOR, severity="warning")
            return
        self._prepare_draft(target, path, command, self.drafts.get(target))

    @work(thread=True, exclusive=True, group="edit", name="Not opened in the editor", exit_on_error=False)
    def _prepare_draft(self, target: str, path: Path, command: list[str], kept: Path | None) -> DraftReady:
        from foundry_tui.core.errors import FoundryError
        from foundry_tui.core.memory.model.facts import MAX_FACT_FILE_BYTES
        from foundry_tui.tui.common.editor import read_draft, write_draft

        if kept is not None and kept.is_file():  # the last edit's text, not yet written
            return deliver(self, self.DraftReady(target, kept, "", command))
        with path.open("rb") as handle:
            data = handle.read(MAX_FACT_FILE_BYTES + 1)
        if len(data) > MAX_FACT_FILE_BYTES:
            raise FoundryError(
                f"{self.project.layout.relative(path)} is over {MAX_FACT_FILE_BYTES // 1024} KiB, "
                "a fact file's limit: shorten it outside Foundry"
            )
        text = data.decode("utf-8", errors="replace")
        draft = write_draft(text, path.name)
        read_draft(draft)  # the draft reads back as it will after the edit
        return deliver(self, self.DraftReady(target, draft, text, command))

    def on_memory_screen_draft_ready(self, event: DraftReady) -> None:
        from foundry_tui.tui.common.editor import run_editor

        self.drafts[event.target] = event.draft  # kept until it is written
        problem = run_editor(self.app, event.command, event.draft)
        if problem is not None:
            self.notify(problem, severity="warning")
            return
        self._read_draft(event.target, event.draft, event.original)

    @work(thread=True, exclusive=True, group="edit", name="Not saved", exit_on_error=False)
    def _read_draft(self, target: str, draft: Path, original: str) -> DraftRead:
        from foundry_tui.core.errors import FoundryError
        from foundry_tui.core.memory.model.facts import FactFileError, parse_fact_text
        from foundry_tui.core.memory.model.request import WriteRequest, validate_request
        from foundry_tui.tui.common.editor import read_draft, remove_draft

        text = read_draft(draft)
        if text == original:
            remove_draft(draft)
            return deliver(self, self.DraftRead(target, draft, None))
        kept = f"; your text is kept: e opens it again ({draft})"
        try:
            fact = parse_fact_text(text)
        except FactFileError as exc:
            raise FoundryError(f"{exc}{kept}") from None
        req = WriteRequest(
            title=fact.title,
            body=fact.body,
            type=fact.type,
            scope=fact.scope,
            tags=list(fact.tags),
            confidence=fact.confidence,
            source=fact.source,
            expires=fact.expires or "",
        )
        try:
            validate_request(req)  # the write form's checks
        except FoundryError as exc:
            raise FoundryError(f"{exc}{kept}") from None
        return deliver(self, self.DraftRead(target, draft, req))

    def on_memory_screen_draft_read(self, event: DraftRead) -> None:
        from foundry_tui.core.memory.model.facts import normalise

        req, target = event.request, event.target
        if req is None:
            self.drafts.pop(target, None)
            self.notify(f"{target.removeprefix('broken:')}: unchanged in the editor, nothing written.", timeout=4)
            return
        folder = self.facts_folder()
        if target.startswith("broken:"):
            name = target.removeprefix("broken:")
            changes = [
                f"memory_write: a new fact file in {folder} (a same-titled active fact is superseded)",
                f"the broken file {name} stays on disk as it is: delete it once the new fact is written",
            ]
        else:
            old = self.overview.facts.get(target) if self.overview is not None else None
            if old is not None and normalise(old.title) == normalise(req.title):
                changes = [
                    f"memory_write: a new version of {target} in {folder}, with supersedes: {target}",
                    f"{self.fact_file(target)} stays on disk, inactive",
                ]
            else:
                changes = [
                    f"memory_write: a new fact file in {folder}; the title changed, so {target} is not "
                    "superseded and stays active (x retires it)",
                ]
        changes.append("INDEX.md is rebuilt")
        self.confirm_write(req, changes, (target, event.draft))
