"""Dialog: the base of the modal dialogs (confirm, write, merge, doctor). It lays out
the frame, the title and the buttons the same way for each, and cancels (escape or
the Cancel button) by dismissing with None; subclasses handle their own button with
`@on(Button.Pressed, "#<id>")`. Each has a footer of its own: the keys it answers (the
screen under it answers none while it is open)."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import ModalScreen, ScreenResultType
from textual.widgets import Button, Footer, Label

from foundry_tui.tui.common.base import FoundryScreen
from foundry_tui.tui.common.text import plain


class Dialog(ModalScreen[ScreenResultType], FoundryScreen[ScreenResultType]):
    """A modal screen that dismisses with its result, or None when cancelled."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def on_mount(self) -> None:
        # Textual calls every class's on_mount in turn: a subclass's own does not replace this.
        self.mount(Footer())

    @staticmethod
    def heading(text: str) -> Label:
        return Label(plain(text), id="dialog-title")  # it may name a fact's title

    @staticmethod
    def buttons(label: str, button_id: str, cancel: str = "Cancel") -> ComposeResult:
        """The row of buttons: the dialog's own (primary) one, then Cancel (or `cancel`)."""
        with Horizontal(id="dialog-buttons"):
            yield Button(label, variant="primary", id=button_id)
            yield Button(cancel, id="cancel")

    @on(Button.Pressed, "#cancel")
    def _cancel_pressed(self) -> None:
        self.action_cancel()

    def action_cancel(self) -> None:
        self.dismiss(None)
