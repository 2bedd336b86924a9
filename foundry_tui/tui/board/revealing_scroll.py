"""RevealingScroll: a scroll area that brings a line of content it has just been given
into view, once that content is laid out (the board's artifact and contract panes)."""

from __future__ import annotations

from collections.abc import Callable

from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from foundry_tui.tui.common.text import shown_lines

REVEAL_WINDOW = 1.0  # seconds during which a reveal follows the layout of new content (a loaded machine lays out late)


def row_of(body: Static, text: str, line: int) -> int:
    """The row, within the scroll area holding `body`, where line `line` of `text` (which
    `body` shows, wrapped) is drawn."""
    width = max(1, body.content_region.width)
    before = shown_lines(text).split("\n")[: line - 1]
    rows = sum(max(1, len(Content(part).wrap(width))) for part in before)
    return body.virtual_region.y + rows


class RevealingScroll(VerticalScroll):
    """A scroll area that can bring a row of content it is about to lay out into view."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.pending: tuple[Callable[[], int], Callable[[], bool]] | None = None
        self.requests = 0  # which reveal the window timer belongs to

    @property
    def revealing(self) -> bool:
        """A reveal is still following the layout (tests wait for it)."""
        return self.pending is not None

    def on_mount(self) -> None:
        self.screen.screen_layout_refresh_signal.subscribe(self, self._laid_out)

    def reveal(self, row: Callable[[], int], still_wanted: Callable[[], bool]) -> None:
        """Scroll as little as brings the row `row()` measures into view with two rows after
        it, so what is above it (a head, a list of violations) stays in sight as far as it can.

        The content was just replaced and is laid out on one of the screen's next layout
        refreshes, not necessarily the first: for REVEAL_WINDOW seconds every layout
        refresh measures again and corrects the scroll; it is dropped as soon as
        `still_wanted()` is false (another artifact was chosen)."""
        self.pending = (row, still_wanted)
        self.requests += 1
        request = self.requests
        self.set_timer(REVEAL_WINDOW, lambda: self._close(request))
        self.call_after_refresh(self._apply)

    def _laid_out(self, _screen: object) -> None:
        if self.pending is not None:
            self._apply()

    def _close(self, request: int) -> None:
        if request == self.requests:
            self._apply()
            self.pending = None

    def _apply(self) -> None:
        if self.pending is None:
            return
        row_of_line, still_wanted = self.pending
        if not still_wanted():
            self.pending = None
            return
        row = row_of_line()
        height = self.scrollable_content_region.height
        # Below the fold, or above it (measured on an earlier, unfinished layout): correct it.
        if row >= self.scroll_y + height or row < self.scroll_y:
            self.scroll_to(y=max(0, row + 3 - height), animate=False, immediate=True)
