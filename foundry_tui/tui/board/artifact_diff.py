"""ArtifactDiffScreen: the unified diff of two artifacts' JSON (keys sorted, so only what
changed differs), added lines in the success colour, removed ones in the error colour."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static

from foundry_tui.core.artefacts.waves import DiffLine, diff_counts
from foundry_tui.tui.common.dialog import Dialog
from foundry_tui.tui.common.text import shown
from foundry_tui.tui.common.theme import ThemeColours


class ArtifactDiffScreen(Dialog[None]):
    """Read-only; escape (or d again) closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,d", "cancel", "Close")]

    def __init__(self, title: str, lines: list[DiffLine]) -> None:
        super().__init__()
        self.title_text = title
        self.lines = lines

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog", classes="wide"):
            yield self.heading(self.title_text)
            yield Static(diff_counts(self.lines), id="diff-counts")
            yield Static(id="diff-lines")

    def on_mount(self) -> None:  # FoundryScreen's on_mount (the theme subscription) runs too
        self.recolour()

    def recolour(self) -> None:
        colours = ThemeColours.of(self.app)
        styles = {"header": "bold", "hunk": "dim", "added": colours.success, "removed": colours.error, "same": ""}
        text = Text()
        for number, line in enumerate(self.lines):
            text.append(("\n" if number else "") + shown(line.text), style=styles[line.kind])
        self.query_one("#diff-lines", Static).update(text)
