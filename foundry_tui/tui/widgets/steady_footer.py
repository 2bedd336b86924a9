"""SteadyFooter: Textual's Footer, whose keys are styled once when they mount.

Each of Textual's footer keys has a `compact` reactive that starts True and is then bound
to the footer's (False unless asked for): at mount its watcher adds the `-compact` class
and the binding takes it off again, so every key was styled three times, each time with
its two component styles; on the memory screen that was about 90 of the 300 style
applications before the first frame. These keys are given, before they mount, the value
and the class they end with (the footer's; the command palette's key is not bound and
keeps its own, True), so nothing changes at mount: the same footer, the same keys, the
same classes, styled once.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # (Textual exports the Footer, not its keys)


class SteadyFooter(Footer):
    """A Footer whose keys do not change their `compact` state as they mount."""

    def compose(self) -> ComposeResult:
        for widget in super().compose():
            if isinstance(widget, FooterKey):
                compact = True if widget.has_class("-command-palette") else self.compact
                widget.set_reactive(FooterKey.compact, compact)
                widget.set_class(compact, "-compact", update=False)
            yield widget
