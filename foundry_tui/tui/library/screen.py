"""LibraryScreen: runbooks (with their triggers) and ADRs (with their status and the
active facts whose `source` cites them), each rendered as markdown. `show_adr` opens one
ADR (the memory screen's `o` on a fact whose source is `adr-NNNN`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Footer, Markdown, OptionList, TabbedContent, TabPane
from textual.widgets.option_list import Option

from foundry_tui.core.artefacts.adr import ADR_REF, list_adrs
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
        numbers: dict[int, str] = field(default_factory=dict)  # ADR number → path

    def __init__(self) -> None:
        super().__init__()
        self.texts: dict[str, str] = {}
        self.adr_paths: dict[int, str] = {}  # ADR number → its path (the option's id)
        self.wanted_adr: int | None = None  # to open once the ADRs are read (show_adr)

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
        citing: dict[int, list[tuple[str, str]]] = {}
        with self.project.lock:
            self.project.sync()
            for fact in self.project.store.active_facts(self.today):
                match = ADR_REF.fullmatch(fact.source.strip())
                if match:
                    citing.setdefault(int(match.group(1)), []).append((fact.id, fact.title))
        listed = list_adrs(layout)
        adrs = [
            (
                a.path,
                Text.assemble(
                    (f"{a.number:04d}", "bold"),
                    f" {shown(a.title)}",
                    (f"\n  {shown(a.status)}", "dim"),
                    (_cited(citing.get(a.number, [])), "dim"),
                ),
            )
            for a in listed
        ]
        texts = {str(path): _read(layout, path) for path, _ in [*books, *adrs]}
        for a in listed:  # the facts that cite it, above the document
            facts = citing.get(a.number, [])
            if facts:
                lines = "\n".join(f"- {fact_id}: {title}" for fact_id, title in facts)
                texts[str(a.path)] = (
                    f"**Cited by {len(facts)} active fact{'s' if len(facts) != 1 else ''}:**\n\n{lines}\n\n---\n\n{texts[str(a.path)]}"
                )
        loaded = self.Loaded(books, adrs, texts)
        loaded.numbers = {a.number: str(a.path) for a in listed}
        return deliver(self, loaded)

    def on_library_screen_loaded(self, event: Loaded) -> None:
        books, adrs, self.texts = event.books, event.adrs, event.texts
        self.query_one(StatusHeader).show_count(
            "docs", f"{counted(len(books), 'runbook')}, {counted(len(adrs), 'ADR')}"
        )
        for list_id, items, empty in (("#runbooks", books, "No runbooks yet."), ("#adrs", adrs, "No ADRs yet.")):
            options: list[Option | None] = [Option(label, id=str(path)) for path, label in items]
            self.query_one(list_id, DocumentList).set_options(options or [Option(empty, disabled=True)])
        self.adr_paths = event.numbers
        self._open("#runbook-text", str(books[0][0]) if books else None)
        self._open("#adr-text", str(adrs[0][0]) if adrs else None)
        if self.wanted_adr is not None:
            self.show_adr(self.wanted_adr)

    def show_adr(self, number: int) -> None:
        """Open ADR `number` on the ADRs tab (once they are read, if they are not yet)."""
        path = self.adr_paths.get(number)
        if path is None:
            self.wanted_adr = number  # shown when the ADRs arrive
            return
        self.wanted_adr = None
        self.query_one(TabbedContent).active = "adrs-tab"
        adrs = self.query_one("#adrs", DocumentList)
        adrs.highlighted = adrs.get_option_index(path)
        adrs.focus()
        self._open("#adr-text", path)

    def _open(self, target: str, path: str | None) -> None:
        self.query_one(target, Markdown).update(shown_lines(self.texts.get(path, "")) if path else "")

    @on(OptionList.OptionHighlighted, "#runbooks")
    def _runbook(self, event: OptionList.OptionHighlighted) -> None:
        self._open("#runbook-text", event.option.id)

    @on(OptionList.OptionHighlighted, "#adrs")
    def _adr(self, event: OptionList.OptionHighlighted) -> None:
        self._open("#adr-text", event.option.id)


MAX_CITING_SHOWN = 5  # the facts named in an ADR's row; the document lists them all


def _cited(facts: list[tuple[str, str]]) -> str:
    if not facts:
        return ""
    ids = ", ".join(fact_id for fact_id, _title in facts[:MAX_CITING_SHOWN])
    more = f" and {len(facts) - MAX_CITING_SHOWN} more" if len(facts) > MAX_CITING_SHOWN else ""
    return f"\n  cited by {ids}{more}"


def _read(layout: Layout, path: Path) -> str:
    try:
        text = layout.read_text(path)  # the root's guard: no link out of it, no FIFO
    except (OSError, UnicodeDecodeError) as exc:
        return f"*cannot be read: {exc}*"
    if text.startswith("---"):  # runbook frontmatter: show the document, not its YAML
        parts = text.split("---", 2)
        text = parts[2] if len(parts) == 3 else text
    return text
