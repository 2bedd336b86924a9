"""IndexGauge: the header's INDEX.md gauge, a stock ProgressBar that keeps its fill true to
its width. Textual's bar rounds its fill to the half cells of the width it has when told
and keeps that when its width changes (the header's 14 cells, the compact line's 10, and
the passing widths of a first layout), so the gauge tells it again after every resize."""

from __future__ import annotations

from textual import events
from textual.widgets import ProgressBar


class IndexGauge(ProgressBar):
    """The index's tokens against its budget, drawn at the width the gauge has now."""

    def on_resize(self, _event: events.Resize) -> None:
        self.call_after_refresh(self.redraw)

    def redraw(self) -> None:
        """Tell the bar its fill again, from empty, at the width it has now."""
        progress = self.progress
        self.update(progress=0)
        self.update(progress=progress)
