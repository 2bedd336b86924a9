"""TypeFilter: the search pane's filter by fact type ("any type", or one type), picked from
a drop-down list.

It looks and behaves like Textual's `Select` with a blank choice (enter, space, up or down
open the list; escape or a click elsewhere closes it), but it is one widget until the list
is first opened: `Select` composes six widgets and parses three style sheets before the
memory screen's first paint, about 13 ms of it at 10,000 facts (ADR 0013).
The list (`TypeOptions`) is mounted the first time it is needed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

# The list's module (and Textual's OptionList) is imported when the list is first opened.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from textual.widgets import OptionList

    from foundry_tui.tui.memory.type_options import TypeOptions


class TypeFilter(Widget, can_focus=True):
    """The chosen type (None: any), shown in a bordered box with an arrow, as Select shows it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,down,space,up", "open", "Choose a type", show=False),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {"type-filter--prompt", "type-filter--arrow"}
    ALLOW_SELECT = False

    value: reactive[str | None] = reactive(None, init=False)
    expanded: reactive[bool] = reactive(False, init=False)

    @dataclass
    class Changed(Message):
        """The user chose another type (None: any type)."""

        type_filter: TypeFilter
        value: str | None

        @property
        def control(self) -> TypeFilter:
            return self.type_filter

    def __init__(self, types: Sequence[str], prompt: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.types = tuple(types)
        self.prompt = prompt

    def render(self) -> Text:
        width = self.content_region.width
        label_width = max(width - 2, 0)  # the arrow and the space before it, as Select lays them out
        label = Text(self.value if self.value is not None else self.prompt, no_wrap=True, overflow="ellipsis")
        if self.value is None:
            label.stylize(self._colour_of("type-filter--prompt"))
        label.truncate(label_width, overflow="ellipsis", pad=True)
        arrow = "▲" if self.expanded else "▼"
        label.append(" ")
        label.append(arrow, self._colour_of("type-filter--arrow"))
        return label

    def _colour_of(self, component: str) -> Style:
        # The colour alone (blended over the box): the background drawn under it is the box's
        # own, which changes with the focus.
        return Style(color=self.get_component_rich_style(component).color)

    def action_open(self) -> None:
        self.expanded = True

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.expanded = not self.expanded

    def watch_value(self, value: str | None) -> None:
        self.post_message(self.Changed(self, value))

    def watch_expanded(self, expanded: bool) -> None:
        self.set_class(expanded, "-expanded")
        if not expanded:
            return
        from textual.widgets.option_list import Option

        from foundry_tui.tui.memory.type_options import TypeOptions

        found = self.query(TypeOptions)
        if found:
            options = found.first()
        else:
            options = TypeOptions(Option(Text(self.prompt, style="dim")), *(Option(t) for t in self.types))
            self.mount(options)
        # Under the box, from its left edge and as wide as it: the list is laid out in the box's
        # content region, inside its border and padding.
        gutter = self.styles.gutter
        options.styles.offset = (-gutter.left, self.size.height + gutter.bottom)
        options.styles.width = self.outer_size.width
        options.highlighted = self.types.index(self.value) + 1 if self.value in self.types else 0
        options.focus(scroll_visible=False)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.value = None if event.option_index == 0 else self.types[event.option_index - 1]
        self._close()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()  # moving in the list chooses nothing

    def on_type_options_dismissed(self, event: TypeOptions.Dismissed) -> None:
        event.stop()
        if self.expanded:
            self._close(refocus=self.app.focused is None or self.app.focused is event.options)

    def _close(self, refocus: bool = True) -> None:
        self.expanded = False
        if refocus:
            self.focus()
