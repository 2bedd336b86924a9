"""CoalescedFooter: Textual's Footer (a SteadyFooter: its keys styled once), recomposed once for the key bindings that change
several times before the screen is next refreshed.

A screen's first show changes its bindings four times (focus, twice the stack, an idle
callback); Textual's Footer recomposes for each, every time mounting all its keys again,
on the UI thread. This one waits for the refresh and recomposes once, with the bindings
as they are then: the same footer, drawn once.
"""

from __future__ import annotations

from textual.screen import Screen

from foundry_tui.tui.widgets.steady_footer import SteadyFooter


class CoalescedFooter(SteadyFooter):
    """A Footer whose recomposes, asked for before one refresh, are made once."""

    _recompose_asked = False

    def bindings_changed(self, screen: Screen[object]) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus or not self.is_attached or screen is not self.screen:
            return
        if not self._recompose_asked:
            self._recompose_asked = True
            self.call_after_refresh(self._recompose_once)

    async def _recompose_once(self) -> None:
        self._recompose_asked = False
        await self.recompose()
