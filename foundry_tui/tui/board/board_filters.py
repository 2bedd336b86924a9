"""BoardFilters: what the board shows: text inside the artifacts, an agent, a schema,
valid or invalid. Every change posts the whole filter as one ArtifactFilter. Escape in
the filters leaves them for the artifacts (the screen's `focus_artifacts`), not for the
memory screen (the app's Escape)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Select

from foundry_tui.core.artefacts.waves import VALIDITIES, ArtifactFilter
from foundry_tui.tui.common.text import plain


class BoardFilters(Horizontal):
    """An Input and three Selects; `offer` sets the agents and schemas to choose from."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "screen.focus_artifacts", "Artifacts")]

    @dataclass
    class Changed(Message):
        only: ArtifactFilter

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.choices: tuple[list[str], list[str]] = ([], [])

    def compose(self) -> ComposeResult:
        yield Input(placeholder="find in JSON…", id="filter-text")
        yield Select[str]([], prompt="any agent", id="filter-agent")
        yield Select[str]([], prompt="any schema", id="filter-schema")
        yield Select[str]([(v, v) for v in VALIDITIES], prompt="valid or not", id="filter-validity")

    def offer(self, agents: list[str], schemas: list[str]) -> None:
        """The agents and schemas present; a choice that is still present stays chosen."""
        if (agents, schemas) == self.choices:
            return
        self.choices = (agents, schemas)
        for select_id, values in (("#filter-agent", agents), ("#filter-schema", schemas)):
            select: Select[str] = self.query_one(select_id, Select)
            kept = select.value
            with self.prevent(Select.Changed):
                select.set_options([(plain(v), v) for v in values])
                if isinstance(kept, str) and kept in values:
                    select.value = kept
        self.post_message(self.Changed(self.current()))

    def current(self) -> ArtifactFilter:
        def chosen(select_id: str) -> str | None:
            value = self.query_one(select_id, Select).value
            return value if isinstance(value, str) else None

        return ArtifactFilter(
            agent=chosen("#filter-agent"),
            schema=chosen("#filter-schema"),
            validity=chosen("#filter-validity"),
            text=self.query_one("#filter-text", Input).value,
        )

    def cycle_validity(self) -> None:
        """Any → invalid only → valid only → any."""
        select: Select[str] = self.query_one("#filter-validity", Select)
        order: list[str | None] = [None, "invalid", "valid"]
        now = select.value if isinstance(select.value, str) else None
        following = order[(order.index(now) + 1) % len(order)]
        if following is None:
            select.clear()
        else:
            select.value = following

    def clear_all(self) -> None:
        self.query_one("#filter-text", Input).value = ""
        for select_id in ("#filter-agent", "#filter-schema", "#filter-validity"):
            self.query_one(select_id, Select).clear()

    @on(Input.Changed, "#filter-text")
    @on(Select.Changed)
    def _changed(self) -> None:
        self.post_message(self.Changed(self.current()))
