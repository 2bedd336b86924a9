"""ContractView: the contract (JSON Schema) the shown artifact names, beside it."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.highlight import highlight
from textual.widgets import Static

from foundry_tui.tui.text import plain, plain_lines, shown_lines


class ContractView(VerticalScroll):
    """The schema as indented JSON, or why there is none to show."""

    BORDER_TITLE = "Contract"

    def compose(self) -> ComposeResult:
        yield Static("", id="contract-json")

    def show(self, contract_id: str, text: str | None, problem: str | None) -> None:
        body = self.query_one("#contract-json", Static)
        self.border_title = plain(f"Contract {contract_id}")  # an artifact names it: never markup
        if text is None:
            body.update(plain_lines(problem or f"no contract '{contract_id}'"))
        else:
            body.update(highlight(shown_lines(text), language="json"))

    def clear(self) -> None:
        self.border_title = "Contract"
        self.query_one("#contract-json", Static).update("")
