"""EmptyScreen: shown for a repository without `.foundry/`: says what is missing and
offers to run `foundry init`."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Static

from foundry_tui.core.init import init_project
from foundry_tui.tui.screens.confirm import ConfirmScreen

if TYPE_CHECKING:
    from foundry_tui.tui.app import FoundryApp


class EmptyScreen(Screen[None]):
    """No memory here yet."""

    BINDINGS = [Binding("i", "init", "Run foundry init")]

    def compose(self) -> ComposeResult:
        app = cast("FoundryApp", self.app)
        with Vertical(id="empty"):
            yield Static(
                f"There is no .foundry/ folder in {app.root_label}, so this repository has no Foundry memory yet.\n\n"
                "foundry init creates the tier folders, .foundry/config.json, the .gitignore lines for scratch and "
                "metrics, .mcp.json (the MCP server) and the Claude Code hooks. Existing files are merged, never "
                "overwritten.\n\nPress i to run it now, or q to quit.",
                id="empty-text",
            )
        yield Footer()

    def action_init(self) -> None:
        def confirmed(answer: str | None) -> None:
            if answer is not None:
                self._init()

        self.app.push_screen(
            ConfirmScreen(
                "Run foundry init here?",
                [
                    ".foundry/ with memory/facts, runbooks, blackboard, contracts; docs/adr/",
                    ".foundry/config.json (profile standard), .gitignore lines, .mcp.json, .claude/settings.json hooks",
                ],
            ),
            confirmed,
        )

    @work(thread=True, group="init")
    def _init(self) -> None:
        app = cast("FoundryApp", self.app)
        report = init_project(app.project.root, today=app.today)
        self.app.call_from_thread(self._done, report.text(), bool(report.problems))

    def _done(self, text: str, failed: bool) -> None:
        self.notify(text, severity="error" if failed else "information", timeout=8)
        if not failed:
            cast("FoundryApp", self.app).open_memory()
