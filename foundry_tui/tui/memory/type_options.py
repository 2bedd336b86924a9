"""TypeOptions: the drop-down list of the search pane's TypeFilter: its prompt first (no
filter), then the fact types. Imported and mounted when the filter is first opened."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

TYPED_WITHIN = 0.7  # seconds: letters typed closer together than this make one search, as in Select


class TypeOptions(OptionList):
    """The types to choose from; escape, or the focus going elsewhere, closes it. Typing
    moves to the first option that starts with what was typed, as Select's list does, so a
    letter typed while it is open is never the screen's or the app's key (q, x, d, …)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss", "Close the list", show=False)]
    ALLOW_SELECT = False

    @dataclass
    class Dismissed(Message):
        """The list is to close without a new choice (escape, or the focus went elsewhere)."""

        options: TypeOptions

    def __init__(self, *options: Option) -> None:
        super().__init__(*options)
        self._typed = ""
        self._typed_at = 0.0

    def check_consume_key(self, key: str, character: str | None = None) -> bool:
        return character is not None and character.isprintable()

    def on_key(self, event: events.Key) -> None:
        # Characters typed, not keys bound: the search, as an Input takes its text.
        if event.character is None or not event.is_printable:
            return
        event.stop()
        event.prevent_default()
        now = time.monotonic()
        self._typed = (self._typed if now - self._typed_at < TYPED_WITHIN else "") + event.character.lower()
        self._typed_at = now
        for index in range(self.option_count):
            if str(self.get_option_at_index(index).prompt).lower().startswith(self._typed):
                self.highlighted = index
                break

    def on_click(self, event: events.Click) -> None:
        event.stop()  # a click in the list (a choice, its border) is not a click on the box

    def action_dismiss(self) -> None:
        self.post_message(self.Dismissed(self))

    def on_blur(self) -> None:
        self.post_message(self.Dismissed(self))
        self.suppress_click()  # the click that took the focus away must not open it again
