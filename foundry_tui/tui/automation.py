"""Driving the app headless (Pilot): shared by the tests, the screenshot script and the benchmark."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from foundry_tui.tui.widgets.fact_list import FactList


async def settle(pilot: Pilot[Any]) -> None:
    """Let workers finish and the screen catch up (a load chains into a search and the doctor)."""
    for _ in range(4):
        # Every worker but the file watcher, which runs until the app closes (and an empty
        # list would mean "all workers" to wait_for_complete).
        busy = [w for w in pilot.app.workers if w.group != "watch"]
        if busy:
            await pilot.app.workers.wait_for_complete(busy)
        await pilot.pause(0.02)


async def select(pilot: Pilot[Any], fact_id: str, list_id: str = "#index") -> None:
    """Move to `fact_id` in a list, as the arrow keys would."""
    facts = pilot.app.screen.query_one(list_id, FactList)
    facts.focus()
    facts.highlighted = None  # so that moving onto the entry the cursor is already on still counts
    facts.highlighted = facts.index_of(fact_id)
    await settle(pilot)
