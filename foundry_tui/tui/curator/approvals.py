"""ApprovalsScreen: memory changes parked by the trust policy, for a trusted curator.

Pending proposals (then the decided and broken ones) with author and age; the selected
one's proposed fact beside the active fact it would supersede, changed lines marked;
approve or reject (with a reason), each confirmed first. A preferences clear request of
the person using the app is confirmed here too."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Footer, Label, OptionList, Static
from textual.widgets.option_list import Option

from foundry_tui.core.gate.proposals import Review, marked_lines, reviews
from foundry_tui.core.ops.curator import approve, reject
from foundry_tui.tui.commands import APPROVALS_COMMANDS
from foundry_tui.tui.common.live import LiveScreen
from foundry_tui.tui.common.messages import MemoryChanged
from foundry_tui.tui.common.status_header import StatusHeader
from foundry_tui.tui.common.theme import ThemeColours
from foundry_tui.tui.common.workers import deliver

_ORDER = {"pending": 0, "broken": 1, "approved": 2, "rejected": 3}


class ApprovalsData:
    def __init__(self, shown: list[Review], clear_pending: bool) -> None:
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

    SCREEN_COMMANDS = APPROVALS_COMMANDS
    BINDINGS: ClassVar[list[BindingType]] = [command.binding() for command in APPROVALS_COMMANDS]
    BUSY_KEEPS = frozenset({"approvals-title"})

    @dataclass
    class Loaded(Message):
        data: ApprovalsData

    def __init__(self) -> None:
        super().__init__()
        self.data: ApprovalsData | None = None
        self.selected: str | None = None

    def compose(self) -> ComposeResult:
        yield StatusHeader()
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

    @work(thread=True, exclusive=True, group="approvals", name="Proposals not read", exit_on_error=False)
    def load(self) -> Loaded:
        from foundry_tui.core.trust.preferences import clear_pending

        project, today = self.project, self.today
        # Not under project.lock: each diff takes the memory lock, then the project's (the lock
        # order, core/atomic.py), so an approval writing meanwhile is waited for, never deadlocked.
        read = sorted(reviews(project, today), key=lambda r: (_ORDER.get(r.proposal.status, 9), r.proposal.id))
        shown = read
        caller = self.foundry.caller
        pending_clear = caller.principal.is_user and clear_pending(caller.principal)
        return deliver(self, self.Loaded(ApprovalsData(shown, pending_clear)))

    def on_approvals_screen_loaded(self, event: Loaded) -> None:
        self._show(event.data)

    def _show(self, data: ApprovalsData) -> None:
        self.data = data
        title = f"Approvals · {data.pending} pending · you are {self.foundry.caller.principal}"
        if data.clear_pending:
            title += " · your preferences: a clear request is pending (c confirms it)"
        self.query_one("#approvals-title", Label).update(title)
        options = self.query_one("#proposals", OptionList)
        colours = ThemeColours.of(self.app)
        highlighted = self.selected
        options.clear_options()
        for item in data.shown:
            p = item.proposal
            if p.problem:
                label = Text.assemble((f"{p.id} ", "bold"), ("broken", f"bold {colours.error}"), f"  {p.problem}")
            else:
                status_style = {
                    "pending": f"bold {colours.warning}",
                    "approved": colours.success,
                    "rejected": "dim",
                }.get(p.status, "")
                label = Text.assemble(
                    (f"{p.id} ", "bold"),
                    (p.status, status_style),
                    f" · {p.operation}\n  {item.author} · {p.age(self.today)}\n  {p.summary}",
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

    def _current(self) -> Review | None:
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
            head.update(
                Text(
                    f"{p.id} is broken: {p.problem}\nIt is never approved: fix or replace its file.",
                    ThemeColours.of(self.app).error,
                )
            )
            active.update("")
            proposed.update("")
            return
        lines = [f"{p.id} · {p.operation} · {item.author} on {p.proposed_on} · today it would: {item.would_do}"]
        if p.outcome():
            lines.append(p.outcome().capitalize())
        head.update("\n".join(lines))
        before, after = marked_lines(item.before, item.after)
        colours = ThemeColours.of(self.app)
        active.update(_side(before, colours.error, "(no active fact: this creates one)"))
        proposed.update(_side(after, f"bold {colours.success}", ""))

    # ---- actions ---------------------------------------------------------------------------

    def _pending_selected(self) -> Review | None:
        item = self._current()
        if item is None:
            self.notify("Select a proposal first.", severity="warning")
            return None
        if item.proposal.problem or item.proposal.status != "pending":
            self.notify(f"{item.proposal.id} is not pending ({item.proposal.status}).", severity="warning")
            return None
        return item

    def action_approve(self) -> None:
        item = self._pending_selected()
        if item is None:
            return
        proposal = item.proposal
        self.confirm(
            f"Approve {proposal.id} as {self.foundry.caller.principal}?",
            [
                f"{proposal.operation} {proposal.summary}: today it would {item.would_do}",
                f"the fact's source names {proposal.author} ({item.author}) and {proposal.id}",
                f"{proposal.id} is marked approved with the outcome; INDEX.md is rebuilt",
            ],
            lambda _answer: self._approve(proposal.id),
        )

    @work(thread=True, group="write", name="Not approved", exit_on_error=False)
    def _approve(self, proposal_id: str) -> MemoryChanged:
        text = approve(self.actor, proposal_id)
        return deliver(self, MemoryChanged(" · ".join(text.splitlines()[:2])))

    def action_reject(self) -> None:
        item = self._pending_selected()
        if item is None:
            return
        proposal = item.proposal
        self.confirm(
            f"Reject {proposal.id}?",
            [f"{proposal.id} is kept, marked rejected with your reason; no fact changes"],
            lambda reason: self._reject(proposal.id, reason),
            field=("Reason (kept with the proposal)", ""),
        )

    @work(thread=True, group="write", name="Not rejected", exit_on_error=False)
    def _reject(self, proposal_id: str, reason: str) -> MemoryChanged:
        text = reject(self.actor, proposal_id, reason)
        return deliver(self, MemoryChanged(text.splitlines()[0]))

    def action_confirm_clear(self) -> None:
        if self.data is None or not self.data.clear_pending:
            self.notify("No clear request of your preferences is pending.", severity="warning")
            return
        self.confirm(
            f"Delete the preferences of {self.foundry.caller.principal}?",
            ["your preferences file (outside the repository) is deleted; this cannot be undone"],
            lambda _answer: self._clear(),
        )

    @work(thread=True, group="write", name="Not cleared", exit_on_error=False)
    def _clear(self) -> MemoryChanged:
        from foundry_tui.core.ops.preferences import confirm_clear

        return deliver(self, MemoryChanged(confirm_clear(self.foundry.caller)))
