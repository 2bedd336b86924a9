"""Regenerate screenshots/*.svg: each screen of the terminal application on the demo memory.

    python scripts/screenshots.py

Runs the real app headless (Textual's run_test) on a fresh copy of the bundled demo,
with the date frozen and the file watcher off, so the pictures are reproducible.
"""

from __future__ import annotations

import asyncio
import datetime
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from textual.pilot import Pilot

from foundry_tui.demo import make_demo_copy, remove_demo_copy
from foundry_tui.tui.app import FoundryApp
from tests.tui_helpers import select, settle

OUT = Path(__file__).resolve().parent.parent / "screenshots"
TODAY = datetime.date(2026, 11, 30)


async def memory(pilot: Pilot[Any]) -> None:
    await select(pilot, "fact-0009")
    await pilot.press("slash", *"postgres migrations")
    await settle(pilot)


async def blackboard(pilot: Pilot[Any]) -> None:
    await pilot.press("f3")
    await settle(pilot)
    await pilot.press("down", "down", "down")
    await settle(pilot)


async def curator(pilot: Pilot[Any]) -> None:
    await pilot.press("f6")
    await settle(pilot)
    await select(pilot, "group:0", "#groups")
    await pilot.press("m")
    await settle(pilot)


async def keys(pilot: Pilot[Any], *pressed: str) -> None:
    await pilot.press(*pressed)
    await settle(pilot)


SHOTS: dict[str, Callable[[Pilot[Any]], Awaitable[None]]] = {
    "memory": memory,
    "blackboard": blackboard,
    "library": lambda pilot: keys(pilot, "f4"),
    "tokens": lambda pilot: keys(pilot, "f5"),
    "doctor": lambda pilot: keys(pilot, "d"),
    "curator": curator,
}


async def shoot(name: str, steps: Callable[[Pilot[Any]], Awaitable[None]]) -> None:
    root = make_demo_copy()
    try:
        app = FoundryApp(root, TODAY, watch=False, root_label="demo")
        async with app.run_test(size=(130, 40)) as pilot:
            await settle(pilot)
            await steps(pilot)
            (OUT / f"{name}.svg").write_text(app.export_screenshot(title=f"foundry tui --demo: {name}"))
    finally:
        remove_demo_copy(root)


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for name, steps in SHOTS.items():
        asyncio.run(shoot(name, steps))
        print(f"screenshots/{name}.svg")


if __name__ == "__main__":
    main()
