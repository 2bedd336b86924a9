"""ApprovalsScreen: memory changes parked by the trust policy, for a trusted curator.

Pending proposals (then the decided and broken ones) with author and age; the selected
one's proposed fact beside the active fact it would supersede, changed lines marked;
approve or reject (with a reason) the selected one or every ticked one at once, after one
confirm that lists them; `f` shows one author's proposals at a time. A preferences clear request of
the person using the app is confirmed here too."""

from __future__ import annotations

from collections.abc import Callable
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

from foundry_tui.core.errors import FoundryError
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
        self.ticked: set[str] = set()  # pending proposals a and r act on together
        self.author: str | None = None  # only this author's proposals are listed (f)
        self.listed: list[Review] = []

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
        pending_ids = {s.proposal.id for s in data.shown if s.proposal.status == "pending" and not s.proposal.problem}
        if self.author is not None and all(s.proposal.author != self.author for s in data.shown):
            self.author = None  # that author has nothing left here
        self.listed = [s for s in data.shown if self.author is None or s.proposal.author == self.author]
        self.ticked &= pending_ids & {s.proposal.id for s in self.listed}
        title = f"Approvals · {data.pending} pending · you are {self.foundry.caller.principal}"
        if self.author is not None:
            title += f" · by {self.author} only (f: the next author)"
        if self.ticked:
            title += f" · {len(self.ticked)} ticked"
        if data.clear_pending:
            title += " · your preferences: a clear request is pending (c confirms it)"
        self.query_one("#approvals-title", Label).update(title)
        options = self.query_one("#proposals", OptionList)
        colours = ThemeColours.of(self.app)
        highlighted = self.selected
        options.clear_options()
        for item in self.listed:
            p = item.proposal
            tick = ("[x] " if p.id in self.ticked else "[ ] ") if p.id in pending_ids else "    "
            if p.problem:
                label = Text.assemble(tick, (f"{p.id} ", "bold"), ("broken", f"bold {colours.error}"), f"  {p.problem}")
            else:
                status_style = {
                    "pending": f"bold {colours.warning}",
                    "approved": colours.success,
                    "rejected": "dim",
                }.get(p.status, "")
                label = Text.assemble(
                    (tick, "bold"),
                    (f"{p.id} ", "bold"),
                    (p.status, status_style),
                    f" · {p.operation}\n  {item.author} · {p.age(self.today)}\n  {p.summary}",
                )
            options.add_option(Option(label, id=p.id))
        if not self.listed:
            options.add_option(
                Option(Text("No proposals: nothing is waiting for approval.", style="dim"), disabled=True)
            )
        ids = [s.proposal.id for s in self.listed]
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
        return next((s for s in self.listed if s.proposal.id == self.selected), None)

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

    def _targets(self) -> list[Review]:
        """The ticked proposals, in the list's order; with none ticked, the selected pending one."""
        if self.ticked:
            return [s for s in self.listed if s.proposal.id in self.ticked]
        item = self._pending_selected()
        return [item] if item is not None else []

    def action_tick(self) -> None:
        item = self._pending_selected()
        if item is None or self.data is None:
            return
        self.ticked ^= {item.proposal.id}
        self._show(self.data)

    def action_filter_author(self) -> None:
        if self.data is None or not self.data.shown:
            self.notify("No proposals to filter.", severity="warning")
            return
        authors = sorted({s.proposal.author for s in self.data.shown})
        at = authors.index(self.author) + 1 if self.author in authors else 0
        self.author = authors[at] if at < len(authors) else None
        self._show(self.data)

    def action_approve(self) -> None:
        items = self._targets()
        if not items:
            return
        ids = [item.proposal.id for item in items]
        principal = self.foundry.caller.principal
        if len(items) == 1:
            proposal, item = items[0].proposal, items[0]
            title = f"Approve {proposal.id} as {principal}?"
            changes = [
                f"{proposal.operation} {proposal.summary}: today it would {item.would_do}",
                f"the fact's source names {proposal.author} ({item.author}) and {proposal.id}",
                f"{proposal.id} is marked approved with the outcome; INDEX.md is rebuilt",
            ]
        else:
            title = f"Approve {len(items)} proposals as {principal}?"
            changes = [
                *(
                    f"{i.proposal.id} by {i.proposal.author}: {i.proposal.operation} {i.proposal.summary}: {i.would_do}"
                    for i in items
                ),
                "each fact's source names its author and proposal; each is marked approved; INDEX.md is rebuilt",
            ]
        self.confirm(title, changes, lambda _answer: self._approve(ids))

    @work(thread=True, group="write", name="Not approved", exit_on_error=False)
    def _approve(self, proposal_ids: list[str]) -> MemoryChanged:
        return deliver(self, MemoryChanged(self._each(proposal_ids, lambda pid: approve(self.actor, pid), 2)))

    def _each(self, proposal_ids: list[str], decide: Callable[[str], str], lines: int) -> str:
        """Decide each proposal in turn; one failing does not stop the others (said at the end)."""
        done: list[str] = []
        failed: list[str] = []
        for proposal_id in proposal_ids:
            try:
                done.append(" · ".join(decide(proposal_id).splitlines()[:lines]))
            except FoundryError as exc:
                failed.append(f"{proposal_id} not decided: {str(exc).splitlines()[0] if str(exc) else exc}")
        if len(proposal_ids) == 1 and failed:
            raise FoundryError(failed[0].split(": ", 1)[1])
        return "\n".join([*done, *failed])

    def action_reject(self) -> None:
        items = self._targets()
        if not items:
            return
        ids = [item.proposal.id for item in items]
        if len(items) == 1:
            title = f"Reject {ids[0]}?"
            changes = [f"{ids[0]} is kept, marked rejected with your reason; no fact changes"]
        else:
            title = f"Reject {len(items)} proposals?"
            changes = [
                *(
                    f"{i.proposal.id} by {i.proposal.author}: {i.proposal.operation} {i.proposal.summary}"
                    for i in items
                ),
                "each is kept, marked rejected with your reason; no fact changes",
            ]
        self.confirm(
            title,
            changes,
            lambda reason: self._reject(ids, reason),
            field=("Reason (kept with the proposal)", ""),
        )

    @work(thread=True, group="write", name="Not rejected", exit_on_error=False)
    def _reject(self, proposal_ids: list[str], reason: str) -> MemoryChanged:
        return deliver(self, MemoryChanged(self._each(proposal_ids, lambda pid: reject(self.actor, pid, reason), 1)))

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
