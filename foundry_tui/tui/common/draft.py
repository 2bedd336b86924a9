"""DraftDialog: the base of the dialogs that edit a draft (the write form, the merge editor).
Escape or Cancel on a draft that differs from what the dialog opened with asks first
(DiscardDraftScreen), so that nothing typed is thrown away without a question."""

from __future__ import annotations

from typing import Generic

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ScreenResultType
from textual.widgets import Button, Static

from foundry_tui.tui.common.dialog import Dialog


class DiscardDraftScreen(Dialog[bool]):
    """Asked before a changed draft is closed: True discards it, False (or Escape) keeps editing."""

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield self.heading("Discard this draft?")
            yield Static("What you typed in the form is lost; nothing was written.", id="dialog-changes")
            yield from self.buttons("Discard", "discard", cancel="Keep editing")

    @on(Button.Pressed, "#discard")
    def _discard(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)


class DraftDialog(Dialog[ScreenResultType], Generic[ScreenResultType]):
    """A dialog whose fields are a draft: a subclass says what its draft is (`draft`) and calls
    `remember_draft` once its fields are filled in (in its on_mount)."""

    opened_with: tuple[str, ...] | None = None  # the draft as the dialog opened

    def draft(self) -> tuple[str, ...]:
        """Every field as it stands."""
        raise NotImplementedError

    def remember_draft(self) -> None:
        self.opened_with = self.draft()

    def action_cancel(self) -> None:
        """Close the dialog; a draft that differs from what it opened with is discarded only if told to."""
        if self.opened_with is None or self.draft() == self.opened_with:
            self.dismiss(None)
            return

        def answered(discard: bool | None) -> None:
            if discard:
                self.dismiss(None)

        self.app.push_screen(DiscardDraftScreen(), answered)
