"""MergeScreen: the merge editor, pre-filled from the sources (choose the title and the
type, edit the combined body), with a preview of exactly what will be written before
anything is. An edited draft is never thrown away without a question: Escape or Cancel
asks as the write form does (tui/common/draft.py)."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Button, Label, Select, Static, TextArea

from foundry_tui.core.curation.merge import MergePlan
from foundry_tui.core.errors import FoundryError
from foundry_tui.core.memory.model.vocabulary import TYPES
from foundry_tui.tui.common.draft import DraftDialog
from foundry_tui.tui.common.text import plain, plain_lines, shown_lines


class MergeScreen(DraftDialog[MergePlan | None]):
    """Dismisses with the edited plan, or None when cancelled."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+s", "merge", "Merge")]

    def __init__(self, plan: MergePlan) -> None:
        super().__init__()
        self.plan = plan

    def compose(self) -> ComposeResult:
        titles = list(dict.fromkeys(f.title for f in self.plan.sources))
        with VerticalScroll(id="dialog"):
            yield self.heading(f"Merge {', '.join(self.plan.source_ids)}")
            yield Label("Title")
            yield Select(
                [(plain(t), t) for t in titles], value=self.plan.request.title, allow_blank=False, id="merge-title"
            )  # a prompt given as a str is parsed as markup: a title `[/]` would close the app
            yield Label("Type")
            types = list(dict.fromkeys([*(f.type for f in self.plan.sources), *TYPES]))  # the sources' types first
            yield Select([(t, t) for t in types], value=self.plan.request.type, allow_blank=False, id="merge-type")
            yield Label("Body (the sources' bodies combined; edit to one claim)")
            yield TextArea(shown_lines(self.plan.request.body), id="merge-body")  # never a raw control character
            yield Label("", id="form-error")
            yield Static("", id="merge-preview", markup=False)
            yield from self.buttons("Merge", "merge")

    def on_mount(self) -> None:
        self._refresh_preview()
        self.remember_draft()

    def draft(self) -> tuple[str, ...]:
        """The title, the type and the body as they stand."""
        title = self.query_one("#merge-title", Select).value
        kind = self.query_one("#merge-type", Select).value
        return str(title), str(kind), self.query_one("#merge-body", TextArea).text

    @on(Select.Changed, "#merge-title")
    @on(Select.Changed, "#merge-type")
    @on(TextArea.Changed, "#merge-body")
    def _edited(self) -> None:
        self._refresh_preview()

    def _current(self) -> MergePlan:
        title = self.query_one("#merge-title", Select).value
        body = self.query_one("#merge-body", TextArea).text
        kind = self.query_one("#merge-type", Select).value
        return self.plan.edited(str(title), body, str(kind))

    def _refresh_preview(self) -> None:
        error = self.query_one("#form-error", Label)
        try:
            preview = self._current().preview(self.project, self.today)
            error.update("")
        except FoundryError as exc:
            preview = ""
            error.update(plain(f"Cannot merge yet: {exc}"))
        self.query_one("#merge-preview", Static).update(plain_lines(preview))

    @on(Button.Pressed, "#merge")
    def action_merge(self) -> None:
        try:
            plan = self._current()
            plan.fact(self.today)  # validates title and body
        except FoundryError as exc:
            self.query_one("#form-error", Label).update(plain(f"Cannot merge yet: {exc}"))
            return
        self.dismiss(plan)
