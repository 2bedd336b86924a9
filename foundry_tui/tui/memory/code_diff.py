"""CodeDiffScreen: the diff of a fact's cited files since it was written (issue 30), the text
`core/memory/reports/grounding.diff_since_written` made in a worker; added lines in the
success colour, removed ones in the error colour. Opened from the fact pane and the curator's
stale view."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Static

from foundry_tui.tui.common.dialog import Dialog
from foundry_tui.tui.common.text import shown_lines
from foundry_tui.tui.common.theme import ThemeColours


@dataclass
class CodeDiffReady(Message):
    """A worker made the diff of a fact's cited files (grounding.diff_since_written): time to show it."""

    fact_id: str
    text: str

    @property
    def title(self) -> str:
        return f"{self.fact_id}: the code it cites, since it was written"


class CodeDiffScreen(Dialog[None]):
    """Read-only; escape (or D again) closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,D", "cancel", "Close")]

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text = title
        self.text = text

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog", classes="wide"):
            yield self.heading(self.title_text)
            yield Static(id="code-diff")

    def on_mount(self) -> None:  # FoundryScreen's on_mount (the theme subscription) runs too
        self.recolour()

    def recolour(self) -> None:
        colours = ThemeColours.of(self.app)
        text = Text()
        for number, line in enumerate(self.text.splitlines()):
            if line.startswith(("--- ", "+++ ")):
                style = "bold"
            elif line.startswith("@@"):
                style = "dim"
            elif line.startswith("+"):
                style = colours.success
            elif line.startswith("-"):
                style = colours.error
            else:
                style = ""
            text.append(("\n" if number else "") + shown_lines(line), style=style)
        self.query_one("#code-diff", Static).update(text)
