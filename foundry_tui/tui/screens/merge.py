"""MergeScreen: the merge editor, pre-filled from the sources (choose the title, edit the
combined body), with a preview of exactly what will be written before anything is."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Select, Static, TextArea

from foundry_tui.core.curation.merge import MergePlan
from foundry_tui.core.errors import FoundryError
from foundry_tui.core.memory.project import Project


class MergeScreen(ModalScreen[MergePlan | None]):
    """Dismisses with the edited plan, or None when cancelled."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel"), Binding("ctrl+s", "merge", "Merge")]

    def __init__(self, project: Project, plan: MergePlan, today: object) -> None:
        super().__init__()
        self.project = project
        self.plan = plan
        self.today = today

    def compose(self) -> ComposeResult:
        titles = list(dict.fromkeys(f.title for f in self.plan.sources))
        with VerticalScroll(id="dialog"):
            yield Label(f"Merge {', '.join(self.plan.source_ids)}", id="dialog-title")
            yield Label("Title")
            yield Select([(t, t) for t in titles], value=self.plan.request.title, allow_blank=False, id="merge-title")
            yield Label("Body (the sources' bodies combined; edit to one claim)")
            yield TextArea(self.plan.request.body, id="merge-body")
            yield Label("", id="form-error")
            yield Static("", id="merge-preview", markup=False)
            with Horizontal(id="dialog-buttons"):
                yield Button("Merge", variant="primary", id="merge")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self._refresh_preview()

    @on(Select.Changed, "#merge-title")
    @on(TextArea.Changed, "#merge-body")
    def _edited(self) -> None:
        self._refresh_preview()

    def _current(self) -> MergePlan:
        title = self.query_one("#merge-title", Select).value
        body = self.query_one("#merge-body", TextArea).text
        return self.plan.edited(str(title), body)

    def _refresh_preview(self) -> None:
        error = self.query_one("#form-error", Label)
        try:
            preview = self._current().preview(self.project, self.today)  # type: ignore[arg-type]
            error.update("")
        except FoundryError as exc:
            preview = ""
            error.update(f"Cannot merge yet: {exc}")
        self.query_one("#merge-preview", Static).update(preview)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "merge":
            self.action_merge()
        else:
            self.action_cancel()

    def action_merge(self) -> None:
        try:
            plan = self._current()
            plan.fact(self.today)  # type: ignore[arg-type]  # validates title and body
        except FoundryError as exc:
            self.query_one("#form-error", Label).update(f"Cannot merge yet: {exc}")
            return
        self.dismiss(plan)

    def action_cancel(self) -> None:
        self.dismiss(None)
