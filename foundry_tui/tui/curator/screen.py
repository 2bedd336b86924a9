"""CuratorScreen: near-duplicate groups to merge (with a preview, and undo of the last
merge), contradictions to resolve (the one that stands, the other superseded or retired),
searches that found nothing and the facts that nearly matched them (add the missed word
as a tag), prune candidates to retire in bulk, what the index omits, and the facts whose
cited code changed since written (stale.py: confirm, retire, supersede, the diff); under
the memory screen's status header."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar, TypeVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Footer, SelectionList, Static, TabbedContent, TabPane
from textual.widgets.selection_list import Selection

from foundry_tui.core.artefacts.adr import adr_titles
from foundry_tui.core.checkup import ALL_CHECKS
from foundry_tui.core.code_refs import FactCheck
from foundry_tui.core.curation.budget import over_budget, render_over_budget
from foundry_tui.core.curation.conflicts import Conflict, ConflictReport, find_conflicts_in, project_meaning
from foundry_tui.core.curation.merge import MergePlan, Undo, merge_plan
from foundry_tui.core.curation.missed import MissedSearch, missed_searches
from foundry_tui.core.curation.neardup import DupeReport, find_dupes
from foundry_tui.core.errors import FoundryError
from foundry_tui.core.memory.model.facts import Fact
from foundry_tui.core.memory.reports.doctor import DoctorReport, run_doctor
from foundry_tui.core.memory.reports.views import Overview
from foundry_tui.core.memory.search.spec import query_terms
from foundry_tui.core.ops.curator import undo_merge
from foundry_tui.core.ops.facts import keep_one, merge_facts, restating, retire_facts, tag_fact
from foundry_tui.tui.commands import (
    CURATOR_COMMANDS,
    NARROW_KEY,
    STALE_COMMANDS,
    AddTag,
    Command,
    MergeGroup,
    ResolveConflict,
    RetireSelected,
    UndoMerge,
)
from foundry_tui.tui.common.live import LiveScreen
from foundry_tui.tui.common.messages import MemoryChanged
from foundry_tui.tui.common.row_list import Row, RowList
from foundry_tui.tui.common.status_header import StatusHeader
from foundry_tui.tui.common.text import counted, marked, plain_lines, shown
from foundry_tui.tui.common.theme import ThemeColours
from foundry_tui.tui.common.workers import deliver
from foundry_tui.tui.curator.merge import MergeScreen
from foundry_tui.tui.curator.stale import NOTHING_SELECTED, stale_checks, stale_detail, stale_rows

TYPE_CHECKING = False
if TYPE_CHECKING:
    from foundry_tui.core.memory.model.request import WriteRequest
    from foundry_tui.tui.memory.code_diff import CodeDiffReady

_W = TypeVar("_W", bound=Widget)
TICKED, UNTICKED = "[x]", "[ ]"  # the bulk list's rows: a glyph, not only the toggle's colour
STALE_ACTIONS = frozenset(command.parsed_action()[0] for command in STALE_COMMANDS)
# The tab each of these keys acts on. Where the footer has no room for every key (80x24) it
# shows the keys of the tab in view; the others leave it for F1 (their narrow twins, on in
# the other tabs only) and still answer, with a warning where their tab has nothing selected.
TAB_OF: dict[type[Command], str] = {
    MergeGroup: "dupes-tab",
    UndoMerge: "dupes-tab",
    ResolveConflict: "conflicts-tab",
    AddTag: "missed-tab",
    RetireSelected: "retire-tab",
}
TAB_OF_ACTION = {command.ACTION: tab for command, tab in TAB_OF.items()}


def _curator_bindings() -> list[BindingType]:
    """The curator's keys, those of one tab each preceded by their narrow twin."""
    out: list[BindingType] = []
    for command in CURATOR_COMMANDS:
        if command in TAB_OF:
            out.append(command.narrow_twin())
        out.append(command.binding())
    return out


class CuratorData:
    """Everything the curator screen shows, computed in a worker."""

    def __init__(
        self,
        dupes: DupeReport,
        missed: list[MissedSearch],
        budget_text: str,
        prune: list[tuple[str, str]],
        conflicts: ConflictReport,
        overview: Overview,
        doctor: DoctorReport,
        stale: list[FactCheck],
    ) -> None:
        self.stale = stale  # the facts whose cited code changed, moved or is gone
        self.dupes = dupes
        self.missed = missed
        self.budget_text = budget_text
        self.prune = prune
        self.conflicts = conflicts
        self.overview = overview  # for the status header, as on the memory screen
        self.doctor = doctor


