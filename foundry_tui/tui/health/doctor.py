"""DoctorScreen: the full doctor report, as `foundry doctor` prints it."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static

from foundry_tui.core.memory.reports.doctor import DoctorReport
from foundry_tui.tui.common.dialog import Dialog
from foundry_tui.tui.common.text import marked


class DoctorScreen(Dialog[None]):
    """Read-only; escape (or d again) closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,d", "cancel", "Close")]

    def __init__(self, report: DoctorReport) -> None:
        super().__init__()
        self.report = report

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog"):
            yield self.heading("Doctor")
            # It quotes broken files (literal text); the markers it names are shown bold.
            yield Static(marked(self.report.text(), lines=True), id="doctor-report")
