"""EmptyScreen: shown for a repository without `.foundry/`: says what is missing and
offers to run `foundry init`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Footer, Static

from foundry_tui.core.ops.setup import init_project
from foundry_tui.tui.commands import EMPTY_COMMANDS
from foundry_tui.tui.common.confirming import ConfirmingScreen
from foundry_tui.tui.common.text import plain_lines
from foundry_tui.tui.common.workers import deliver


class EmptyScreen(ConfirmingScreen[None]):
    """No memory here yet."""

    BINDINGS: ClassVar[list[BindingType]] = [command.binding() for command in EMPTY_COMMANDS]

    @dataclass
    class Initialised(Message):
        report: str
        failed: bool

    def compose(self) -> ComposeResult:
        layout = self.project.layout
        with Vertical(id="empty"):
            yield Static(  # the root's name may read `[x]`: text, not markup
                plain_lines(
                    f"There is no {layout.relative(layout.foundry)}/ folder in {self.foundry.root_label}, so this repository has no Foundry memory yet.\n\n"
                    "foundry init creates the tier folders, .foundry/config.json, the .gitignore lines for scratch and "
                    "metrics, .mcp.json (the MCP server) and the Claude Code hooks. Existing files are merged, never "
                    "overwritten.\n\nPress i to run it now, or q to quit."
                ),
                id="empty-text",
            )
        yield Footer()

    def action_init(self) -> None:
        self.confirm(
            "Run foundry init here?",
            [
                ".foundry/ with memory/facts, runbooks, blackboard, contracts; docs/adr/",
                ".foundry/config.json (profile standard), .gitignore lines, .mcp.json, .claude/settings.json hooks",
            ],
            lambda _answer: self._init(),
        )

    def busy_groups(self) -> frozenset[str]:
        """`foundry init` writes (the index under the memory lock, git's hooks): busy past BUSY_DELAY too."""
        return super().busy_groups() | {"init"}

    @work(thread=True, group="init", name="Not initialised", exit_on_error=False)
    def _init(self) -> Initialised:
        report = init_project(self.project.root, self.foundry.caller, None, self.today)
        return deliver(self, self.Initialised(report.text(), bool(report.problems)))

    def on_empty_screen_initialised(self, event: Initialised) -> None:
        self.notify(event.report, severity="error" if event.failed else "information", timeout=8)
        if not event.failed:
            self.app.pop_screen()
            self.foundry.open_memory()
