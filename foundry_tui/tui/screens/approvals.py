"""ApprovalsScreen: memory changes parked by the trust policy, for a trusted curator.

Pending proposals (then the decided and broken ones) with author and age; the selected
one's proposed fact beside the active fact it would supersede, changed lines marked;
approve or reject (with a reason), each confirmed first. A preferences clear request of
the person using the app is confirmed here too."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Footer, Label, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from foundry_tui.core.errors import FoundryError
from foundry_tui.core.trust.proposals import (
    Proposal,
    approve_proposal,
    list_proposals,
    marked_lines,
    proposal_diff,
    reject_proposal,
)
from foundry_tui.tui.messages import MemoryChanged
from foundry_tui.tui.screens.confirm import ConfirmScreen
from foundry_tui.tui.screens.live import LiveScreen

_ORDER = {"pending": 0, "broken": 1, "approved": 2, "rejected": 3}


class Shown:
    """One proposal as the screen shows it: the texts side by side, read in a worker."""

    def __init__(self, proposal: Proposal, before: str, after: str) -> None:
        self.proposal = proposal
        self.before = before
        self.after = after


class ApprovalsData:
    def __init__(self, shown: list[Shown], clear_pending: bool) -> None:
        self.shown = shown
        self.clear_pending = clear_pending

    @property
    def pending(self) -> int:
        return sum(1 for s in self.shown if s.proposal.status == "pending")


def _side(lines: list[tuple[str, bool]], style: str, empty: str) -> Text:
    if not lines:
        return Text(empty, style="dim")
    out = Text()
    for line, changed in lines:
        out.append(line + "\n", style=style if changed else "")
    return out


class ApprovalsScreen(LiveScreen):
    """Proposals on the left, the selected one against the active fact on the right."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "approve", "Approve"),
        Binding("r", "reject", "Reject"),
        Binding("c", "confirm_clear", "Clear my preferences", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.data: ApprovalsData | None = None
        self.selected: str | None = None

    def compose(self) -> ComposeResult:
        yield Label("Approvals · loading…", id="approvals-title")
        with Horizontal(id="panes"):
            yield OptionList(id="proposals")
            with Vertical(id="proposal"):
                yield Static("", id="proposal-head")
                with Horizontal(id="proposal-sides"):
                    with VerticalScroll(id="proposal-active"):
                        yield Static("", id="active-text")
                    with VerticalScroll(id="proposal-proposed"):
                        yield Static("", id="proposed-text")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#proposals").border_title = "Proposals"
        self.query_one("#proposal-active").border_title = "Active now"
        self.query_one("#proposal-proposed").border_title = "Proposed"
        self.query_one("#proposals").focus()
        super().on_mount()

    @work(thread=True, exclusive=True, group="approvals")
    def load(self) -> None:
        project, today = self.foundry.project, self.foundry.today
        try:
            from foundry_tui.core.trust.preferences import clear_pending

            with project.lock:
                proposals = sorted(list_proposals(project.layout), key=lambda p: (_ORDER.get(p.status, 9), p.id))
                shown = []
                for proposal in proposals:
                    before, after, _diff = proposal_diff(project, proposal, today)
                    shown.append(Shown(proposal, before, after))
            caller = self.foundry.caller
            pending_clear = caller.principal.is_user and clear_pending(caller.principal)
        except FoundryError as exc:
            self.app.call_from_thread(self.notify, str(exc), severity="error")
            return
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show, ApprovalsData(shown, pending_clear))

    def _show(self, data: ApprovalsData) -> None:
        self.data = data
        title = f"Approvals · {data.pending} pending · you are {self.foundry.caller.principal}"
        if data.clear_pending:
            title += " · your preferences: a clear request is pending (c confirms it)"
        self.query_one("#approvals-title", Label).update(title)
        options = self.query_one("#proposals", OptionList)
        highlighted = self.selected
        options.clear_options()
        for item in data.shown:
            p = item.proposal
            if p.problem:
                label = Text.assemble((f"{p.id} ", "bold"), ("broken", "bold red"), f"  {p.problem}")
            else:
                status_style = {"pending": "bold yellow", "approved": "green", "rejected": "dim"}.get(p.status, "")
                label = Text.assemble(
                    (f"{p.id} ", "bold"),
                    (p.status, status_style),
                    f" · {p.operation}\n  {p.author} · {p.age(self.foundry.today)}\n  {p.title}",
                )
            options.add_option(Option(label, id=p.id))
        if not data.shown:
            options.add_option(
                Option(Text("No proposals: nothing is waiting for approval.", style="dim"), disabled=True)
            )
        ids = [s.proposal.id for s in data.shown]
        if ids:
            options.highlighted = ids.index(highlighted) if highlighted in ids else 0
        self._show_selected()

    @on(OptionList.OptionHighlighted, "#proposals")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self.selected = event.option.id
        self._show_selected()

    def _current(self) -> Shown | None:
        if self.data is None or self.selected is None:
            return None
        return next((s for s in self.data.shown if s.proposal.id == self.selected), None)

    def _show_selected(self) -> None:
        head = self.query_one("#proposal-head", Static)
        active = self.query_one("#active-text", Static)
        proposed = self.query_one("#proposed-text", Static)
        item = self._current()
        if item is None:
            head.update("Select a proposal: a approves it, r rejects it (each asks first).")
            active.update("")
            proposed.update("")
            return
        p = item.proposal
        if p.problem:
            head.update(Text(f"{p.id} is broken: {p.problem}\nIt is never approved: fix or replace its file.", "red"))
            active.update("")
            proposed.update("")
            return
        lines = [f"{p.id} · {p.operation} · by {p.author} on {p.proposed_on} · when proposed it would: {p.would_do}"]
        if p.outcome():
            lines.append(p.outcome().capitalize())
        head.update("\n".join(lines))
        before, after = marked_lines(item.before, item.after)
        active.update(_side(before, "red", "(no active fact: this creates one)"))
        proposed.update(_side(after, "bold green", ""))

    # ---- actions ---------------------------------------------------------------------------

    def _pending_selected(self) -> Proposal | None:
        item = self._current()
        if item is None:
            self.notify("Select a proposal first.", severity="warning")
            return None
        if item.proposal.problem or item.proposal.status != "pending":
            self.notify(f"{item.proposal.id} is not pending ({item.proposal.status}).", severity="warning")
            return None
        return item.proposal

    def action_approve(self) -> None:
        proposal = self._pending_selected()
        if proposal is None:
            return

        def confirmed(answer: str | None) -> None:
            if answer is not None:
                self._approve(proposal.id)

        self.app.push_screen(
            ConfirmScreen(
                f"Approve {proposal.id} as {self.foundry.caller.principal}?",
                [
                    f"{proposal.operation} as the memory is now (when proposed: {proposal.would_do})",
                    f"the fact's source names {proposal.author} and {proposal.id}",
                    f"{proposal.id} is marked approved with the outcome; INDEX.md is rebuilt",
                ],
            ),
            confirmed,
        )

    @work(thread=True, group="write")
    def _approve(self, proposal_id: str) -> None:
        try:
            text = approve_proposal(self.foundry.project, self.foundry.caller, proposal_id, self.foundry.today)
        except FoundryError as exc:
            self.app.call_from_thread(self.notify, f"Not approved: {exc}", severity="error", timeout=8)
            return
        self.app.call_from_thread(self._changed, " · ".join(text.splitlines()[:2]))

    def action_reject(self) -> None:
        proposal = self._pending_selected()
        if proposal is None:
            return

        def confirmed(reason: str | None) -> None:
            if reason is not None:
                self._reject(proposal.id, reason)

        self.app.push_screen(
            ConfirmScreen(
                f"Reject {proposal.id}?",
                [f"{proposal.id} is kept, marked rejected with your reason; no fact changes"],
                field=("Reason (kept with the proposal)", ""),
            ),
            confirmed,
        )

    @work(thread=True, group="write")
    def _reject(self, proposal_id: str, reason: str) -> None:
        try:
            text = reject_proposal(self.foundry.project, self.foundry.caller, proposal_id, reason, self.foundry.today)
        except FoundryError as exc:
            self.app.call_from_thread(self.notify, f"Not rejected: {exc}", severity="error", timeout=8)
            return
        self.app.call_from_thread(self._changed, text.splitlines()[0])

    def action_confirm_clear(self) -> None:
        if self.data is None or not self.data.clear_pending:
            self.notify("No clear request of your preferences is pending.", severity="warning")
            return

        def confirmed(answer: str | None) -> None:
            if answer is not None:
                self._clear()

        self.app.push_screen(
            ConfirmScreen(
                f"Delete the preferences of {self.foundry.caller.principal}?",
                ["your preferences file (outside the repository) is deleted; this cannot be undone"],
            ),
            confirmed,
        )

    @work(thread=True, group="write")
    def _clear(self) -> None:
        from foundry_tui.core.trust.preferences import confirm_clear

        try:
            text = confirm_clear(self.foundry.caller)
        except FoundryError as exc:
            self.app.call_from_thread(self.notify, f"Not cleared: {exc}", severity="error", timeout=8)
            return
        self.app.call_from_thread(self._changed, text)

    def _changed(self, summary: str) -> None:
        self.notify(summary, timeout=6)
        self.post_message(MemoryChanged(summary))
        self.load()
