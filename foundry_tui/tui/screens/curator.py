"""CuratorScreen: near-duplicate groups to merge (with a preview, and undo of the last
merge), searches that found nothing and the facts that nearly matched them (add the
missed word as a tag), prune candidates to retire in bulk, and what the index omits."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Footer, SelectionList, Static, TabbedContent, TabPane

from foundry_tui.core.curation.budget import over_budget, render_over_budget
from foundry_tui.core.curation.merge import MergePlan, Undo, merge_plan
from foundry_tui.core.curation.missed import MissedSearch, missed_searches
from foundry_tui.core.curation.neardup import DupeReport, find_dupes
from foundry_tui.core.errors import FoundryError
from foundry_tui.core.memory.prune import prune_candidates
from foundry_tui.core.memory.search import query_terms
from foundry_tui.core.trust.changes import MergeChange, RetireChange, TagChange
from foundry_tui.core.trust.policy import guarded_write
from foundry_tui.tui.commands import CURATOR_COMMANDS
from foundry_tui.tui.messages import MemoryChanged
from foundry_tui.tui.screens.live import LiveScreen
from foundry_tui.tui.screens.merge import MergeScreen
from foundry_tui.tui.text import plain, plain_lines, shown, shown_lines
from foundry_tui.tui.theme import ThemeColours
from foundry_tui.tui.widgets.row_list import Row, RowList
from foundry_tui.tui.widgets.status_header import StatusHeader
from foundry_tui.tui.workers import deliver


class CuratorData:
    """Everything the curator screen shows, computed in a worker."""

    def __init__(
        self, dupes: DupeReport, missed: list[MissedSearch], budget_text: str, prune: list[tuple[str, str]]
    ) -> None:
        self.dupes = dupes
        self.missed = missed
        self.budget_text = budget_text
        self.prune = prune


class CuratorScreen(LiveScreen):
    """The curator's workbench. Nothing is merged, tagged or retired without a confirmation."""

    SCREEN_COMMANDS = CURATOR_COMMANDS
    BINDINGS: ClassVar[list[BindingType]] = [command.binding() for command in CURATOR_COMMANDS]

    @dataclass
    class Loaded(Message):
        data: CuratorData

    @dataclass
    class Merged(Message):
        """A merge was written, or undone: what to say, and the undo now at hand (None once undone)."""

        summary: str
        undo: tuple[Undo, str] | None

    def __init__(self) -> None:
        super().__init__()
        self.data: CuratorData | None = None
        self.group_index: int | None = None
        self.missed_index: int | None = None
        self.near_id: str | None = None
        self.last_undo: tuple[Undo, str] | None = None

    def compose(self) -> ComposeResult:
        yield StatusHeader()
        with TabbedContent(id="curator"):
            with TabPane("Near duplicates", id="dupes-tab"), Horizontal():
                yield RowList(id="groups")
                with VerticalScroll(id="group-detail"):
                    yield Static("", id="group-text")
            with TabPane("Missed searches", id="missed-tab"), Horizontal():
                yield RowList(id="missed")
                yield RowList(id="near")
            with TabPane("Retire in bulk", id="retire-tab"):
                yield SelectionList[str](id="retire-list")
            with TabPane("Over budget", id="budget-tab"):
                yield Static("", id="budget-text", markup=False)
        yield Footer()

    @work(thread=True, exclusive=True, group="curator", name="Curator data not read", exit_on_error=False)
    def load(self) -> Loaded:
        project, today = self.project, self.today
        with project.lock:  # one consistent view while other workers write
            dupes = find_dupes(project, today)
            missed = missed_searches(project, today)
            budget = render_over_budget(*over_budget(project, today))
            prune = [(e.fact_id, f"{e.fact_id} — {e.detail}") for e in prune_candidates(project.store, today)]
        return deliver(self, self.Loaded(CuratorData(dupes, missed, budget, prune)))

    def on_curator_screen_loaded(self, event: Loaded) -> None:
        self.data = data = event.data
        colours = ThemeColours.of(self.app)
        rows: list[Row] = []
        for number, members in enumerate(data.dupes.groups):
            best = max((p.score for p in data.dupes.pairs_in(members)), default=0.0)
            titles = " / ".join(shown(data.dupes.facts[m].title) for m in members)
            rows.append(
                (
                    f"group:{number}",
                    Text.assemble(
                        (f"{best:.2f} ", f"bold {colours.success}"), (", ".join(members), "bold"), f"  {titles}"
                    ),
                )
            )
        self.query_one("#groups", RowList).replace_rows(
            rows or [(None, Text("No near-duplicates above the threshold.", style="dim"))]
        )
        missed_rows: list[Row] = [
            (f"missed:{i}", Text.assemble((f"×{m.count} ", "bold"), shown(m.query))) for i, m in enumerate(data.missed)
        ]
        self.query_one("#missed", RowList).replace_rows(
            missed_rows or [(None, Text("No search came back empty.", style="dim"))]
        )
        selection = self.query_one("#retire-list", SelectionList)
        selection.clear_options()
        selection.add_options([(plain(label), fact_id) for fact_id, label in data.prune])
        self.query_one("#budget-text", Static).update(plain_lines(data.budget_text))
        self._show_group()
        self._show_near()

    @on(RowList.RowHighlighted, "#groups")
    def _group(self, event: RowList.RowHighlighted) -> None:
        self.group_index = int(event.row_id.split(":")[1])
        self._show_group()

    @on(RowList.RowHighlighted, "#missed")
    def _missed(self, event: RowList.RowHighlighted) -> None:
        self.missed_index = int(event.row_id.split(":")[1])
        self._show_near()

    @on(RowList.RowHighlighted, "#near")
    def _near(self, event: RowList.RowHighlighted) -> None:
        self.near_id = event.row_id

    def _show_group(self) -> None:
        text = self.query_one("#group-text", Static)
        if self.data is None or self.group_index is None or self.group_index >= len(self.data.dupes.groups):
            text.update("Select a group; m merges it (with a preview), u undoes the last merge.")
            return
        members = self.data.dupes.groups[self.group_index]
        out = Text()
        for fact_id in members:
            fact = self.data.dupes.facts[fact_id]
            out.append(f"{fact_id} · {fact.type} · ", style="bold")
            out.append(f"{shown(fact.title)}\n", style="bold")
            out.append(f"{shown_lines(fact.body)}\n\n", style="dim")
        for pair in self.data.dupes.pairs_in(members):
            out.append(f"{pair.a} ~ {pair.b}  {pair.score:.2f}\n  {shown(pair.why())}\n")
        text.update(out)

    def _show_near(self) -> None:
        near = self.query_one("#near", RowList)
        if self.data is None or self.missed_index is None or self.missed_index >= len(self.data.missed):
            near.replace_rows([(None, Text("Select a search to see the facts that nearly matched it.", style="dim"))])
            return
        missed = self.data.missed[self.missed_index]
        success = ThemeColours.of(self.app).success
        rows: list[Row] = [
            (f.id, Text.assemble((f"{score:.2f} ", success), (f.id, "bold"), f" {shown(f.title)}"))
            for f, score in missed.near
        ]
        near.replace_rows(rows or [(None, Text("No active fact shares a word with this search.", style="dim"))])
        self.near_id = rows[0][0] if rows else None

    # ---- actions ---------------------------------------------------------------------------

    def action_merge(self) -> None:
        if self.data is None or self.group_index is None or self.group_index >= len(self.data.dupes.groups):
            self.notify("Select a near-duplicate group first.", severity="warning")
            return
        members = self.data.dupes.groups[self.group_index]
        try:
            plan = merge_plan(self.project, members)
        except FoundryError as exc:
            self.notify(str(exc), severity="error")
            return

        def edited(result: MergePlan | None) -> None:
            if result is not None:
                self._merge(result)

        self.app.push_screen(MergeScreen(plan), edited)

    @work(thread=True, group="write", name="Not merged", exit_on_error=False)
    def _merge(self, plan: MergePlan) -> Merged | MemoryChanged:
        gate = guarded_write(self.project, self.foundry.caller, MergeChange.from_plan(plan), self.today)
        if not gate.written:  # parked for a trusted curator: nothing written, nothing to undo
            return deliver(self, MemoryChanged(gate.text))
        result = gate.result
        return deliver(
            self, self.Merged(f"{result.text().splitlines()[0]} — u undoes it", (result.undo, result.fact_id))
        )

    def action_undo(self) -> None:
        if self.last_undo is None:
            self.notify("No merge to undo in this session.", severity="warning")
            return
        self._undo(*self.last_undo)

    @work(thread=True, group="write", name="Not undone", exit_on_error=False)
    def _undo(self, undo: Undo, fact_id: str) -> Merged:
        undo.restore(self.project)
        return deliver(self, self.Merged(f"Undid the merge into {fact_id}: every touched file is as it was", None))

    def action_add_tag(self) -> None:
        if self.data is None or self.missed_index is None or self.near_id is None:
            self.notify("Select a missed search and the fact that should have been found.", severity="warning")
            return
        missed = self.data.missed[self.missed_index]
        fact = self.data.dupes.facts.get(self.near_id)
        existing = set(fact.tags) if fact else set()
        word = next((w for w in query_terms(missed.query) if w not in existing), "")
        fact_id = self.near_id

        def tag(chosen: str) -> None:
            if chosen:  # an emptied field adds nothing
                self._tag(fact_id, chosen)

        self.confirm(
            f"Add a tag to {fact_id}?",
            [f"{self.fact_file(fact_id)}: the word joins its tags (nothing else changes)", "INDEX.md is rebuilt"],
            tag,
            field=(f'Tag (a word of "{missed.query}")', word),
        )

    @work(thread=True, group="write", name="Not tagged", exit_on_error=False)
    def _tag(self, fact_id: str, tag: str) -> MemoryChanged:
        gate = guarded_write(self.project, self.foundry.caller, TagChange(fact_id, tag), self.today)
        return deliver(self, MemoryChanged(f"{fact_id} tagged {tag.strip()}" if gate.written else gate.text))

    def action_retire(self) -> None:
        chosen = list(self.query_one("#retire-list", SelectionList).selected)
        if not chosen:
            self.notify("Select the facts to retire (space toggles one).", severity="warning")
            return
        self.confirm(
            f"Retire {len(chosen)} facts?",
            [*(f"{self.fact_file(i)}: expires is set" for i in chosen), "INDEX.md is rebuilt; no file is deleted"],
            lambda expires: self._retire(chosen, expires),
            field=("Expires on (YYYY-MM-DD)", self.yesterday),
        )

    @work(thread=True, group="write", name="Not retired", exit_on_error=False)
    def _retire(self, ids: list[str], expires: str) -> MemoryChanged:
        gate = guarded_write(self.project, self.foundry.caller, RetireChange(ids, expires), self.today)
        return deliver(
            self, MemoryChanged(f"Retired {', '.join(ids)} (expires {expires})" if gate.written else gate.text)
        )

    def on_curator_screen_merged(self, event: Merged) -> None:
        self.last_undo = event.undo
        self.post_message(MemoryChanged(event.summary))

    def on_memory_changed(self, event: MemoryChanged) -> None:
        """This screen wrote to memory: say what changed and read it again."""
        self.notify(event.summary, timeout=6)
        self.load()

    # ---- the Health screen's link: a missed query opened here -------------------------------

    wanted_missed: str | None = None

    def show_missed(self, query: str) -> None:
        """Open the missed-search tab on `query` (now, or once the data has loaded)."""
        self.query_one(TabbedContent).active = "missed-tab"
        self.wanted_missed = query
        self._highlight_wanted_missed()

    @on(Loaded)
    def _missed_after_load(self) -> None:
        self.call_after_refresh(self._highlight_wanted_missed)

    def _highlight_wanted_missed(self) -> None:
        if self.data is None or self.wanted_missed is None:
            return
        from foundry_tui.core.curation.missed import missed_key  # the link keeps its code in one block

        key = missed_key(self.wanted_missed)
        position = next((i for i, m in enumerate(self.data.missed) if missed_key(m.query) == key), None)
        if position is not None:
            rows = self.query_one("#missed", RowList)
            rows.focus()
            rows.highlighted = rows.index_of(f"missed:{position}")
        self.wanted_missed = None
