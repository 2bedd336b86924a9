"""ArtifactView: one artifact: its name, schema, producer, write time, size, ~tokens and
verdict; its violations, each with its JSON pointer, line and column; and its JSON as
written, highlighted, with the place of every violation marked."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.content import Content
from textual.highlight import highlight
from textual.style import Style
from textual.widgets import Static

from foundry_tui.core.artefacts.waves import InspectedArtifact, stamp
from foundry_tui.tui.board.artifact_tree import verdict
from foundry_tui.tui.board.revealing_scroll import RevealingScroll, row_of
from foundry_tui.tui.common.text import plain_lines, shown, shown_lines
from foundry_tui.tui.common.theme import ThemeColours

NOTHING_SELECTED = "Select an artifact."


def marked_json(text: str, spans: list[tuple[int, int]], style: Style) -> Content:
    """`text` highlighted as JSON with `spans` (offsets into `text`) marked. Control
    characters are shown escaped, so each offset is moved by what escaping added before it."""

    def moved(offset: int) -> int:
        return len(shown_lines(text[:offset]))

    content = highlight(shown_lines(text), language="json")
    for start, end in spans:
        if end > start:
            content = content.stylize(style, moved(start), moved(end))
    return content


class ArtifactView(RevealingScroll):
    """Scrolls as one; `show` replaces what it shows."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"artifact-view--violation"}
    BORDER_TITLE = "Artifact"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.key: str | None = None  # the artifact shown

    def compose(self) -> ComposeResult:
        yield Static(NOTHING_SELECTED, id="artifact-head")
        yield Static("", id="artifact-problems")
        yield Static("", id="artifact-json")

    def show(self, item: InspectedArtifact, colours: ThemeColours) -> None:
        """Show `item`; another artifact than before is scrolled to its first violation's
        place when that is below the fold, else starts at the top (the same one, redrawn,
        stays put)."""
        art = item.artifact
        head = Text.assemble(
            (shown(f"{art.wave}/{art.name}"), "bold"),
            "\n",
            ("schema ", "dim"),
            shown(art.schema),
            ("  by ", "dim"),
            shown(item.agent),
            ("  written ", "dim"),
            f"{stamp(item.written)} UTC",
            "\n",
            f"{item.size} bytes, ~{item.tokens} tokens  ",
            verdict(item, colours),
            "\n",
            (shown(art.summary()), "italic"),
        )
        self.query_one("#artifact-head", Static).update(head)
        problems = Text()
        for number, line in enumerate(item.problem_lines()):
            problems.append(("\n" if number else "") + "- " + shown_lines(line), style=colours.error)
        self.query_one("#artifact-problems", Static).update(problems)
        violation = Style.from_rich_style(self.get_component_rich_style("artifact-view--violation"))
        spans = [(v.start, v.end) for v in item.violations]
        body = marked_json(art.text, spans, violation) if art.text else plain_lines("")
        self.query_one("#artifact-json", Static).update(body)
        self.border_subtitle = item.status
        if item.key != self.key:
            self.key = item.key
            self.scroll_home(animate=False, immediate=True)
            if item.violations:
                first_line, key = item.violations[0].line, item.key
                self.reveal(lambda: self.json_row(art.text, first_line), lambda: self.key == key)

    def json_row(self, text: str, line: int) -> int:
        return row_of(self.query_one("#artifact-json", Static), text, line)

    def clear(self) -> None:
        self.key = None
        self.query_one("#artifact-head", Static).update(NOTHING_SELECTED)
        self.query_one("#artifact-problems", Static).update("")
        self.query_one("#artifact-json", Static).update("")
        self.border_subtitle = ""
