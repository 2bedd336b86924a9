"""StatusHeader: the project root, active and total facts, doctor status, and a gauge
of the index's tokens against its budget."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label, ProgressBar

from foundry_tui.core.memory.doctor import DoctorReport
from foundry_tui.core.memory.views import Overview
from foundry_tui.tui.text import plain


class StatusHeader(Horizontal):
    """One line of status above the panes."""

    def __init__(self, root_label: str) -> None:
        super().__init__()
        self.root_label = root_label

    def compose(self) -> ComposeResult:
        yield Label(plain(f"Foundry · {self.root_label}"), id="root-label")  # a folder may be named `[x]`
        yield Label("loading…", id="counts")
        yield Label("", id="doctor-status")
        pending = Label("", id="pending-count")
        pending.display = False  # takes no room until a proposal waits
        yield pending
        yield Label("index", id="gauge-label")
        yield ProgressBar(total=1, show_eta=False, show_percentage=False, id="gauge")
        yield Label("", id="gauge-figures")

    def show_doctor(self, report: DoctorReport | None) -> None:
        """The doctor's verdict (it runs after the first paint; None while it runs)."""
        status = self.query_one("#doctor-status", Label)
        if report is None:
            status.update("doctor: checking…")
            return
        problems = report.failed + report.warned
        status.update("doctor: ok" if not problems else f"doctor: {problems} problem{'s' if problems != 1 else ''} (d)")
        status.set_class(not report.ok, "failing")

    def show_pending(self, count: int) -> None:
        """How many proposals wait for a curator (the Approvals screen, F8)."""
        label = self.query_one("#pending-count", Label)
        label.update(f"{count} proposal{'s' if count != 1 else ''} pending (F8)")
        label.display = count > 0

    def show(self, overview: Overview) -> None:
        total = len(overview.facts) + len(overview.broken)
        self.query_one("#counts", Label).update(f"{len(overview.active)} active / {total} facts")
        self.query_one("#gauge", ProgressBar).update(
            total=overview.budget, progress=min(overview.index_tokens, overview.budget)
        )
        self.query_one("#gauge-figures", Label).update(f"~{overview.index_tokens}/{overview.budget} tokens")
