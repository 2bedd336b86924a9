"""FactDetail: every frontmatter field of one fact, its body as markdown, its file,
whether it is active (and why not), its supersedes chain both ways, and, while a
search is active, why it scored what it did."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown, Static

from foundry_tui.core.memory.search import Hit, format_score
from foundry_tui.core.memory.views import Overview
from foundry_tui.tui.widgets.fact_list import FactList, Row


class ChainList(FactList):
    """The supersedes chain: newer and older versions, each selectable."""


class FactDetail(VerticalScroll):
    """The selected fact, or the parse error of a selected broken file."""

    BORDER_TITLE = "Fact"

    def compose(self) -> ComposeResult:
        yield Static("Select a fact in the index, the search results or the prune list.", id="detail-head")
        yield Static("", id="detail-fields")
        yield ChainList(id="chain")
        yield Static("", id="detail-score")
        yield Markdown("", id="detail-body")

    def show(self, fact_id: str | None, overview: Overview, hit: Hit | None, query: str) -> None:
        head = self.query_one("#detail-head", Static)
        fields = self.query_one("#detail-fields", Static)
        chain = self.query_one(ChainList)
        score = self.query_one("#detail-score", Static)
        body = self.query_one("#detail-body", Markdown)
        if fact_id is not None and fact_id.startswith("broken:"):
            name = fact_id.removeprefix("broken:")
            reason = next((b.reason for b in overview.broken if b.name == name), "")
            head.update(Text.assemble(("broken file ", "bold red"), (name, "bold")))
            fields.update(
                Text.assemble(("file  ", "dim"), f".foundry/memory/facts/{name}\n", ("error ", "dim"), (reason, "red"))
            )
            chain.display = False
            score.update("")
            body.update("")
            return
        fact = overview.facts.get(fact_id) if fact_id else None
        if fact is None:
            head.update("Select a fact in the index, the search results or the prune list.")
            fields.update("")
            chain.display = False
            score.update("")
            body.update("")
            return
        inactive_reason = overview.inactive.get(fact.id)
        state = (
            Text(f"inactive: {inactive_reason}", style="bold yellow")
            if inactive_reason
            else Text("active", style="bold green")
        )
        head.update(Text.assemble((fact.id, "bold"), f" · {fact.type} · ", state, "\n", (fact.title, "bold")))
        table = Table.grid(padding=(0, 1))
        table.add_column(style="dim", no_wrap=True)
        table.add_column()
        table.add_row("file", f".foundry/memory/facts/{fact.id}.md")
        table.add_row("scope", fact.scope)
        table.add_row("tags", ", ".join(fact.tags) or "—")
        table.add_row("confidence", fact.confidence)
        table.add_row("source", self._source(fact.source, overview))
        table.add_row("created", fact.created)
        table.add_row("expires", fact.expires or "null")
        table.add_row("supersedes", fact.supersedes or "null")
        for key, value in fact.extras.items():
            table.add_row(str(key), str(value))
        fields.update(table)
        newer, older = overview.newer(fact.id), overview.older(fact.id)
        options: list[Row] = []
        for label, ids in (("newer ", newer), ("older ", older)):
            for i in ids:
                title = f" {overview.facts[i].title}" if i in overview.facts else ""
                options.append((i, Text.assemble((label, "dim"), (i, "bold"), title)))
        chain.replace_rows(options)
        chain.display = bool(options)
        score.update(self._breakdown(hit, query) if query.strip() else "")
        body.update(fact.body)

    @staticmethod
    def _source(source: str, overview: Overview) -> str:
        """A source naming an ADR is shown as a link to its file."""
        from foundry_tui.core.artefacts.adr import ADR_REF

        match = ADR_REF.fullmatch(source.strip())
        if not match:
            return source
        found = overview.adrs.get(f"adr-{int(match.group(1)):04d}")
        return f"{source} → docs/adr/{found[0]} ({found[1]})" if found else f"{source} (not found in docs/adr/)"

    @staticmethod
    def _breakdown(hit: Hit | None, query: str) -> Text:
        if hit is None:
            return Text(f'Not among the hits for "{query}".', style="dim")
        text = Text.assemble(("score ", "dim"), (format_score(hit.score), "bold green"), f" = {hit.points_text()}")
        for match in hit.matches:
            text.append(f"\n  {match.describe()}")
        text.append(
            f"\n  × {hit.type_multiplier:g} ({hit.fact.type}) × {hit.confidence_multiplier:g} (confidence {hit.fact.confidence})"
        )
        return text
