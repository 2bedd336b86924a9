"""Regenerate screenshots/*.svg: each screen of the terminal application on the demo memory.

    python scripts/screenshots.py

Runs the real app headless (Textual's run_test) on a fresh copy of the bundled demo,
with the date frozen and the file watcher off, so the pictures are reproducible.
"""

from __future__ import annotations

import asyncio
import datetime
import json
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from textual.pilot import Pilot

from foundry_tui.demo import make_demo_copy, remove_demo_copy
from foundry_tui.tui.app import FoundryApp
from tests.tui_helpers import select, select_artifact, settle

OUT = Path(__file__).resolve().parent.parent / "screenshots"
TODAY = datetime.date(2026, 11, 30)


async def memory(pilot: Pilot[Any]) -> None:
    await select(pilot, "fact-0009")
    await pilot.press("slash", *"postgres migrations")
    await settle(pilot)


async def blackboard(pilot: Pilot[Any]) -> None:
    await pilot.press("f3")
    await settle(pilot)
    await select_artifact(pilot, "audit/perf-reviewer.json")  # the invalid finding, its place marked


async def curator(pilot: Pilot[Any]) -> None:
    await pilot.press("f6")
    await settle(pilot)
    await select(pilot, "group:0", "#groups")
    await pilot.press("m")
    await settle(pilot)


async def keys(pilot: Pilot[Any], *pressed: str) -> None:
    await pilot.press(*pressed)
    await settle(pilot)


def park_two(root: Path) -> None:
    """The demo trusting user:alice alone, with two of user:bob's writes parked for her."""
    from foundry_tui.core.gate.guard import guarded_memory_write
    from foundry_tui.core.memory.model.request import WriteRequest
    from foundry_tui.core.memory.project import Project
    from foundry_tui.core.trust.principal import Caller, Principal

    config = root / ".foundry" / "config.json"
    data = json.loads(config.read_text()) if config.exists() else {}
    config.write_text(json.dumps({**data, "trust": {"trusted": ["user:alice"]}}))
    if (root / ".git").exists():  # in git the trusted list is the one committed at HEAD (core/trust/committed.py)
        subprocess.run(
            [
                "git",
                "-c",
                "user.name=Alice Moreau",
                "-c",
                "user.email=alice@example.invalid",
                "commit",
                "-q",
                "-m",
                "Trust user:alice alone",
                "--",
                str(config),
            ],
            cwd=root,
            check=True,
            capture_output=True,
        )
    project = Project(root)
    bob = Caller(Principal("user", "bob"))
    for req in (
        WriteRequest(
            "API responses use snake_case JSON keys",
            "All API responses use snake_case keys, including error bodies.",
            "convention",
        ),
        WriteRequest("Feature flags live in LaunchDarkly", "One place to flip them.", "convention"),
    ):
        guarded_memory_write(project, bob, req, TODAY)


SHOTS: dict[str, Callable[[Pilot[Any]], Awaitable[None]]] = {
    "memory": memory,
    "blackboard": blackboard,
    "library": lambda pilot: keys(pilot, "f4"),
    "health": lambda pilot: keys(pilot, "f5"),
    "doctor": lambda pilot: keys(pilot, "d"),
    "curator": curator,
    "approvals": lambda pilot: keys(pilot, "f9"),
}
# Shots that need the demo changed first, and who the app acts for in them.
PREPARE: dict[str, Callable[[Path], None]] = {"approvals": park_two}


async def shoot(name: str, steps: Callable[[Pilot[Any]], Awaitable[None]]) -> None:
    from foundry_tui.core.trust.principal import Caller, Principal

    root = make_demo_copy()
    try:
        if name in PREPARE:
            PREPARE[name](root)
        app = FoundryApp(root, TODAY, watch=False, root_label="demo", caller=Caller(Principal("user", "alice")))
        async with app.run_test(size=(130, 40)) as pilot:
            await settle(pilot)
            await steps(pilot)
            (OUT / f"{name}.svg").write_text(app.export_screenshot(title=f"foundry tui --demo: {name}"))
    finally:
        remove_demo_copy(root)


def main() -> None:
    OUT.mkdir(exist_ok=True)
    wanted = sys.argv[1:] or list(SHOTS)  # `python scripts/screenshots.py approvals`: just that one
    for name, steps in ((n, SHOTS[n]) for n in wanted):
        asyncio.run(shoot(name, steps))
        print(f"screenshots/{name}.svg")


if __name__ == "__main__":
    main()
