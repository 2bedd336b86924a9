"""ArtifactTree: the artifacts of every wave that pass the board's filters, under their
waves (in the order the waves happened), each with its verdict (a mark before the name, the
word after it); a new one is highlighted
for a moment, and the one marked for a diff says so."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from foundry_tui.core.artefacts.waves import ArtifactFilter, InspectedArtifact, Wave
from foundry_tui.tui.common.text import plain, shown
from foundry_tui.tui.common.theme import ThemeColours


def verdict(item: InspectedArtifact, colours: ThemeColours) -> Text:
    """`valid`, `unreadable`, `no contract` or `N violations`, in the theme's colours."""
    status = item.status
    if status == "valid":
        return Text(status, style=colours.success)
    if status == "no contract":
        return Text(status, style=colours.warning)
    return Text(status, style=f"bold {colours.error}")


def verdict_mark(item: InspectedArtifact, colours: ThemeColours) -> Text:
    """The verdict in one cell, put before the artifact's name so that a narrow pane, which
    cuts the end of the row, still shows it (and without colour too): `✓` valid, `?` no
    contract, `✗` unreadable or broken."""
    status = item.status
    if status == "valid":
        return Text("✓", style=colours.success)
    if status == "no contract":
        return Text("?", style=colours.warning)
    return Text("✗", style=f"bold {colours.error}")


class ArtifactTree(Tree[InspectedArtifact | None]):
    """Wave nodes (no data) holding artifact leaves (their InspectedArtifact)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"artifact-tree--fresh"}

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("blackboard", id=id)
        self.show_root = False
        self.wave_nodes: dict[str, TreeNode[InspectedArtifact | None]] = {}  # the waves shown

    def show(
        self,
        waves: list[Wave],
        only: ArtifactFilter,
        colours: ThemeColours,
        fresh: set[str],
        marked: str | None,
        keep: str | None,
    ) -> None:
        """Redraw; the cursor goes back to the artifact `keep` (a key) when it is still shown."""
        self.clear()
        self.wave_nodes = {}
        fresh_style = self.get_component_rich_style("artifact-tree--fresh")
        target: TreeNode[InspectedArtifact | None] | None = None
        shown_count = total = 0
        for wave in waves:
            matching = [item for item in wave.items if only.matches(item)]
            total += len(wave.items)
            shown_count += len(matching)
            if only.active and not matching:
                continue
            label = plain(wave.name, style="bold")
            if only.active:
                label.append(f"  {len(matching)} of {len(wave.items)}", style="dim")
            node = self.root.add(label, data=None, expand=True)
            self.wave_nodes[wave.name] = node
            for item in matching:
                art = item.artifact
                leaf = Text.assemble(
                    verdict_mark(item, colours), " ", (shown(art.name), "bold"), " ", verdict(item, colours)
                )
                if item.key == marked:
                    leaf.append("  ◆ diff base", style="italic")
                leaf.append("  " + shown(art.summary()[:60]), style="dim")
                if item.key in fresh:
                    leaf.stylize(fresh_style)
                added = node.add_leaf(leaf, data=item)
                if item.key == keep:
                    target = added
        if not waves:
            self.root.add_leaf("No waves yet: agents write them with blackboard_write.", data=None)
        elif only.active and not shown_count:
            self.root.add_leaf("No artifact matches the filters (c clears them).", data=None)
        self.border_title = "Artifacts"
        self.border_subtitle = f"{shown_count} of {total}" if only.active else f"{total}"
        if target is not None:
            self.call_after_refresh(self.move_cursor, target)
