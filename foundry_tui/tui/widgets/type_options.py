"""TypeOptions: the drop-down list of the search pane's TypeFilter: its prompt first (no
filter), then the fact types. Imported and mounted when the filter is first opened."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import OptionList


class TypeOptions(OptionList):
    """The types to choose from; escape, or the focus going elsewhere, closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss", "Close the list", show=False)]

    @dataclass
    class Dismissed(Message):
        """The list is to close without a new choice (escape, or the focus went elsewhere)."""

        options: TypeOptions

    def action_dismiss(self) -> None:
        self.post_message(self.Dismissed(self))

    def on_blur(self) -> None:
        self.post_message(self.Dismissed(self))
