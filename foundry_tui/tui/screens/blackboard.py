"""BlackboardScreen: waves and their artifacts (summary, schema, producer, size,
~tokens, and whether each is valid against its contract today); the selected
artifact's JSON, highlighted and scrollable, with its violations."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.highlight import highlight
from textual.message import Message
from textual.widgets import Footer, Static, Tree

from foundry_tui.core.artefacts.blackboard import Artifact, list_waves, read_artifacts
from foundry_tui.core.artefacts.contracts import load_contract, violations
from foundry_tui.core.errors import FoundryError
from foundry_tui.tui.screens.live import LiveScreen
from foundry_tui.tui.text import plain, plain_lines, shown, shown_lines
from foundry_tui.tui.theme import ThemeColours
from foundry_tui.tui.widgets.status_header import StatusHeader
from foundry_tui.tui.workers import deliver


class Checked:
    """An artifact and its contract check, made in a worker."""

    def __init__(self, artifact: Artifact, problems: list[str] | None, error: str | None) -> None:
        self.artifact = artifact
        self.problems = problems
        self.error = error

    def verdict(self, colours: ThemeColours) -> Text:
        if self.artifact.problem:
            return Text("unreadable", style=f"bold {colours.error}")
        if self.error:
            return Text("no contract", style=colours.warning)
        count = len(self.problems or [])
        if not count:
            return Text("valid", style=colours.success)
        return Text(f"{count} violation{'s' if count > 1 else ''}", style=f"bold {colours.error}")


class BlackboardScreen(LiveScreen):
    """Waves on the left, the chosen artifact on the right."""

    @dataclass
    class Loaded(Message):
        waves: list[tuple[str, list[Checked]]]

    def __init__(self) -> None:
        super().__init__()
        self.shown: tuple[str, str] | None = None  # (wave, name) of the artifact on the right

    def compose(self) -> ComposeResult:
        yield StatusHeader()
        with Horizontal(id="panes"):
            tree: Tree[Checked | None] = Tree("blackboard", id="waves")
            tree.show_root = False
            yield tree
            with VerticalScroll(id="artifact"):
                yield Static("Select an artifact.", id="artifact-head")
                yield Static("", id="artifact-problems")
                yield Static("", id="artifact-json")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(Tree).border_title = "Waves"
        self.query_one(Tree).focus()
        self.query_one("#artifact").border_title = "Artifact"

    @work(thread=True, exclusive=True, group="blackboard", name="Blackboard not read", exit_on_error=False)
    def load(self) -> Loaded:
        layout = self.project.layout
        waves: list[tuple[str, list[Checked]]] = []
        for wave in list_waves(layout):
            checked = []
            for art in read_artifacts(layout, wave):
                problems, error = None, None
                if not art.problem:
                    try:
                        problems = violations(load_contract(layout, art.schema), art.data)
                    except FoundryError as exc:
                        error = str(exc)
                checked.append(Checked(art, problems, error))
            waves.append((wave, checked))
        return deliver(self, self.Loaded(waves))

    def on_blackboard_screen_loaded(self, event: Loaded) -> None:
        waves = event.waves
        self.query_one(StatusHeader).show_count("waves", f"{len(waves)} wave{'s' if len(waves) != 1 else ''}")
        colours = ThemeColours.of(self.app)
        tree: Tree[Checked | None] = self.query_one(Tree)
        tree.clear()
        if not waves:
            tree.root.add_leaf("No waves yet: agents write them with blackboard_write.", data=None)
        for wave, items in waves:
            node = tree.root.add(plain(wave, style="bold"), data=None, expand=True)
            for item in items:
                art = item.artifact
                label = Text.assemble(
                    (shown(art.name), "bold"), " ", item.verdict(colours), ("  " + shown(art.summary()[:60]), "dim")
                )
                node.add_leaf(label, data=item)
                if (art.wave, art.name) == self.shown:  # read again (a change on disk, a new theme): show it anew
                    self._show_artifact(item)

    def on_tree_node_highlighted(self, event: Tree.NodeHighlighted[Checked | None]) -> None:
        if event.node.data is not None:
            self._show_artifact(event.node.data)

    def _show_artifact(self, item: Checked) -> None:
        art = item.artifact
        self.shown = (art.wave, art.name)
        colours = ThemeColours.of(self.app)
        size = len(art.text.encode("utf-8"))
        head = Text.assemble(
            (shown(f"{art.wave}/{art.name}"), "bold"),
            "\n",
            ("schema ", "dim"),
            shown(art.schema),
            ("  by ", "dim"),
            shown(art.producer),
            ("  ", ""),
            f"{size} bytes, ~{art.tokens} tokens  ",
            item.verdict(colours),
            "\n",
            (shown(art.summary()), "italic"),
        )
        self.query_one("#artifact-head", Static).update(head)
        problems = art.problem or item.error or "\n".join(f"- {p}" for p in item.problems or [])
        self.query_one("#artifact-problems", Static).update(
            plain_lines(problems, style=colours.error) if problems else ""
        )
        self.query_one("#artifact-json", Static).update(
            highlight(shown_lines(art.text), language="json") if art.text else ""
        )
