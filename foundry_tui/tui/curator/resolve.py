"""ResolveScreen: resolve a contradiction in one confirmed step: pick the fact that stands
and whether the other is superseded (a new fact restating the one kept replaces both) or
retired, see exactly what will change on disk, then confirm."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Button, Label, Select, Static

from foundry_tui.core.curation.conflicts import Conflict, resolve_steps
from foundry_tui.tui.common.dialog import Dialog
from foundry_tui.tui.common.text import plain


class ResolveScreen(Dialog[tuple[str, str] | None]):
    """Dismisses with (the id that stands, "supersede" or "retire"), or None when cancelled."""

    def __init__(self, conflict: Conflict) -> None:
        super().__init__()
        self.conflict = conflict

    def compose(self) -> ComposeResult:
        a, b = self.conflict.a, self.conflict.b
        with VerticalScroll(id="dialog"):
            yield self.heading(f"Resolve {a.id} vs {b.id} ({self.conflict.differs()})")
            yield Label("The fact that stands")
            yield Select(
                [(plain(f"{f.id} · {f.title}"), f.id) for f in (a, b)], value=a.id, allow_blank=False, id="keep"
            )
            yield Label("The other one is")
            yield Select(
                [("superseded (a new fact restating the one kept replaces both)", "supersede"), ("retired", "retire")],
                value="supersede",
                allow_blank=False,
                id="how",
            )
            yield Static("", id="resolve-steps", markup=False)
            yield from self.buttons("Resolve", "resolve")

    def on_mount(self) -> None:
        self._show_steps()

    def _choice(self) -> tuple[str, str]:
        return str(self.query_one("#keep", Select).value), str(self.query_one("#how", Select).value)

    @on(Select.Changed)
    def _show_steps(self) -> None:
        keep_id, how = self._choice()
        keep, other = (
            (self.conflict.a, self.conflict.b) if keep_id == self.conflict.a.id else (self.conflict.b, self.conflict.a)
        )
        layout = self.project.layout
        steps = resolve_steps(keep, other, how, layout.relative(layout.facts_dir))
        self.query_one("#resolve-steps", Static).update("\n".join(f"  {line}" for line in steps))

    @on(Button.Pressed, "#resolve")
    def _resolve(self) -> None:
        self.dismiss(self._choice())
