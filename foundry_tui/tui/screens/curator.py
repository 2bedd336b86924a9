"""CuratorScreen: near-duplicate groups to merge (with a preview, and undo of the last
merge), searches that found nothing and the facts that nearly matched them (add the
missed word as a tag), prune candidates to retire in bulk, and what the index omits."""

from __future__ import annotations

import datetime as _dt
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Footer, SelectionList, Static, TabbedContent, TabPane
from textual.worker import get_current_worker

from foundry_tui.core.curation.budget import over_budget, render_over_budget
from foundry_tui.core.curation.merge import MergePlan, Undo, merge_plan
from foundry_tui.core.curation.missed import MissedSearch, missed_searches
from foundry_tui.core.curation.neardup import DupeReport, find_dupes
from foundry_tui.core.errors import FoundryError
from foundry_tui.core.memory.prune import prune_candidates
from foundry_tui.core.memory.search import query_terms
from foundry_tui.core.trust.changes import MergeChange, RetireChange, TagChange
from foundry_tui.core.trust.policy import guarded_write
from foundry_tui.tui.messages import MemoryChanged
from foundry_tui.tui.screens.confirm import ConfirmScreen
from foundry_tui.tui.screens.live import LiveScreen
from foundry_tui.tui.screens.merge import MergeScreen
from foundry_tui.tui.widgets.fact_list import FactList, Row


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

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("m", "merge", "Merge group"),
        Binding("u", "undo", "Undo merge"),
        Binding("t", "add_tag", "Add tag"),
        Binding("x", "retire", "Retire selected"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.data: CuratorData | None = None
        self.group_index: int | None = None
        self.missed_index: int | None = None
        self.near_id: str | None = None
        self.last_undo: tuple[Undo, str] | None = None

    def compose(self) -> ComposeResult:
        with TabbedContent(id="curator"):
            with TabPane("Near duplicates", id="dupes-tab"), Horizontal():
                yield FactList(id="groups")
                with VerticalScroll(id="group-detail"):
                    yield Static("", id="group-text")
            with TabPane("Missed searches", id="missed-tab"), Horizontal():
                yield FactList(id="missed")
                yield FactList(id="near")
            with TabPane("Retire in bulk", id="retire-tab"):
                yield SelectionList[str](id="retire-list")
            with TabPane("Over budget", id="budget-tab"):
                yield Static("", id="budget-text", markup=False)
        yield Footer()

    @work(thread=True, exclusive=True, group="curator")
    def load(self) -> None:
        project, today = self.foundry.project, self.foundry.today
        try:
            with project.lock:  # one consistent view while other workers write
                dupes = find_dupes(project, today)
                missed = missed_searches(project, today)
                budget = render_over_budget(*over_budget(project, today))
                prune = [(e.fact_id, f"{e.fact_id} — {e.detail}") for e in prune_candidates(project.store, today)]
        except FoundryError as exc:
            self.app.call_from_thread(self.notify, str(exc), severity="error")
            return
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show, CuratorData(dupes, missed, budget, prune))

    def _show(self, data: CuratorData) -> None:
        self.data = data
        rows: list[Row] = []
        for number, members in enumerate(data.dupes.groups):
            best = max((p.score for p in data.dupes.pairs_in(members)), default=0.0)
            titles = " / ".join(data.dupes.facts[m].title for m in members)
            rows.append(
                (
                    f"group:{number}",
                    Text.assemble((f"{best:.2f} ", "bold green"), (", ".join(members), "bold"), f"  {titles}"),
                )
            )
        self.query_one("#groups", FactList).replace_rows(
            rows or [(None, Text("No near-duplicates above the threshold.", style="dim"))]
        )
        missed_rows: list[Row] = [
            (f"missed:{i}", Text.assemble((f"×{m.count} ", "bold"), m.query)) for i, m in enumerate(data.missed)
        ]
        self.query_one("#missed", FactList).replace_rows(
            missed_rows or [(None, Text("No search came back empty.", style="dim"))]
        )
        selection = self.query_one("#retire-list", SelectionList)
        selection.clear_options()
        selection.add_options([(label, fact_id) for fact_id, label in data.prune])
        self.query_one("#budget-text", Static).update(data.budget_text)
        self._show_group()
        self._show_near()

    @on(FactList.FactHighlighted, "#groups")
    def _group(self, event: FactList.FactHighlighted) -> None:
        self.group_index = int(event.fact_id.split(":")[1])
        self._show_group()

    @on(FactList.FactHighlighted, "#missed")
    def _missed(self, event: FactList.FactHighlighted) -> None:
        self.missed_index = int(event.fact_id.split(":")[1])
        self._show_near()

    @on(FactList.FactHighlighted, "#near")
    def _near(self, event: FactList.FactHighlighted) -> None:
        self.near_id = event.fact_id

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
            out.append(f"{fact.title}\n", style="bold")
            out.append(f"{fact.body}\n\n", style="dim")
        for pair in self.data.dupes.pairs_in(members):
            out.append(f"{pair.a} ~ {pair.b}  {pair.score:.2f}\n  {pair.why()}\n")
        text.update(out)

    def _show_near(self) -> None:
        near = self.query_one("#near", FactList)
        if self.data is None or self.missed_index is None or self.missed_index >= len(self.data.missed):
            near.replace_rows([(None, Text("Select a search to see the facts that nearly matched it.", style="dim"))])
            return
        missed = self.data.missed[self.missed_index]
        rows: list[Row] = [
            (f.id, Text.assemble((f"{score:.2f} ", "green"), (f.id, "bold"), f" {f.title}")) for f, score in missed.near
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
            plan = merge_plan(self.foundry.project, members)
        except FoundryError as exc:
            self.notify(str(exc), severity="error")
            return

        def edited(result: MergePlan | None) -> None:
            if result is not None:
                self._merge(result)

        self.app.push_screen(MergeScreen(self.foundry.project, plan, self.foundry.today), edited)

    @work(thread=True, group="write")
    def _merge(self, plan: MergePlan) -> None:
        try:
            gate = guarded_write(
                self.foundry.project, self.foundry.caller, MergeChange.from_plan(plan), self.foundry.today
            )
        except FoundryError as exc:
            self.app.call_from_thread(self.notify, f"Not merged: {exc}", severity="error")
            return
        if not gate.written:  # parked for a trusted curator: nothing to undo
            self.app.call_from_thread(self._changed, gate.text)
            return
        result = gate.result
        self.last_undo = (result.undo, result.fact_id)
        self.app.call_from_thread(self._changed, f"{result.text().splitlines()[0]} — u undoes it")

    def action_undo(self) -> None:
        if self.last_undo is None:
            self.notify("No merge to undo in this session.", severity="warning")
            return
        self._undo()

    @work(thread=True, group="write")
    def _undo(self) -> None:
        assert self.last_undo is not None
        undo, fact_id = self.last_undo
        undo.restore(self.foundry.project)
        self.last_undo = None
        self.app.call_from_thread(self._changed, f"Undid the merge into {fact_id}: every touched file is as it was")

    def action_add_tag(self) -> None:
        if self.data is None or self.missed_index is None or self.near_id is None:
            self.notify("Select a missed search and the fact that should have been found.", severity="warning")
            return
        missed = self.data.missed[self.missed_index]
        fact = self.data.dupes.facts.get(self.near_id)
        existing = set(fact.tags) if fact else set()
        word = next((w for w in query_terms(missed.query) if w not in existing), "")
        fact_id = self.near_id

        def confirmed(tag: str | None) -> None:
            if tag:
                self._tag(fact_id, tag)

        self.app.push_screen(
            ConfirmScreen(
                f"Add a tag to {fact_id}?",
                [
                    f".foundry/memory/facts/{fact_id}.md: the word joins its tags (nothing else changes)",
                    "INDEX.md is rebuilt",
                ],
                field=(f'Tag (a word of "{missed.query}")', word),
            ),
            confirmed,
        )

    @work(thread=True, group="write")
    def _tag(self, fact_id: str, tag: str) -> None:
        try:
            gate = guarded_write(self.foundry.project, self.foundry.caller, TagChange(fact_id, tag), self.foundry.today)
        except FoundryError as exc:
            self.app.call_from_thread(self.notify, f"Not tagged: {exc}", severity="error")
            return
        self.app.call_from_thread(self._changed, f"{fact_id} tagged {tag.strip()}" if gate.written else gate.text)

    def action_retire(self) -> None:
        chosen = list(self.query_one("#retire-list", SelectionList).selected)
        if not chosen:
            self.notify("Select the facts to retire (space toggles one).", severity="warning")
            return
        yesterday = (self.foundry.today - _dt.timedelta(days=1)).isoformat()

        def confirmed(expires: str | None) -> None:
            if expires is not None:
                self._retire(chosen, expires)

        self.app.push_screen(
            ConfirmScreen(
                f"Retire {len(chosen)} facts?",
                [
                    *(f".foundry/memory/facts/{i}.md: expires is set" for i in chosen),
                    "INDEX.md is rebuilt; no file is deleted",
                ],
                field=("Expires on (YYYY-MM-DD)", yesterday),
            ),
            confirmed,
        )

    @work(thread=True, group="write")
    def _retire(self, ids: list[str], expires: str) -> None:
        try:
            gate = guarded_write(
                self.foundry.project, self.foundry.caller, RetireChange(ids, expires), self.foundry.today
            )
        except FoundryError as exc:
            self.app.call_from_thread(self.notify, f"Not retired: {exc}", severity="error")
            return
        self.app.call_from_thread(
            self._changed, f"Retired {', '.join(ids)} (expires {expires})" if gate.written else gate.text
        )

    def _changed(self, summary: str) -> None:
        self.notify(summary, timeout=6)
        self.post_message(MemoryChanged(summary))
        self.load()
