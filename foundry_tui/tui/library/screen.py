"""LibraryScreen: runbooks (with their triggers) and ADRs (with their status), each
rendered as markdown."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Footer, Markdown, OptionList, TabbedContent, TabPane
from textual.widgets.option_list import Option

from foundry_tui.core.artefacts.adr import list_adrs
from foundry_tui.core.artefacts.runbooks import list_runbooks
from foundry_tui.core.paths import Layout
from foundry_tui.tui.common.live import LiveScreen
from foundry_tui.tui.common.status_header import StatusHeader
from foundry_tui.tui.common.text import counted, shown, shown_lines
from foundry_tui.tui.common.workers import deliver


class DocumentList(OptionList):
    """Documents by file; choosing one shows it."""


class LibraryScreen(LiveScreen):
    """Two tabs: runbooks and ADRs."""

    @dataclass
    class Loaded(Message):
        books: list[tuple[Path, Text]]
        adrs: list[tuple[Path, Text]]
        texts: dict[str, str]

    def __init__(self) -> None:
        super().__init__()
        self.texts: dict[str, str] = {}

    def compose(self) -> ComposeResult:
        yield StatusHeader()
        with TabbedContent(id="library"):
            with TabPane("Runbooks", id="runbooks-tab"), Horizontal():
                yield DocumentList(id="runbooks")
                yield Markdown("", id="runbook-text")
            with TabPane("ADRs", id="adrs-tab"), Horizontal():
                yield DocumentList(id="adrs")
                yield Markdown("", id="adr-text")
        yield Footer()

    @work(thread=True, exclusive=True, group="library", name="Runbooks and ADRs not read", exit_on_error=False)
    def load(self) -> Loaded:
        layout = self.project.layout
        books = [
            (
                b.path,
                Text.assemble(
                    (shown(b.slug), "bold"),
                    f" — {shown(b.title)}",
                    (f"\n  trigger: {shown(b.trigger)}" if b.trigger else "", "dim"),
                ),
            )
            for b in list_runbooks(layout)
        ]
        adrs = [
            (
                a.path,
                Text.assemble((f"{a.number:04d}", "bold"), f" {shown(a.title)}", (f"\n  {shown(a.status)}", "dim")),
            )
            for a in list_adrs(layout)
        ]
        texts = {str(path): _read(layout, path) for path, _ in [*books, *adrs]}
        return deliver(self, self.Loaded(books, adrs, texts))

    def on_library_screen_loaded(self, event: Loaded) -> None:
        books, adrs, self.texts = event.books, event.adrs, event.texts
        self.query_one(StatusHeader).show_count(
            "docs", f"{counted(len(books), 'runbook')}, {counted(len(adrs), 'ADR')}"
        )
        for list_id, items, empty in (("#runbooks", books, "No runbooks yet."), ("#adrs", adrs, "No ADRs yet.")):
            options: list[Option | None] = [Option(label, id=str(path)) for path, label in items]
            self.query_one(list_id, DocumentList).set_options(options or [Option(empty, disabled=True)])
        self._open("#runbook-text", str(books[0][0]) if books else None)
        self._open("#adr-text", str(adrs[0][0]) if adrs else None)

    def _open(self, target: str, path: str | None) -> None:
        self.query_one(target, Markdown).update(shown_lines(self.texts.get(path, "")) if path else "")

    @on(OptionList.OptionHighlighted, "#runbooks")
    def _runbook(self, event: OptionList.OptionHighlighted) -> None:
        self._open("#runbook-text", event.option.id)

    @on(OptionList.OptionHighlighted, "#adrs")
    def _adr(self, event: OptionList.OptionHighlighted) -> None:
        self._open("#adr-text", event.option.id)


def _read(layout: Layout, path: Path) -> str:
    try:
        text = layout.read_text(path)  # the root's guard: no link out of it, no FIFO
    except (OSError, UnicodeDecodeError) as exc:
        return f"*cannot be read: {exc}*"
    if text.startswith("---"):  # runbook frontmatter: show the document, not its YAML
        parts = text.split("---", 2)
        text = parts[2] if len(parts) == 3 else text
    return text
