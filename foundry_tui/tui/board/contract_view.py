"""ContractView: the contract (JSON Schema) the shown artifact names, beside it, with
the rules the artifact breaks marked and the first of them scrolled into view."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.style import Style
from textual.widgets import Static

from foundry_tui.tui.board.artifact_view import marked_json
from foundry_tui.tui.board.revealing_scroll import RevealingScroll, row_of
from foundry_tui.tui.common.text import plain, plain_lines


class ContractView(RevealingScroll):
    """The schema as indented JSON, or why there is none to show."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"contract-view--rule"}
    BORDER_TITLE = "Contract"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.shown_now: tuple[str, tuple[tuple[int, int], ...]] | None = None

    def compose(self) -> ComposeResult:
        yield Static("", id="contract-json")

    def show(self, contract_id: str, text: str | None, problem: str | None, rules: list[tuple[int, int]]) -> None:
        """`rules`: spans of `text` to mark (the broken rules)."""
        body = self.query_one("#contract-json", Static)
        self.border_title = plain(f"Contract {contract_id}")  # an artifact names it: never markup
        if text is None:
            body.update(plain_lines(problem or f"no contract '{contract_id}'"))
        else:
            style = Style.from_rich_style(self.get_component_rich_style("contract-view--rule"))
            body.update(marked_json(text, rules, style))
        self.border_subtitle = f"{len(rules)} rule{'' if len(rules) == 1 else 's'} broken" if rules else ""
        shown_now = (contract_id, tuple(rules))
        if shown_now != self.shown_now:  # another contract or other rules: start at the first rule
            self.shown_now = shown_now
            self.scroll_home(animate=False, immediate=True)
            if text is not None and rules:
                first_line = text.count("\n", 0, min(start for start, _end in rules)) + 1
                self.reveal(lambda: row_of(body, text, first_line), lambda: self.shown_now == shown_now)

    def clear(self) -> None:
        self.shown_now = None
        self.border_title = "Contract"
        self.border_subtitle = ""
        self.query_one("#contract-json", Static).update("")