class CuratorScreen(LiveScreen):
    """The curator's workbench. Nothing is merged, tagged or retired without a confirmation."""

    SCREEN_COMMANDS = CURATOR_COMMANDS
    READS_CODE = True  # the stale view's rows are the refs' states
    BINDINGS: ClassVar[list[BindingType]] = _curator_bindings()

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
        self.conflict_index: int | None = None
        self.last_undo: tuple[Undo, str] | None = None
        self.prune_labels: dict[str, str] = {}  # the bulk list's rows, by fact id
        self.stale_id: str | None = None  # the stale view's selected fact

    def compose(self) -> ComposeResult:
        yield StatusHeader(self.foundry.root_label)
        with TabbedContent(id="curator"):
            with TabPane("Near duplicates", id="dupes-tab"), Horizontal():
                yield self._titled(RowList(id="groups"), "Groups", "best score · ids · titles")
                with self._titled(VerticalScroll(id="group-detail"), "Group", "m merges, u undoes"):
                    yield Static("", id="group-text")
            with TabPane("Contradictions", id="conflicts-tab"), Horizontal():
                yield self._titled(RowList(id="conflicts"), "Contradictions", "one subject, claims that disagree")
                with self._titled(VerticalScroll(id="conflict-detail"), "The pair", "k keeps one"):
                    yield Static("", id="conflict-text")
            with TabPane("Missed searches", id="missed-tab"), Horizontal():
                yield self._titled(RowList(id="missed"), "Empty searches", "most frequent first")
                yield self._titled(RowList(id="near"), "Nearly matched", "t adds a tag")
            with TabPane("Retire in bulk", id="retire-tab"):
                yield self._titled(SelectionList[str](id="retire-list"), "Prune candidates", "space ticks, x retires")
            with TabPane("Over budget", id="budget-tab"):
                yield self._titled(Static("", id="budget-text", markup=False), "What INDEX.md omits", "")
            with TabPane("Stale code", id="stale-tab"), Horizontal():
                yield self._titled(RowList(id="stale"), "Stale facts", "id · state and ref · title")
                with self._titled(VerticalScroll(id="stale-detail"), "The fact", "c confirm, r retire, s supersede"):
                    yield Static("", id="stale-text")
        yield Footer()

    @staticmethod
    def _titled(widget: _W, title: str, subtitle: str) -> _W:
        """A pane with its border's title and subtitle, as on the memory screen."""
        widget.border_title = title
        widget.border_subtitle = subtitle
        return widget

    @work(thread=True, exclusive=True, group="curator", name="Curator data not read", exit_on_error=False)
    def load(self) -> Loaded:
        project, today = self.project, self.today
        with project.lock:  # one consistent view while other workers write
            dupes = find_dupes(project, today)
            active_facts = project.active_facts(today)
            # Pairs near in meaning too, where the facts have vectors (issue 29): the similarity is shown.
            conflicts = ConflictReport(find_conflicts_in(active_facts, project_meaning(project, active_facts)))
            missed = missed_searches(project, today)
            budget = render_over_budget(*over_budget(project, today))
            # Bulk retire offers active facts only: an expired or superseded one is retired already.
            active = project.store.active_by_id(today)
            overview = Overview(project, today, adr_titles(project.layout), with_doctor=False)
            # The overview's candidates: with the facts whose cited code is gone or changed (issue 30).
            prune = [(e.fact_id, f"{e.fact_id} — {e.detail}") for e in overview.prune if e.fact_id in active]
            doctor = run_doctor(project, today, ALL_CHECKS)
        stale = stale_checks(overview)  # the overview's verification, read above (git, in this worker)
        return deliver(self, self.Loaded(CuratorData(dupes, missed, budget, prune, conflicts, overview, doctor, stale)))

    def on_curator_screen_loaded(self, event: Loaded) -> None:
        self.data = data = event.data
        header = self.query_one(StatusHeader)
        header.show(data.overview)
        header.show_doctor(data.doctor)
        colours = ThemeColours.of(self.app)
        rows: list[Row] = []
        for number, members in enumerate(data.dupes.groups):
            best = max((p.rank() for p in data.dupes.pairs_in(members)), default=0.0)
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
        self._show_prune(data.prune)
        self.query_one("#budget-text", Static).update(plain_lines(data.budget_text))
        conflict_rows: list[Row] = [
            (
                f"conflict:{i}",
                Text.assemble((f"{c.a.id} vs {c.b.id} ", "bold"), (shown(c.about()), colours.warning)),
            )
            for i, c in enumerate(data.conflicts.conflicts)
        ]
        self.query_one("#conflicts", RowList).replace_rows(
            conflict_rows or [(None, Text("No two active facts about one subject disagree.", style="dim"))]
        )
        # The panes show the row under each list's cursor (a refresh puts it on the first row
        # without the user: one group or one contradiction is shown without Enter).
        self.group_index = self._cursor_index("#groups")
        self.conflict_index = self._cursor_index("#conflicts")
        self.missed_index = self._cursor_index("#missed")
        stale = self.query_one("#stale", RowList)
        stale.replace_rows(stale_rows(data.overview, data.stale, colours))
        self.stale_id = stale.highlighted_id
        self._show_stale()
        self._show_group()
        self._show_conflict()
        self._show_near()

    def _cursor_index(self, list_id: str) -> int | None:
        row_id = self.query_one(list_id, RowList).highlighted_id
        return int(row_id.split(":")[1]) if row_id else None

    def _show_prune(self, prune: list[tuple[str, str]]) -> None:
        """The bulk list, its cursor on the row it was on (else the first), so that the first
        Space ticks the row shown under the cursor."""
        selection = self.query_one("#retire-list", SelectionList)
        was = selection.highlighted
        ticked = set(selection.selected)
        self.prune_labels = dict(prune)
        selection.clear_options()
        selection.add_options(
            [Selection(self._prune_prompt(fid, fid in ticked), fid, fid in ticked, id=fid) for fid, _label in prune]
        )
        if prune:
            selection.highlighted = min(was or 0, len(prune) - 1)

    def _prune_prompt(self, fact_id: str, ticked: bool) -> Text:
        """A bulk row: `[x]` or `[ ]` before it, so that ticked rows differ without colour
        (NO_COLOR); the core's `**Why:**` shown bold, as in the memory screen's prune rows."""
        return marked(f"{TICKED if ticked else UNTICKED} {self.prune_labels.get(fact_id, fact_id)}")

    @on(SelectionList.SelectedChanged, "#retire-list")
    def _ticks_changed(self, event: SelectionList.SelectedChanged[str]) -> None:
        selection = event.selection_list
        ticked = set(selection.selected)
        for fact_id in self.prune_labels:
            selection.replace_option_prompt(fact_id, self._prune_prompt(fact_id, fact_id in ticked))

    @on(RowList.RowHighlighted, "#conflicts")
    def _conflict(self, event: RowList.RowHighlighted) -> None:
        self.conflict_index = int(event.row_id.split(":")[1])
        self._show_conflict()

    def _selected_conflict(self) -> Conflict | None:
        if self.data is None or self.conflict_index is None:
            return None
        found = self.data.conflicts.conflicts
        return found[self.conflict_index] if self.conflict_index < len(found) else None

    def _show_conflict(self) -> None:
        text = self.query_one("#conflict-text", Static)
        conflict = self._selected_conflict()
        if conflict is None:
            text.update("Select a contradiction; k keeps one (the other is superseded or retired, after you confirm).")
            return
        colours = ThemeColours.of(self.app)
        out = Text()
        for fact in (conflict.a, conflict.b):
            out.append(f"{fact.id} · {fact.type} · created {fact.created or '?'}\n", style="bold")
            out.append_text(self._highlighted(fact, conflict, colours.error))
            out.append("\n")
            out.append_text(marked(fact.body, "dim", lines=True))  # **Why:** bold, not markdown
            out.append("\n\n")
        out.append("They disagree: ", style="bold")
        out.append(shown(conflict.about()))
        text.update(out)

    @staticmethod
    def _highlighted(fact: Fact, conflict: Conflict, colour: str) -> Text:
        """The title with the words that carry the disagreement highlighted."""
        title = Text(shown(fact.title), style="bold")
        for word in conflict.highlights(fact):
            title.highlight_regex(rf"(?<![\w.-]){re.escape(shown(word))}(?![\w-])", f"bold reverse {colour}")
        return title

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
            out.append_text(marked(fact.body, "dim", lines=True))
            out.append("\n\n")
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

    # ---- the stale view (issue 30) -----------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The stale view's keys answer, and show in the footer, on its tab only. A key of
        another tab (TAB_OF) is behind F1 in a narrow footer: its twin is off on its own tab."""
        if action in STALE_ACTIONS and self._active_tab() != "stale-tab":
            return False
        if action == NARROW_KEY and parameters and TAB_OF_ACTION.get(str(parameters[0])) == self._active_tab():
            return False
        return super().check_action(action, parameters)

    def _active_tab(self) -> str | None:
        tabs = self.query(TabbedContent)
        return tabs.first().active if tabs else None

    @on(TabbedContent.TabActivated)
    def _tab_changed(self) -> None:
        self.refresh_bindings()

    @on(RowList.RowHighlighted, "#stale")
    def _stale(self, event: RowList.RowHighlighted) -> None:
        self.stale_id = event.row_id
        self._show_stale()

    def _selected_stale(self) -> tuple[Fact, FactCheck] | None:
        if self.data is None or self.stale_id is None:
            return None
        check = next((c for c in self.data.stale if c.fact_id == self.stale_id), None)
        fact = self.data.overview.facts.get(self.stale_id)
        return (fact, check) if fact is not None and check is not None else None

    def _show_stale(self) -> None:
        text = self.query_one("#stale-text", Static)
        chosen = self._selected_stale()
        if chosen is None:
            text.update(NOTHING_SELECTED)
            return
        text.update(stale_detail(*chosen, ThemeColours.of(self.app)))

    def _stale_or_warn(self) -> tuple[Fact, FactCheck] | None:
        chosen = self._selected_stale()
        if chosen is None:
            self.notify("Select a stale fact first (the Stale code tab).", severity="warning")
        return chosen

    def action_confirm_stale(self) -> None:
        chosen = self._stale_or_warn()
        if chosen is None:
            return
        fact, check = chosen
        req = restating(fact, check=check)
        self.confirm(
            f"Write “{req.title}”?",
            [
                f"memory_write: a new version of {fact.id} in {self.facts_folder()}, with supersedes: {fact.id}",
                f"its refs re-recorded against today's code: {', '.join(req.refs or ()) or 'none left'}",
                f"{fact.id}.md stays on disk, inactive",
                "INDEX.md is rebuilt",
            ],
            lambda _answer: self._write(req),
        )

    def action_retire_stale(self) -> None:
        chosen = self._stale_or_warn()
        if chosen is None:
            return
        fact_id = chosen[0].id
        self.confirm(
            f"Retire {fact_id}?",
            [f"{self.fact_file(fact_id)}: expires is set", "INDEX.md is rebuilt; no file is deleted"],
            lambda expires: self._retire([fact_id], expires),
            field=("Expires on (YYYY-MM-DD)", self.yesterday),
        )

    def action_supersede_stale(self) -> None:
        chosen = self._stale_or_warn()
        if chosen is None:
            return
        from foundry_tui.tui.memory.write_fact import WriteFactScreen  # dialogs load on first use

        fact = chosen[0]
        changes = [
            f"memory_write: a new version of {fact.id} in {self.facts_folder()} (kept the title: it "
            f"supersedes {fact.id}; its refs are recorded against today's code)",
            f"{fact.id}.md stays on disk, inactive",
            "INDEX.md is rebuilt",
        ]
        form = WriteFactScreen(restating(fact), f"Supersede {fact.id}", focus_body=True, changes=changes)
        self.app.push_screen(form, self._written)

    def _written(self, req: WriteRequest | None) -> None:
        """The form's result, confirmed in the form already: write it (None: cancelled)."""
        if req is not None:
            self._write(req)

    @work(thread=True, group="write", name="Not written", exit_on_error=False)
    def _write(self, req: WriteRequest) -> MemoryChanged:
        from foundry_tui.core.ops.facts import write_fact

        gate = write_fact(self.actor, req)
        return deliver(self, MemoryChanged(gate.text))  # memory_write's words: created, superseded, or parked

    def action_show_code_diff(self) -> None:
        chosen = self._stale_or_warn()
        if chosen is not None:
            self._code_diff(chosen[0])

    @work(thread=True, exclusive=True, group="open", name="No diff", exit_on_error=False)
    def _code_diff(self, fact: Fact) -> CodeDiffReady:
        from foundry_tui.core.memory.reports.grounding import diff_since_written
        from foundry_tui.tui.memory.code_diff import CodeDiffReady

        return deliver(self, CodeDiffReady(fact.id, diff_since_written(self.project, fact)))

    def on_code_diff_ready(self, event: CodeDiffReady) -> None:
        from foundry_tui.tui.memory.code_diff import CodeDiffScreen

        self.app.push_screen(CodeDiffScreen(event.title, event.text))

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
        gate = merge_facts(self.actor, plan)
        result = gate.result
        if result is None:  # parked for a trusted curator: nothing written, nothing to undo
            return deliver(self, MemoryChanged(gate.text))
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
        undo_merge(self.actor, undo)
        return deliver(self, self.Merged(f"Undid the merge into {fact_id}: every touched file is as it was", None))

    def action_show_doctor(self) -> None:
        if self.data is None:
            self.notify("The doctor is still checking; try again in a moment.")
            return
        from foundry_tui.tui.health.doctor import DoctorScreen  # dialogs load on first use

        self.app.push_screen(DoctorScreen(self.data.doctor))

    def action_resolve(self) -> None:
        conflict = self._selected_conflict()
        if conflict is None:
            self.notify("Select a contradiction first (the Contradictions tab).", severity="warning")
            return

        def chosen(answer: tuple[str, str] | None) -> None:
            if answer is not None:
                keep_id, how = answer
                keep, other = (conflict.a, conflict.b) if keep_id == conflict.a.id else (conflict.b, conflict.a)
                self._resolve(keep, other, how)

        from foundry_tui.tui.curator.resolve import ResolveScreen  # dialogs load on first use

        self.app.push_screen(ResolveScreen(conflict), chosen)

    @work(thread=True, group="write", name="Not resolved", exit_on_error=False)
    def _resolve(self, keep: Fact, other: Fact, how: str) -> MemoryChanged:
        gate = keep_one(self.actor, keep, other, how)
        if gate.applied is None:  # parked for a trusted curator
            return deliver(self, MemoryChanged(gate.text))
        done = f"superseded by {gate.applied.fact_id}" if how == "supersede" else "retired"
        return deliver(self, MemoryChanged(f"Kept {keep.id}'s claim; {other.id} {done}"))

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
        gate = tag_fact(self.actor, fact_id, tag)
        return deliver(self, MemoryChanged(f"{fact_id} tagged {tag.strip()}" if gate.written else gate.text))

    def action_retire(self) -> None:
        chosen = list(self.query_one("#retire-list", SelectionList).selected)
        if not chosen:
            self.notify("Select the facts to retire (space toggles one).", severity="warning")
            return
        self.confirm(
            f"Retire {counted(len(chosen), 'fact')}?",
            [*(f"{self.fact_file(i)}: expires is set" for i in chosen), "INDEX.md is rebuilt; no file is deleted"],
            lambda expires: self._retire(chosen, expires),
            field=("Expires on (YYYY-MM-DD)", self.yesterday),
        )

    @work(thread=True, group="write", name="Not retired", exit_on_error=False)
    def _retire(self, ids: list[str], expires: str) -> MemoryChanged:
        gate = retire_facts(self.actor, ids, expires)
        return deliver(self, MemoryChanged(gate.text))  # the CLI's words: what was retired, what was left

    def on_curator_screen_merged(self, event: Merged) -> None:
        self.last_undo = event.undo
        self.post_message(MemoryChanged(event.summary))

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
        from foundry_tui.core.events import missed_key  # the link keeps its code in one block

        key = missed_key(self.wanted_missed)
        position = next((i for i, m in enumerate(self.data.missed) if missed_key(m.query) == key), None)
        if position is not None:
            rows = self.query_one("#missed", RowList)
            rows.focus()
            rows.highlighted = rows.index_of(f"missed:{position}")
        self.wanted_missed = None
