"""DoctorScreen: the full doctor report, as `foundry doctor` prints it."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from foundry_tui.core.memory.doctor import DoctorReport


class DoctorScreen(ModalScreen[None]):
    """Read-only; escape closes it."""

    BINDINGS = [Binding("escape,d", "close", "Close")]

    def __init__(self, report: DoctorReport) -> None:
        super().__init__()
        self.report = report

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog"):
            yield Label("Doctor", id="dialog-title")
            yield Static(self.report.text(), id="doctor-report", markup=False)

    def action_close(self) -> None:
        self.dismiss(None)
