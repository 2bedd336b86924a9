"""WriteFactScreen: a form with every memory_write field; the core validates it, and
a refusal is shown in the form, not as a crash."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, TextArea

from foundry_tui.core.errors import FoundryError
from foundry_tui.core.memory.facts import CONFIDENCES, TYPES
from foundry_tui.core.memory.write import WriteRequest, validate_request


class WriteFactScreen(ModalScreen[WriteRequest | None]):
    """Dismisses with a validated WriteRequest, or None when cancelled."""

    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("ctrl+s", "save", "Save")]

    def __init__(self, preset: WriteRequest | None = None, title: str = "Write a fact") -> None:
        super().__init__()
        self.preset = preset or WriteRequest(
            title="", body="", type="convention", scope="project", tags=[], confidence="medium", source="conversation"
        )
        self.heading = title

    def compose(self) -> ComposeResult:
        p = self.preset
        with VerticalScroll(id="dialog"):
            yield Label(self.heading, id="dialog-title")
            yield Label("Title (the fact itself, at most 80 characters)")
            yield Input(p.title, id="title", max_length=200)
            with Horizontal(classes="row"):
                yield Select([(t, t) for t in TYPES], value=p.type, allow_blank=False, id="type")
                yield Select([(c, c) for c in CONFIDENCES], value=p.confidence, allow_blank=False, id="confidence")
            yield Label("Body (at most 120 words; decisions and risks need a Why: line)")
            yield TextArea(p.body, id="body")
            yield Label("Tags (comma separated)")
            yield Input(", ".join(p.tags or ()), id="tags")
            with Horizontal(classes="row"):
                yield Input(p.scope or "", placeholder="scope: project", id="scope")
                yield Input(p.source or "", placeholder="source: conversation", id="source")
                yield Input(p.expires or "", placeholder="expires: YYYY-MM-DD", id="expires")
            yield Label("", id="form-error")
            with Horizontal(id="dialog-buttons"):
                yield Button("Save", variant="primary", id="save")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#title", Input).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "save":
            self.action_save()
        else:
            self.action_cancel()

    def _value(self, widget_id: str) -> str:
        return self.query_one(f"#{widget_id}", Input).value

    def action_save(self) -> None:
        req = WriteRequest(
            title=self._value("title"),
            body=self.query_one("#body", TextArea).text,
            type=str(self.query_one("#type", Select).value),
            scope=self._value("scope") or "project",
            tags=[t for t in self._value("tags").split(",")],
            confidence=str(self.query_one("#confidence", Select).value),
            source=self._value("source") or "conversation",
            expires=self._value("expires").strip(),  # every field of the form is given: "" is no expiry
        )
        try:
            validate_request(req)
        except FoundryError as exc:
            self.query_one("#form-error", Label).update(f"Not saved: {exc}")
            return
        self.dismiss(req)

    def action_cancel(self) -> None:
        self.dismiss(None)
