"""ConfirmScreen: says exactly what will change on disk and asks before doing it;
optionally takes one value (such as the expiry date of a retirement)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Button, Input, Label, Static

from foundry_tui.tui.common.dialog import Dialog
from foundry_tui.tui.common.text import plain, shown


class ConfirmScreen(Dialog[str | None]):
    """Dismisses with the field's value ("" without a field) on confirm, None on cancel."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+s", "confirm", "Confirm")]

    def __init__(self, title: str, changes: list[str], field: tuple[str, str] | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.changes = changes
        self.field = field

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield self.heading(self.title_text)
            changes = "On disk:\n" + "\n".join(f"  • {shown(line)}" for line in self.changes)
            yield Static(Text(changes), id="dialog-changes")
            if self.field is not None:
                yield Label(plain(self.field[0]))
                yield Input(self.field[1], id="dialog-field")
            yield from self.buttons("Confirm", "confirm")

    def on_mount(self) -> None:
        self.query_one("#confirm" if self.field is None else "#dialog-field").focus()

    @on(Button.Pressed, "#confirm")
    @on(Input.Submitted, "#dialog-field")
    def action_confirm(self) -> None:
        self.dismiss(self.query_one("#dialog-field", Input).value if self.field is not None else "")
