"""BlackboardScreen: following a run. The waves in the order they happened with their
counts; the artifacts under them, filtered by text, agent, schema or validity, new ones
highlighted as agents write them; the chosen artifact with its violations placed in its
JSON, its contract beside it; and the diff of two artifacts."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import DataTable, Footer, Input, Tree

from foundry_tui.core.artefacts.waves import (
    ArtifactFilter,
    InspectedArtifact,
    Wave,
    WaveCache,
    artifact_diff,
    contract_text,
    filter_choices,
    inspect_waves,
    previous_of,
    rule_spans,
)
from foundry_tui.core.errors import FoundryError
from foundry_tui.tui.board.artifact_diff import ArtifactDiffScreen
from foundry_tui.tui.board.artifact_tree import ArtifactTree
from foundry_tui.tui.board.artifact_view import ArtifactView
from foundry_tui.tui.board.board_filters import BoardFilters
from foundry_tui.tui.board.contract_view import ContractView
from foundry_tui.tui.board.wave_table import WaveTable
from foundry_tui.tui.commands import BOARD_COMMANDS
from foundry_tui.tui.common.live import LiveScreen
from foundry_tui.tui.common.messages import MemoryChanged
from foundry_tui.tui.common.status_header import StatusHeader
from foundry_tui.tui.common.theme import ThemeColours
from foundry_tui.tui.common.workers import deliver

FRESH_SECONDS = 3.0  # how long a newly written artifact stays highlighted


class BlackboardScreen(LiveScreen):
    """The wave table on top, the filters, then the artifacts, the one chosen and its contract."""

    SCREEN_COMMANDS = BOARD_COMMANDS
    BINDINGS: ClassVar[list[BindingType]] = [command.binding() for command in BOARD_COMMANDS]

    @dataclass
    class Loaded(Message):
        waves: list[Wave]
        contracts: dict[str, tuple[str | None, str | None]]  # id → (indented JSON, or why not)

    def __init__(self) -> None:
        super().__init__()
        self.waves: list[Wave] = []
        self.contracts: dict[str, tuple[str | None, str | None]] = {}
        self.only = ArtifactFilter()
        self.shown: str | None = None  # the key (wave/name) of the artifact on the right
        self.marked: str | None = None  # the left side of the next diff
        self.fresh: set[str] = set()
        self.seen: dict[str, float] | None = None  # key → write time at the last load
        self.cache = WaveCache()  # an unchanged artifact is not read or checked again on a reload

    def compose(self) -> ComposeResult:
        yield StatusHeader()
        yield WaveTable(id="wave-table")
        yield BoardFilters(id="board-filters")
        with Horizontal(id="panes"):
            yield ArtifactTree(id="waves")
            # Side by side, or the contract under the artifact below 100 columns (app.tcss).
            with Horizontal(id="artifact-sides"):
                yield ArtifactView(id="artifact")
                yield ContractView(id="contract")
        yield Footer()

    def on_mount(self) -> None:  # LiveScreen's on_mount (the first load) runs too
        self.query_one(ArtifactTree).focus()

    @work(thread=True, exclusive=True, group="blackboard", name="Blackboard not read", exit_on_error=False)
    def load(self) -> Loaded:
        layout = self.project.layout
        waves = inspect_waves(layout, self.cache)
        contracts: dict[str, tuple[str | None, str | None]] = {}
        for schema in filter_choices(waves)[1]:
            try:
                contracts[schema] = (contract_text(layout, schema), None)
            except FoundryError as exc:
                contracts[schema] = (None, str(exc))
        return deliver(self, self.Loaded(waves, contracts))

    def on_blackboard_screen_loaded(self, event: Loaded) -> None:
        self.waves, self.contracts = event.waves, event.contracts
        count = len(self.waves)
        self.query_one(StatusHeader).show_count("waves", f"{count} wave{'s' if count != 1 else ''}")
        written = {item.key: item.written for wave in self.waves for item in wave.items}
        if self.seen is not None:
            arrived = {key for key, moment in written.items() if self.seen.get(key) != moment}
            if arrived:
                self.fresh |= arrived
                self.set_timer(FRESH_SECONDS, lambda: self._fade(arrived))
                names = sorted(arrived)
                more = f" and {len(names) - 3} more" if len(names) > 3 else ""
                self.notify(f"Written: {', '.join(names[:3])}{more}", timeout=FRESH_SECONDS)
        self.seen = written
        self.query_one(BoardFilters).offer(*filter_choices(self.waves))
        self._redraw()
        if self.shown is not None:  # read again (a change on disk, a new theme): show it anew
            item = self._find(self.shown)
            if item is not None and self.only.matches(item):
                self._show(item)
            else:  # deleted meanwhile: what it said no longer holds
                self._clear_shown()

    def _clear_shown(self) -> None:
        """Nothing on the right: the artifact shown is gone, or the filters leave it out."""
        self.shown = None
        self.query_one(ArtifactView).clear()
        self.query_one(ContractView).clear()

    def _fade(self, keys: set[str]) -> None:
        self.fresh -= keys
        self._redraw()

    def _redraw(self) -> None:
        fresh_waves = {key.split("/", 1)[0] for key in self.fresh}
        self.query_one(WaveTable).show(self.waves, fresh_waves)
        self.query_one(ArtifactTree).show(
            self.waves, self.only, ThemeColours.of(self.app), self.fresh, self.marked, self.shown
        )

    def _find(self, key: str) -> InspectedArtifact | None:
        for wave in self.waves:
            for item in wave.items:
                if item.key == key:
                    return item
        return None

    def _show(self, item: InspectedArtifact) -> None:
        self.shown = item.key
        self.query_one(ArtifactView).show(item, ThemeColours.of(self.app))
        schema = item.artifact.schema
        text, problem = self.contracts.get(schema, (None, item.contract_error))
        rules = rule_spans(text, item) if text is not None else []
        self.query_one(ContractView).show(schema, text, problem, rules)

    def on_tree_node_highlighted(self, event: Tree.NodeHighlighted[InspectedArtifact | None]) -> None:
        if event.node.data is not None:
            self._show(event.node.data)

    def on_board_filters_changed(self, event: BoardFilters.Changed) -> None:
        if event.only != self.only:
            self.only = event.only
            self._redraw()
            item = self._find(self.shown) if self.shown is not None else None
            if item is not None and not self.only.matches(item):
                self._clear_shown()  # the pane shows what the list shows, never an artifact filtered out

    @on(DataTable.RowSelected, "#wave-table")
    def _wave_chosen(self, event: DataTable.RowSelected) -> None:
        """Enter on a wave: the artifacts pane goes to it (as filtered) and takes the focus."""
        tree = self.query_one(ArtifactTree)
        node = tree.wave_nodes.get(str(event.row_key.value))
        if node is not None:
            tree.move_cursor(node.children[0] if node.children else node)
        tree.focus()

    # ---- actions ---------------------------------------------------------------------------

    def action_focus_filter(self) -> None:
        self.query_one("#filter-text", Input).focus()

    def action_focus_artifacts(self) -> None:
        """Escape in the filters: back to the artifacts, the filters kept."""
        self.query_one(ArtifactTree).focus()

    def action_cycle_validity(self) -> None:
        self.query_one(BoardFilters).cycle_validity()

    def action_clear_filters(self) -> None:
        self.query_one(BoardFilters).clear_all()

    def _highlighted(self) -> InspectedArtifact | None:
        node = self.query_one(ArtifactTree).cursor_node
        item = node.data if node is not None else None
        if item is None:
            self.notify("Highlight an artifact first (in the artifacts pane).", severity="warning")
        return item

    def action_mark(self) -> None:
        item = self._highlighted()
        if item is None:
            return
        self.marked = None if self.marked == item.key else item.key
        if self.marked:
            self.notify(f"{item.key} marked: highlight another artifact and press d to compare.", timeout=4)
        self._redraw()

    def action_diff(self) -> None:
        item = self._highlighted()
        if item is None:
            return
        base = self._find(self.marked) if self.marked and self.marked != item.key else None
        if self.marked and self.marked != item.key and base is None:
            self.notify(f"{self.marked} is no longer on the board: mark another artifact.", severity="warning")
            self.marked = None
            return
        if base is None:
            base = previous_of(self.waves, item)
        if base is None:
            self.notify(
                f"No earlier wave holds an artifact of {item.agent}: mark one with m to compare with any other.",
                severity="warning",
            )
            return
        self.app.push_screen(ArtifactDiffScreen(f"{base.key} → {item.key}", artifact_diff(base, item)))

    def action_next_invalid(self) -> None:
        tree = self.query_one(ArtifactTree)
        leaves = [leaf for wave in tree.root.children for leaf in wave.children if leaf.data is not None]
        cursor = tree.cursor_node
        start = leaves.index(cursor) + 1 if cursor in leaves else 0
        for leaf in leaves[start:] + leaves[:start]:
            if leaf.data is not None and not leaf.data.valid:
                tree.move_cursor(leaf)
                tree.focus()
                return
        self.notify("Every artifact shown is valid.", timeout=4)

    def action_copy_path(self) -> None:
        item = self._highlighted()
        if item is None:
            return
        path = str(item.artifact.path.resolve())
        self.app.copy_to_clipboard(path)
        self.notify(f"Copied {path}", timeout=4)

    # ---- editing in $VISUAL / $EDITOR (tui/common/editor.py) --------------------------------

    @dataclass
    class DraftReady(Message):
        key: str  # wave/name.json
        draft: Path
        command: list[str]

    @dataclass
    class DraftRead(Message):
        """What the editor saved, as a JSON object (None: left unchanged)."""

        key: str
        draft: Path
        data: dict[str, object] | None

    def action_edit_artifact(self) -> None:
        from foundry_tui.tui.common.editor import NO_EDITOR, editor_command

        item = self._highlighted()
        if item is None:
            return
        try:
            command = editor_command()
        except FoundryError as exc:
            self.notify(str(exc), severity="warning")
            return
        if command is None:
            self.notify(NO_EDITOR, severity="warning")
            return
        self._prepare_draft(item, command)

    @work(thread=True, exclusive=True, group="edit", name="Not opened in the editor", exit_on_error=False)
    def _prepare_draft(self, item: InspectedArtifact, command: list[str]) -> DraftReady:
        from foundry_tui.tui.common.editor import write_draft

        draft = write_draft(item.artifact.text, item.artifact.name)
        return deliver(self, self.DraftReady(item.key, draft, command))

    def on_blackboard_screen_draft_ready(self, event: DraftReady) -> None:
        from foundry_tui.tui.common.editor import run_editor

        problem = run_editor(self.app, event.command, event.draft)
        if problem is not None:
            self.notify(problem, severity="warning")
            return
        item = self._find(event.key)
        self._read_draft(event.key, event.draft, item.artifact.text if item is not None else "")

    @work(thread=True, exclusive=True, group="edit", name="Not saved", exit_on_error=False)
    def _read_draft(self, key: str, draft: Path, original: str) -> DraftRead:
        import json

        from foundry_tui.tui.common.editor import read_draft, remove_draft

        text = read_draft(draft)
        if text == original:
            remove_draft(draft)
            return deliver(self, self.DraftRead(key, draft, None))
        kept = f"; your text is kept in {draft}"
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise FoundryError(f"not JSON at line {exc.lineno}, column {exc.colno} ({exc.msg}){kept}") from None
        except RecursionError:
            raise FoundryError(f"the JSON is nested too deeply{kept}") from None
        if not isinstance(data, dict):
            raise FoundryError(f"an artifact is a JSON object, not a {type(data).__name__}{kept}")
        return deliver(self, self.DraftRead(key, draft, data))

    def on_blackboard_screen_draft_read(self, event: DraftRead) -> None:
        item = self._find(event.key)
        if event.data is None or item is None:
            what = "unchanged in the editor" if event.data is None else "no longer on the board"
            self.notify(f"{event.key}: {what}, nothing written.", timeout=4)
            return
        data = event.data
        schema = str(data.get("schema") or item.artifact.schema)
        agent = str(data.get("producedBy") or item.agent)
        wave = item.artifact.wave
        layout = self.project.layout
        self.confirm(
            f"Write {event.key}?",
            [
                f"blackboard_write: {layout.relative(item.artifact.path)} is replaced, as {agent}'s artifact "
                f"of wave {wave}",
                f"it is checked against {schema} first: a violation writes nothing",
            ],
            lambda _answer: self._write_artifact(wave, agent, schema, data, event.draft),
        )

    @work(thread=True, group="write", name="Not written", exit_on_error=False)
    def _write_artifact(
        self, wave: str, agent: str, schema: str, data: dict[str, object], draft: Path
    ) -> MemoryChanged:
        from foundry_tui.core.ops.board import blackboard_write
        from foundry_tui.tui.common.editor import remove_draft

        outcome = blackboard_write(self.actor, wave, agent, schema, data)
        if not outcome.written:
            raise FoundryError(" ".join(outcome.text.splitlines()) + f" (your text is kept in {draft})")
        remove_draft(draft)
        return deliver(self, MemoryChanged(outcome.text.splitlines()[0]))

    def on_memory_changed(self, event: MemoryChanged) -> None:
        self.notify(event.summary, timeout=6)
        self.load()
