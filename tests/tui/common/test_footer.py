"""Every screen's keys: Textual's own Footer, fed from the screen's active bindings. What a
user sees of it: the keys once the screen has settled (the Footer composes its keys on the
frame after the screen's first), following the focus, a click pressing a key."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.pilot import Pilot
from textual.widgets import Footer, Input, Label

import foundry_tui.tui
from tests.tui_helpers import drawn, text_of


class Keys(App[None]):
    CSS_PATH = str(Path(foundry_tui.tui.__file__).parent / "app.tcss")  # the application's styles
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "note('a')", "Alpha"),
        Binding("b", "note('b')", "Beta", tooltip="the second letter"),
        Binding("c", "off", "Off"),  # check_action says None: shown, dimmed
        Binding("x", "note('a')", "Alpha again"),  # the same action: the Footer shows it once
        Binding("z", "note('z')", "Hidden", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.notes: list[str] = []

    def compose(self) -> ComposeResult:
        yield Label("body")
        yield Field()
        yield Footer()

    def action_note(self, key: str) -> None:
        self.notes.append(key)

    def action_off(self) -> None:
        self.notes.append("off")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return None if action == "off" else True


class Field(Input):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+g", "note('g')", "Go")]


@asynccontextmanager
async def unfocused(width: int) -> AsyncIterator[tuple[Keys, Pilot[None]]]:
    """The test app, `width` columns wide, nothing focused (the app's keys in the footer),
    once the screen has settled."""
    app = Keys()
    async with app.run_test(size=(width, 6)) as pilot:
        app.set_focus(None)
        await pilot.pause()
        await pilot.pause()
        yield app, pilot


async def test_the_keys_are_shown_once_the_screen_has_settled_and_follow_the_focus() -> None:
    async with unfocused(100) as (app, pilot):
        text = text_of(drawn(app, -1))
        assert text.startswith(" a Alpha  b Beta  c Off ")
        assert text.rstrip().endswith("▏^p palette")
        assert "Hidden" not in text and "Alpha again" not in text and "Go" not in text
        app.query_one(Field).focus()  # an Input takes the printable keys: only its own binding shows
        await pilot.pause()
        await pilot.pause()
        text = text_of(drawn(app, -1))
        assert text.startswith(" ^g Go ") and "Alpha" not in text


async def test_a_click_presses_the_key_and_a_disabled_one_does_nothing() -> None:
    async with unfocused(100) as (app, pilot):
        text = text_of(drawn(app, -1))
        await pilot.click(Footer, offset=(text.index("Beta"), 0))
        await pilot.click(Footer, offset=(text.index("Off"), 0))
        await pilot.click(Footer, offset=(text.index("Alpha"), 0))
        await pilot.pause()
        assert app.notes == ["b", "a"]
