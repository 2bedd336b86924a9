"""Helpers for driving the real Textual app with Pilot."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot

from foundry_tui.tui.app import FoundryApp
from foundry_tui.tui.widgets.fact_list import FactList

from .helpers import TODAY


def make_app(root: Path, *, watch: bool = False) -> FoundryApp:
    """The app on `root` with a frozen date and no path on screen."""
    return FoundryApp(root, TODAY, watch=watch, root_label="demo")


async def settle(pilot: Pilot[None]) -> None:
    """Let workers finish and the screen catch up (loads chain into searches)."""
    for _ in range(4):
        # Every worker but the file watcher, which runs until the app closes (and an empty
        # list would mean "all workers" to wait_for_complete).
        busy = [w for w in pilot.app.workers if w.group != "watch"]
        if busy:
            await pilot.app.workers.wait_for_complete(busy)
        await pilot.pause(0.02)


async def select(pilot: Pilot[None], fact_id: str, list_id: str = "#index") -> None:
    """Move to `fact_id` in a list, as the arrow keys would."""
    facts = pilot.app.screen.query_one(list_id, FactList)
    facts.focus()
    facts.highlighted = None  # so that moving onto the entry the cursor is already on still counts
    facts.highlighted = facts.index_of(fact_id)
    await settle(pilot)


def option_ids(pilot: Pilot[None], list_id: str) -> list[str]:
    return pilot.app.screen.query_one(list_id, FactList).row_ids
