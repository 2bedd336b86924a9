"""FactDetail: every frontmatter field of one fact, its body as markdown, its file,
whether it is active (and why not), its supersedes chain both ways, and, while a
search is active, why it scored what it did."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from foundry_tui.core.memory.model.facts import Fact, clip
from foundry_tui.core.memory.model.hits import Hit, format_score
from foundry_tui.core.memory.reports.views import Overview
from foundry_tui.core.paths import Layout
from foundry_tui.tui.common.row_list import Row, RowList
from foundry_tui.tui.common.text import REASON_MARKERS, highlight_terms, marked, plain, shown, shown_lines
from foundry_tui.tui.common.theme import ThemeColours
from foundry_tui.tui.memory.search_pane import match_style

MAX_MATCH_LINES = 5  # the body's lines holding a searched word shown under the score
MAX_MATCH_CHARS = 160  # each clipped to this
NOTHING_SELECTED = "Select a fact in the index, the search results or the prune list."


def reasoning_paragraphs(body: str) -> str:
    """The body for Markdown, each `**Why:**` / `**How to apply:**` line starting a paragraph of
    its own: written on consecutive lines (the spec's example), Markdown would join them into
    one. Nothing changes inside a fenced code block."""
    out: list[str] = []
    fenced = False
    for line in body.split("\n"):
        stripped = line.lstrip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and stripped.startswith(REASON_MARKERS) and out and out[-1].strip():
            out.append("")
        out.append(line)
    return "\n".join(out)


class ChainList(RowList):
    """The supersedes chain: newer and older versions, each selectable."""


class FactDetail(VerticalScroll):
    """The selected fact, or the parse error of a selected broken file. `show` fills one
    section at a time: head, fields, chain, score, body."""

    BORDER_TITLE = "Fact"

    def __init__(self, layout: Layout, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.files = layout  # the project's layout (Widget.layout is Textual's)
        self._pending_body: str | None = None  # the body to show once its widget is mounted

    def compose(self) -> ComposeResult:
        yield Static(NOTHING_SELECTED, id="detail-head")
        yield Static("", id="detail-fields")
        yield ChainList(id="chain")
        yield Static("", id="detail-score")
        yield Static("", id="detail-matches")  # the body's lines that hold a searched word
        # The body's Markdown widget (about 70 ms of imports, markdown_it) is mounted after
        # the first paint, by `mount_body` or the first `show`, whichever comes first.

    def mount_body(self) -> None:
        """Mount the body's Markdown widget, empty, if no fact has been shown yet."""
        if not self.query("#detail-body") and self._pending_body is None:
            self._pending_body = ""
            self._mount_body()

    def _show_body(self, text: str) -> None:
        bodies = self.query("#detail-body")
        if bodies:
            from textual.widgets import Markdown

            bodies.first(Markdown).update(text)
            return
        # Not mounted yet: the widget (and markdown_it's imports) waits until the screen as it
        # is now has been painted; the latest text shown meanwhile is the one it gets.
        if self._pending_body is None:
            self.call_after_refresh(self._mount_body)
        self._pending_body = text

    def _mount_body(self) -> None:
        from textual.widgets import Markdown

        text, self._pending_body = self._pending_body, None
        if text is None or not self.is_attached:  # the app ended (q, a signal) before the refresh came
            return
        bodies = self.query("#detail-body")
        if bodies:
            bodies.first(Markdown).update(text)
        else:
            self.mount(Markdown(text, id="detail-body"))

    def show(self, fact_id: str | None, overview: Overview, hit: Hit | None, query: str) -> None:
        colours = ThemeColours.of(self.app)
        if fact_id is not None and fact_id.startswith("broken:"):
            self._show_broken(fact_id.removeprefix("broken:"), overview, colours)
            return
        fact = overview.facts.get(fact_id) if fact_id else None
        if fact is None:
            self._clear(NOTHING_SELECTED)
            return
        self._show_head(fact, overview, colours, hit)
        self._show_fields(fact, overview)
        self._show_chain(fact, overview)
        self._show_score(hit, query, colours)
        self._show_matches(fact.body, hit, colours)
        self._show_body(reasoning_paragraphs(shown_lines(fact.body)))

    # ---- the sections ----------------------------------------------------------------------

    def _clear(self, head: str | Text, fields: str | Text = "") -> None:
        """Everything but a head line (and the fields): nothing selected, or a broken file."""
        self.query_one("#detail-head", Static).update(head)
        self.query_one("#detail-fields", Static).update(fields)
        self.query_one(ChainList).display = False
        self.query_one("#detail-score", Static).update("")
        self._show_matches("", None, None)
        self._show_body("")

    def _show_broken(self, name: str, overview: Overview, colours: ThemeColours) -> None:
        reason = next((b.reason for b in overview.broken if b.name == name), "")
        path = self.files.relative(self.files.facts_dir / name)
        self._clear(
            Text.assemble(("broken file ", f"bold {colours.error}"), (shown(name), "bold")),
            Text.assemble(("file  ", "dim"), f"{shown(path)}\n", ("error ", "dim"), (shown(reason), colours.error)),
        )

    def _show_head(self, fact: Fact, overview: Overview, colours: ThemeColours, hit: Hit | None = None) -> None:
        inactive_reason = overview.inactive.get(fact.id)
        state = (
            Text(f"inactive: {inactive_reason}", style=f"bold {colours.warning}")
            if inactive_reason
            else Text("active", style=f"bold {colours.success}")
        )
        title = Text(shown(fact.title), style="bold")
        if hit is not None:
            highlight_terms(title, [m.term for m in hit.matches if m.title], match_style(colours))
        head = Text.assemble((fact.id, "bold"), f" · {fact.type} · ", state, "\n", title)
        self.query_one("#detail-head", Static).update(head)

    def _show_fields(self, fact: Fact, overview: Overview) -> None:
        table = Table.grid(padding=(0, 1))
        table.add_column(style="dim", no_wrap=True)
        table.add_column(overflow="fold")  # a long path goes on the next line, never cut
        rows = [
            ("file", self.files.relative(self.files.fact_path(fact.id))),
            ("scope", fact.scope),
            ("tags", ", ".join(fact.tags) or "—"),
            ("confidence", fact.confidence),
            ("source", self._source(fact.source, overview)),
            ("created", fact.created),
            ("expires", fact.expires or "null"),
            ("supersedes", fact.supersedes or "null"),
            *((str(key), self._extra(fact, str(key), value, overview)) for key, value in fact.extras.items()),
        ]
        for name, value in rows:  # a table cell given as a str is parsed as markup: give Text
            table.add_row(plain(name), plain(value))
        self.query_one("#detail-fields", Static).update(table)

    @staticmethod
    def _extra(fact: Fact, key: str, value: object, overview: Overview) -> str:
        """An unknown frontmatter field as shown; `refs`: one per line with its state (issue 30)."""
        if key == "refs" and fact.id in overview.code:
            return "\n".join(overview.code[fact.id])
        return str(value)

    def _show_chain(self, fact: Fact, overview: Overview) -> None:
        rows: list[Row] = []
        for label, ids in (("newer ", overview.newer(fact.id)), ("older ", overview.older(fact.id))):
            for i in ids:
                title = f" {shown(overview.facts[i].title)}" if i in overview.facts else ""
                rows.append((i, Text.assemble((label, "dim"), (i, "bold"), title)))
        chain = self.query_one(ChainList)
        chain.replace_rows(rows)
        chain.display = bool(rows)

    def _show_score(self, hit: Hit | None, query: str, colours: ThemeColours) -> None:
        """While a search is active: why this fact scored what it did (or that it did not match)."""
        score = self.query_one("#detail-score", Static)
        if not query.strip():
            score.update("")
        elif hit is None:
            score.update(plain(f'Not among the hits for "{query}".', style="dim"))
        else:
            text = Text.assemble(
                ("score ", "dim"), (format_score(hit.score), f"bold {colours.success}"), f" = {hit.points_text()}"
            )
            for match in hit.matches:
                text.append(f"\n  {shown(match.describe())}")
            text.append(
                f"\n  × {hit.type_multiplier:g} ({hit.fact.type}) × {hit.confidence_multiplier:g} (confidence {hit.fact.confidence})"
            )
            score.update(text)

    def _show_matches(self, body: str, hit: Hit | None, colours: ThemeColours | None) -> None:
        """The body's lines holding a word the search matched, the words marked (the body
        itself is Markdown, drawn as such): at most MAX_MATCH_LINES, each clipped, its
        `**Why:**` or `**How to apply:**` shown bold without the asterisks (`marked`)."""
        matches = self.query_one("#detail-matches", Static)
        terms = [m.term for m in hit.matches if m.body] if hit is not None else []
        lines = [line.strip() for line in body.splitlines() if any(t in line.lower() for t in terms)]
        if not lines or colours is None:
            matches.update("")
            matches.display = False
            return
        text = Text("in the body:", style="dim")
        for line in lines[:MAX_MATCH_LINES]:
            text.append("\n  ")
            text.append(highlight_terms(marked(clip(line, MAX_MATCH_CHARS)), terms, match_style(colours)))
        if len(lines) > MAX_MATCH_LINES:
            text.append(f"\n  … and {len(lines) - MAX_MATCH_LINES} more lines", style="dim")
        matches.update(text)
        matches.display = True

    def _source(self, source: str, overview: Overview) -> str:
        """A source naming an ADR is shown as a link to its file."""
        from foundry_tui.core.artefacts.adr import ADR_REF

        match = ADR_REF.fullmatch(source.strip())
        if not match:
            return source
        found = overview.adrs.get(f"adr-{int(match.group(1)):04d}")
        folder = self.files.relative(self.files.adr_dir)
        return f"{source} → {folder}/{found[0]} ({found[1]})" if found else f"{source} (not found in {folder}/)"
