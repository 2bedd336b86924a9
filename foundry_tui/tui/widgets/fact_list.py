"""FactList: a virtualised list of facts; highlighting one asks for it to be shown."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option


class FactList(OptionList):
    """An OptionList whose option ids are fact ids (or `broken:<file>` for a broken file)."""

    @dataclass
    class FactHighlighted(Message):
        """The user moved to a fact (or a broken file) in one of the lists."""

        fact_id: str
        fact_list: FactList

        @property
        def control(self) -> FactList:
            return self.fact_list

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option.id:
            self.post_message(self.FactHighlighted(event.option.id, self))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(self.FactHighlighted(event.option.id, self))

    def replace_options(self, options: list[Option | None]) -> None:
        """Swap the options, keeping the highlighted id where it still exists."""
        keep = self.highlighted_option.id if self.highlighted_option is not None else None
        self.set_options(options)
        for index, option in enumerate(self.options):
            if option.id is not None and (keep is None or option.id == keep):
                self.highlighted = index  # the kept entry, else the first selectable one
                break
