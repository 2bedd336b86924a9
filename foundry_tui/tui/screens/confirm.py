"""ConfirmScreen: says exactly what will change on disk and asks before doing it;
optionally takes one value (such as the expiry date of a retirement)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static


class ConfirmScreen(ModalScreen[str | None]):
    """Dismisses with the field's value ("" without a field) on confirm, None on cancel."""

    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("ctrl+s", "confirm", "Confirm")]

    def __init__(self, title: str, changes: list[str], field: tuple[str, str] | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.changes = changes
        self.field = field

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(self.title_text, id="dialog-title")
            yield Static("On disk:\n" + "\n".join(f"  • {line}" for line in self.changes), id="dialog-changes")
            if self.field is not None:
                yield Label(self.field[0])
                yield Input(self.field[1], id="dialog-field")
            with Horizontal(id="dialog-buttons"):
                yield Button("Confirm", variant="primary", id="confirm")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#confirm" if self.field is None else "#dialog-field").focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "confirm":
            self.action_confirm()
        else:
            self.action_cancel()

    def on_input_submitted(self) -> None:
        self.action_confirm()

    def action_confirm(self) -> None:
        self.dismiss(self.query_one("#dialog-field", Input).value if self.field is not None else "")

    def action_cancel(self) -> None:
        self.dismiss(None)
