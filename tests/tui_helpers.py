"""Helpers for driving the real Textual app with Pilot."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot

from foundry_tui.tui.app import FoundryApp
from foundry_tui.tui.automation import select, settle
from foundry_tui.tui.widgets.fact_list import FactList

from .helpers import TODAY


def make_app(root: Path, *, watch: bool = False) -> FoundryApp:
    """The app on `root` with a frozen date and no path on screen."""
    return FoundryApp(root, TODAY, watch=watch, root_label="demo")


def option_ids(pilot: Pilot[None], list_id: str) -> list[str]:
    return pilot.app.screen.query_one(list_id, FactList).row_ids


__all__ = ["make_app", "option_ids", "select", "settle"]
