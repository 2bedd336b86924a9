"""KeyFooter: the screen's keys on the bottom line, drawn as Textual's Footer draws them,
by one widget.

Textual's Footer is a container of one widget per key: on the memory screen that is 15
widgets to compose, mount, style and render before the first frame (about 35 ms of it at
10,000 facts), and it composes them only after the screen's first refresh, so every
screen's first frame had no keys and a second one added them. This widget reads the
screen's active bindings as it mounts and whenever they change, and draws the same line:
` key description ` for each binding shown (one per action, the first bound key), dimmed
when disabled, the command palette's key at the right behind `▏`, a hovered key
highlighted, a click presses the key (a bell when it is disabled), a key's tooltip on
hover, and the mouse wheel scrolls the keys that do not fit. Binding groups are drawn as
their keys one by one (this application defines none).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.screen import Screen
from textual.widget import Widget


@dataclass(frozen=True)
class ShownKey:
    """One key as the footer shows it."""

    key: str
    display: str
    description: str
    enabled: bool
    tooltip: str


class KeyFooter(Widget, can_focus=False):
    """The active key bindings of the screen, on one line."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {
        "key-footer--key",
        "key-footer--description",
        "key-footer--hover",
        "key-footer--separator",
    }

    def __init__(self) -> None:
        super().__init__()
        self.keys: tuple[ShownKey, ...] = ()
        self.palette: ShownKey | None = None
        self._hovered: ShownKey | None = None
        self._scrolled = 0
        self._spans: list[tuple[int, int, ShownKey]] = []  # (first cell, end, key) as last drawn

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self.read_keys()

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen[object]) -> None:
        # As the Footer: not while the terminal has lost focus (Textual then blurs the focused
        # widget and the keys would flip to the screen's and back), nor once detached.
        if not self.app.app_focus or not self.is_attached or screen is not self.screen:
            return
        if self.read_keys():
            self.refresh()

    def read_keys(self) -> bool:
        """Take the screen's active bindings; whether the keys shown change."""
        app = self.app
        active = self.screen.active_bindings
        keys: list[ShownKey] = []
        actions: set[str] = set()
        for key, (_node, binding, enabled, tooltip) in active.items():
            if binding.show and binding.action not in actions:  # as the Footer: the first key of an action
                actions.add(binding.action)
                keys.append(ShownKey(key, app.get_key_display(binding), binding.description, enabled, tooltip))
        palette = None
        if app.ENABLE_COMMAND_PALETTE and app.COMMAND_PALETTE_BINDING in active:
            _node, binding, enabled, _tooltip = active[app.COMMAND_PALETTE_BINDING]
            palette = ShownKey(
                binding.key,
                app.get_key_display(binding),
                binding.description,
                enabled,
                binding.tooltip or binding.description,
            )
        changed = (tuple(keys), palette) != (self.keys, self.palette)
        if changed:
            self.keys, self.palette = tuple(keys), palette
            self._hovered = None  # the mouse is over whatever is drawn there next
            self.tooltip = None
        return changed

    # ---- drawing ------------------------------------------------------------------------------

    def _item_style(self, key: ShownKey) -> Style:
        """A key's own style: the footer's, or the hover highlight's over it; dim when disabled."""
        style = self.rich_style
        if key == self._hovered:
            hover = self.get_component_styles("key-footer--hover")
            background = self.styles.background + hover.background
            style += Style(color=hover.color.rich_color, bgcolor=background.rich_color)
        if not key.enabled:
            style += Style(dim=True)
        return style

    def _item(self, key: ShownKey, key_padding: int, description_padding: tuple[int, int]) -> Text:
        base = self._item_style(key)
        key_style = base + self.get_component_rich_style("key-footer--key", partial=True)
        description_style = base + self.get_component_rich_style("key-footer--description", partial=True)
        if not key.description:
            return Text(key.display, style=key_style)
        left, right = description_padding
        pad = " " * key_padding
        return Text.assemble(
            (f"{pad}{key.display}{pad}", key_style),
            (f"{' ' * left}{key.description}{' ' * right}", description_style),
        )

    def render(self) -> Text:
        width = self.size.width
        palette = Text()
        if self.palette is not None:
            separator = self.get_component_styles("key-footer--separator").color
            colour = (self.styles.background + separator).rich_color
            palette = Text.assemble(("▏", Style(color=colour, bgcolor=self.rich_style.bgcolor)))
            palette.append_text(self._item(self.palette, 0, (1, 0)))
            palette.append(" ", self._item_style(self.palette))
        room = max(0, width - palette.cell_len)
        # The cells no key covers have the footer's background only, as the Footer's do.
        line = Text(style=Style(bgcolor=self.rich_style.bgcolor), no_wrap=True, overflow="crop")
        spans: list[tuple[int, int, ShownKey]] = []
        for key in self.keys:
            start = line.cell_len
            line.append_text(self._item(key, 1, (0, 1)))
            spans.append((start, line.cell_len, key))
        wanted = max(0, min(self._scrolled, line.cell_len - room))
        start = _first_char_from(line.plain, wanted)  # a wide character is not cut in two
        scrolled = self._scrolled = cell_len(line.plain[:start])
        shown = line[start:] if start else line
        shown.truncate(room, pad=True)
        # What a click or the mouse finds: the keys as far as they are drawn, then the palette's
        # key with its `▏` (the Footer counts its border as part of it too).
        self._spans = [
            (max(0, first - scrolled), min(end - scrolled, room), key)
            for first, end, key in spans
            if end - scrolled > 0 and first - scrolled < room
        ]
        if self.palette is not None:
            self._spans.append((room, room + palette.cell_len, self.palette))
        shown.append_text(palette)
        return shown

    # ---- the mouse ------------------------------------------------------------------------------

    def key_at(self, x: int) -> ShownKey | None:
        """The key drawn at cell `x`, if any."""
        for start, end, key in self._spans:
            if start <= x < end and x < self.size.width:
                return key
        return None

    def on_mouse_move(self, event: events.MouseMove) -> None:
        key = self.key_at(event.x)
        if key != self._hovered:
            self._hovered = key
            self.tooltip = key.tooltip if key is not None and key.tooltip else None
            self.refresh()

    def on_leave(self, _event: events.Leave) -> None:
        if self._hovered is not None:
            self._hovered = None
            self.tooltip = None
            self.refresh()

    def on_mouse_down(self, event: events.MouseDown) -> None:
        key = self.key_at(event.x)
        if key is None:
            return
        if key.enabled:
            self.app.simulate_key(key.key)
        else:
            self.app.bell()

    def _scroll_keys(self, cells: int) -> None:
        self._scrolled = max(0, self._scrolled + cells)
        self.refresh()

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        self._scroll_keys(4)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        self._scroll_keys(-4)


def _first_char_from(text: str, cells: int) -> int:
    """The index of the first character of `text` that starts at or after cell `cells`."""
    width = 0
    for index, char in enumerate(text):
        if width >= cells:
            return index
        width += cell_len(char)
    return len(text)
