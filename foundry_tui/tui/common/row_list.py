"""RowList: a virtualised list of rows, one line each (facts, near-duplicate groups,
missed searches, ...); highlighting a row asks for it to be shown. Only the visible
lines are ever rendered (the Line API), so ten thousand rows cost no more on screen
than ten, and a bounded cache keeps the rendered lines of the last screenfuls."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

# (row id, or None for a heading; what to show, or a function making it when it first
# comes into view: ten thousand rows should not mean ten thousand Text objects up front).
Row = tuple[str | None, Text | Callable[[], Text]]

# A rendered line is known by its row, the width, and whether it carries the cursor
# (focused or not): moving the cursor or the focus then needs no invalidation.
LineKey = tuple[int, int, bool, bool]


class RowList(ScrollView, can_focus=True):
    """Rows with ids (a fact id, `broken:<file>`, `group:<n>`, `missed:<n>`); headings have none."""

    DEFAULT_CSS = """
    RowList {
        height: 1fr;
        overflow-x: hidden;
    }
    RowList > .row-list--cursor {
        background: $block-cursor-blurred-background;
    }
    RowList:focus > .row-list--cursor {
        background: $block-cursor-background;
        color: $block-cursor-foreground;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "edge(-1)", "First", show=False),
        Binding("end", "edge(1)", "Last", show=False),
        Binding("enter", "choose", "Show", show=False),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {"row-list--cursor"}
    CACHED_LINES: ClassVar[int] = 512  # a few screenfuls, with and without the cursor

    highlighted: reactive[int | None] = reactive(None)

    @dataclass
    class RowHighlighted(Message):
        """The user moved to a row (a fact, a broken file, a group, a missed search)."""

        row_id: str
        row_list: RowList

        @property
        def control(self) -> RowList:
            return self.row_list

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: list[Row] = []
        self.height_hint = 0  # rows the list is as tall as, at least (replace_rows' `height`)
        self._quiet = False
        self.line_cache: LRUCache[LineKey, Strip] = LRUCache(self.CACHED_LINES)

    @property
    def row_ids(self) -> list[str]:
        return [row_id for row_id, _text in self.rows if row_id]

    @property
    def highlighted_id(self) -> str | None:
        """The id of the row under the cursor (None on a heading or with no cursor)."""
        if self.highlighted is None or self.highlighted >= len(self.rows):
            return None
        return self.rows[self.highlighted][0]

    def index_of(self, row_id: str) -> int | None:
        return next((i for i, (rid, _t) in enumerate(self.rows) if rid == row_id), None)

    def replace_rows(self, rows: list[Row], *, height: int | None = None) -> None:
        """Swap the rows, keeping the highlighted id where it still exists, else the first row
        with an id. `height`: the list's height when `rows` are only its first rows (the rest
        blank until the whole list replaces them)."""
        keep = (
            self.rows[self.highlighted][0]
            if self.highlighted is not None and self.highlighted < len(self.rows)
            else None
        )
        self.rows = rows
        self.height_hint = max(height or 0, len(rows))
        self.line_cache.clear()
        self.virtual_size = Size(self.size.width, self.height_hint)
        target = self.index_of(keep) if keep else None
        if target is None:
            target = next((i for i, (row_id, _t) in enumerate(rows) if row_id), None)
        # A refresh moves the cursor without the user: it must not change what is shown.
        self._quiet = True
        try:
            self.set_reactive(RowList.highlighted, None)
            self.highlighted = target
        finally:
            self._quiet = False
        self.refresh()

    def current_id(self) -> str | None:
        """The id of the row under the cursor, or None."""
        index = self.highlighted
        return self.rows[index][0] if index is not None and index < len(self.rows) else None

    def place(self, row_id: str) -> None:
        """Move the cursor to `row_id` if it is a row here, without posting RowHighlighted: a
        refresh placing it where its screen's selection already is."""
        target = self.index_of(row_id)
        if target is None or target == self.highlighted:
            return
        self._quiet = True
        try:
            self.highlighted = target
        finally:
            self._quiet = False

    # ---- rendering ---------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        index = y + self.scroll_offset.y
        width = self.scrollable_content_region.width
        if index >= len(self.rows):
            return Strip.blank(width, self.rich_style)
        cursor = index == self.highlighted
        key = (index, width, cursor, cursor and self.has_focus)
        strip = self.line_cache.get(key)
        if strip is None:
            strip = self._render_row(index, width, cursor)
            self.line_cache.set(key, strip)
        return strip

    def _render_row(self, index: int, width: int, cursor: bool) -> Strip:
        shown = self.rows[index][1]
        text = (shown() if callable(shown) else shown).copy()
        if text.style:  # Text.render leaves out the Text's own style: make it a span
            text.stylize(text.style, 0, len(text))
            text.style = ""
        text.no_wrap = True
        text.overflow = "ellipsis"
        text.truncate(width, overflow="ellipsis", pad=True)
        style: Style = self.get_component_rich_style("row-list--cursor") if cursor else self.rich_style
        segments = list(text.render(self.app.console))
        return Strip(Segment.apply_style(segments, style), text.cell_len).crop_extend(0, width, style)

    def notify_style_update(self) -> None:
        """A new theme (or any style change) makes every cached line stale."""
        super().notify_style_update()
        self.line_cache.clear()
        self.refresh()

    def on_focus(self) -> None:
        """The row under the cursor comes into view when the list gains the focus (it may
        have been placed there by a refresh while the list was hidden or scrolled away)."""
        if self.highlighted is not None:
            self.scroll_to_region(Region(0, self.highlighted, 1, 1), animate=False, immediate=True)
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def on_resize(self) -> None:
        self.virtual_size = Size(self.size.width, max(self.height_hint, len(self.rows)))

    # ---- moving --------------------------------------------------------------------------------

    def _step(self, start: int, direction: int) -> int | None:
        index = start
        while 0 <= index < len(self.rows):
            if self.rows[index][0]:
                return index
            index += direction
        return None

    def action_move(self, direction: int) -> None:
        start = (self.highlighted if self.highlighted is not None else -direction) + direction
        found = self._step(start, direction)
        if found is not None:
            self.highlighted = found

    def action_page(self, direction: int) -> None:
        height = max(1, self.scrollable_content_region.height - 1)
        start = min(max((self.highlighted or 0) + direction * height, 0), max(len(self.rows) - 1, 0))
        found = self._step(start, direction) or self._step(start, -direction)
        if found is not None:
            self.highlighted = found

    def action_edge(self, direction: int) -> None:
        found = self._step(len(self.rows) - 1, -1) if direction > 0 else self._step(0, 1)
        if found is not None:
            self.highlighted = found

    def action_choose(self) -> None:
        """Show the row under the cursor (it may have been placed there by a refresh)."""
        if self.highlighted is not None and self.highlighted < len(self.rows):
            row_id = self.rows[self.highlighted][0]
            if row_id:
                self.post_message(self.RowHighlighted(row_id, self))

    def on_click(self, event: events.Click) -> None:
        index = event.y + self.scroll_offset.y
        if 0 <= index < len(self.rows) and self.rows[index][0]:
            self.focus()
            self.highlighted = index

    def watch_highlighted(self, new: int | None) -> None:
        if new is None or new >= len(self.rows):
            self.refresh()
            return
        self.scroll_to_region(Region(0, new, 1, 1), animate=False)
        self.refresh()
        row_id = self.rows[new][0]
        if row_id and not self._quiet:
            self.post_message(self.RowHighlighted(row_id, self))
