"""KeyFooter: Textual's Footer line, drawn by one widget from the screen's active bindings."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import ClassVar

import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.command import CommandPalette
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Footer, Input, Label

import foundry_tui.tui
from foundry_tui.tui.common.key_footer import KeyFooter, _first_char_from
from tests.tui_helpers import Cell, drawn, text_of


class Keys(App[None]):
    CSS_PATH = str(Path(foundry_tui.tui.__file__).parent / "app.tcss")  # the footer's styles
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "note('a')", "Alpha"),
        Binding("b", "note('b')", "Beta", tooltip="the second letter"),
        Binding("c", "off", "Off"),  # check_action says None: shown, dimmed
        Binding("x", "note('a')", "Alpha again"),  # the same action: the Footer shows it once
        Binding("z", "note('z')", "Hidden", show=False),
    ]

    def __init__(self, footer: Widget) -> None:
        super().__init__()
        self.footer = footer
        self.notes: list[str] = []

    def compose(self) -> ComposeResult:
        yield Label("body")
        yield Field()
        yield self.footer

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
    """The test app, `width` columns wide, with nothing focused (the app's keys in the footer)."""
    app = Keys(KeyFooter())
    async with app.run_test(size=(width, 6)) as pilot:
        app.set_focus(None)
        await pilot.pause()
        yield app, pilot


async def bottom_line(footer: Widget, width: int, focus_field: bool = False) -> list[Cell]:
    app = Keys(footer)
    async with app.run_test(size=(width, 6)) as pilot:
        if focus_field:
            app.query_one(Field).focus()
        else:
            app.set_focus(None)
        await pilot.pause()
        await pilot.pause()
        return drawn(app, -1)


@pytest.mark.parametrize("width", [100, 60, 30])
@pytest.mark.parametrize("focus_field", [False, True])
async def test_the_key_footer_draws_textuals_footer_line(width: int, focus_field: bool) -> None:
    textual_line = await bottom_line(Footer(), width, focus_field)
    ours = await bottom_line(KeyFooter(), width, focus_field)
    assert text_of(ours) == text_of(textual_line)
    assert ours == textual_line
    text = text_of(ours)
    assert text.rstrip().endswith("▏^p palette")
    if width == 100 and focus_field:  # an Input takes the printable keys
        assert text.startswith(" ^g Go ") and "Alpha" not in text
    elif width == 100:
        assert text.startswith(" a Alpha  b Beta  c Off ")
        assert "Hidden" not in text and "Alpha again" not in text and "Go" not in text


async def test_keys_are_there_when_it_mounts_and_follow_the_focus() -> None:
    app = Keys(KeyFooter())
    async with app.run_test(size=(100, 6)) as pilot:
        footer = app.query_one(KeyFooter)
        assert not footer.children  # one widget, no key widgets
        app.set_focus(None)
        await pilot.pause()
        assert [k.description for k in footer.keys] == ["Alpha", "Beta", "Off"]
        assert [k.enabled for k in footer.keys] == [True, True, False]
        assert footer.palette is not None and footer.palette.description == "palette"
        app.query_one(Field).focus()  # an Input takes the printable keys: only its own binding shows
        await pilot.pause()
        assert [k.description for k in footer.keys] == ["Go"]


async def test_a_click_presses_the_key_and_a_disabled_one_does_nothing() -> None:
    async with unfocused(100) as (app, pilot):
        text = text_of(drawn(app, -1))
        await pilot.click(KeyFooter, offset=(text.index("Beta"), 0))
        await pilot.click(KeyFooter, offset=(text.index("Off"), 0))
        await pilot.click(KeyFooter, offset=(text.index("Alpha"), 0))
        await pilot.pause()
        assert app.notes == ["b", "a"]


async def test_hover_highlights_the_key_and_shows_its_tooltip() -> None:
    async with unfocused(100) as (app, pilot):
        before = drawn(app, -1)
        text = text_of(before)
        at = text.index("Beta")
        await pilot.hover(KeyFooter, offset=(at, 0))
        await pilot.pause()
        footer = app.query_one(KeyFooter)
        assert footer.tooltip == "the second letter"
        after = drawn(app, -1)
        assert after[at][2] != before[at][2]  # the hovered key's background
        assert after[text.index("Alpha")] == before[text.index("Alpha")]


async def test_the_mouse_wheel_scrolls_keys_that_do_not_fit() -> None:
    async with unfocused(30) as (app, pilot):
        first = text_of(drawn(app, -1))
        await pilot.mouse_down(KeyFooter, offset=(1, 0))  # (a press, not a scroll: "a" runs)
        footer = app.query_one(KeyFooter)
        footer._scroll_keys(4)
        await pilot.pause()
        scrolled = text_of(drawn(app, -1))
        assert first.startswith(" a Alpha ")
        assert scrolled.startswith("lpha  b Beta")
        assert scrolled.rstrip().endswith("▏^p palette")
        assert app.notes == ["a"]


async def test_at_a_narrow_width_the_palette_key_is_what_a_click_on_it_finds() -> None:
    """Keys that run on under the palette's key are cut where it starts: a click on
    `▏^p palette` opens the palette, it does not press the key drawn beneath it."""
    async with unfocused(30) as (app, pilot):
        text = text_of(drawn(app, -1))
        footer = app.query_one(KeyFooter)
        for x in range(text.index("▏"), len(text.rstrip())):
            assert footer.key_at(x) is footer.palette, x
        assert footer.key_at(text.index("▏") - 1) is footer.keys[2]  # "c Off", cut where the palette starts
        await pilot.click(KeyFooter, offset=(text.index("palette"), 0))
        await pilot.pause()
        assert app.notes == [] and isinstance(app.screen, CommandPalette)


async def test_the_keys_stay_while_the_terminal_has_lost_focus() -> None:
    """As the Footer: Textual blurs the focused widget when the terminal loses focus; the
    keys shown do not flip to the screen's and back."""
    app = Keys(KeyFooter())
    async with app.run_test(size=(100, 6)) as pilot:
        app.query_one(Field).focus()
        await pilot.pause()
        footer = app.query_one(KeyFooter)
        assert [k.description for k in footer.keys] == ["Go"]
        app.post_message(events.AppBlur())
        await pilot.pause()
        await pilot.pause()
        assert not app.app_focus
        assert [k.description for k in footer.keys] == ["Go"]


def test_a_scroll_never_starts_inside_a_wide_character() -> None:
    assert _first_char_from("a検b", 0) == 0
    assert _first_char_from("a検b", 1) == 1
    assert _first_char_from("a検b", 2) == 2  # cell 2 is the second half of 検: start after it
    assert _first_char_from("a検b", 3) == 2
    assert _first_char_from("a検b", 9) == 3
