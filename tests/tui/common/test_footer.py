"""Every screen's keys: Textual's own Footer, fed from the screen's active bindings. What a
user sees of it: the keys once the screen has settled (the Footer composes its keys on the
frame after the screen's first), following the focus, a click pressing a key."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, ClassVar

import pytest
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.pilot import Pilot
from textual.widgets import Footer, Input, Label

import foundry_tui.tui
from tests.tui_helpers import drawn, make_app, notifications, press, settle, text_of


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


# ---- the application's footers ---------------------------------------------------------------

MAIN_SCREENS = [
    ("f2", "MemoryScreen"),
    ("f3", "BlackboardScreen"),
    ("f4", "LibraryScreen"),
    ("f5", "HealthScreen"),
    ("f6", "CuratorScreen"),
    ("f7", "SessionsScreen"),
    ("f8", "HistoryScreen"),
    ("f9", "ApprovalsScreen"),
]


def _keys_panel_text(app: App[Any]) -> str:
    """What the keys panel (F1) lists, as text."""
    import io

    from rich.console import Console

    console = Console(width=200, file=io.StringIO(), color_system=None)
    console.print(app.screen.query_one("BindingsTable").render())  # the stock panel's table
    out = console.file
    assert isinstance(out, io.StringIO)
    return out.getvalue()


@pytest.mark.parametrize(("key", "name"), MAIN_SCREENS)
async def test_every_key_shows_in_the_footer_or_behind_f1_at_80x24(demo_root: Path, key: str, name: str) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, key)
        assert type(app.screen).__name__ == name
        app.screen.set_focus(None)
        await pilot.pause()
        await pilot.pause()
        footer = text_of(drawn(app, -1))
        assert footer.startswith(" f1 Keys  q Quit  "), footer
        shown = [binding for _key, binding, _on, _tip in app.screen.active_bindings.values() if binding.show]
        await press(pilot, "f1")
        panel = _keys_panel_text(app)
        for active in app.screen.active_bindings.values():
            if active.binding.description:  # every key the screen answers is in the panel, with its name
                assert active.binding.description in panel, active.binding
        for shown_binding in shown:
            assert shown_binding.description in panel
        for words in ("f2/esc Memory", "f3 Board", "f4 Docs", "f7 Sessions", "f8 History", "f1 ? Keys", "q Quit"):
            assert words in " ".join(panel.split()), words  # the footer's names, not the palette's ("Show Sessions")


def _footer_labels(app: App[Any]) -> list[str]:
    """The keys the footer is fed (each action once, as Textual's Footer groups them), as it
    writes them: the key and its name; the palette's key, docked on the right, apart."""
    labels: dict[str, str] = {}
    for binding in (active.binding for active in app.screen.active_bindings.values()):
        if binding.show and binding.action != "command_palette":
            labels.setdefault(binding.action, f"{app.get_key_display(binding)} {binding.description}")
    return list(labels.values())


async def _unfocused_footer(app: App[Any], pilot: Pilot[Any]) -> str:
    app.screen.set_focus(None)
    await pilot.pause()
    await pilot.pause()
    return text_of(drawn(app, -1))


@pytest.mark.parametrize("width", [80, 130])
@pytest.mark.parametrize(("key", "name"), MAIN_SCREENS)
async def test_no_key_is_cut_at_80x24_and_the_rest_are_behind_f1(
    demo_root: Path, key: str, name: str, width: int
) -> None:
    """Issue 31, item 5: at 80 columns every key the footer shows is whole (before this, each
    screen's last one was cut: "f6 Cu", "R ", "c Clear"), F1 first; what has no room (the
    screen switches, R, d, c) is in the keys panel and still answers. At 130 (the README's
    pictures) too, where the footers of all but the docs screen were cut."""
    app = make_app(demo_root)
    async with app.run_test(size=(width, 24)) as pilot:
        await settle(pilot)
        await press(pilot, key)
        assert type(app.screen).__name__ == name
        footer = await _unfocused_footer(app, pilot)
        left, palette = footer.split("▏")
        assert palette == "^p palette "
        labels = _footer_labels(app)
        assert labels[:2] == ["f1 Keys", "q Quit"]
        assert left.rstrip() == " " + "  ".join(labels), footer  # every key whole, none cut
        if key != "f4" or width == 80:  # the docs screen has room for the switches at 130
            assert not any(label.startswith(("f2/esc ", "f3 ", "f9 ")) for label in labels)


async def test_the_switches_leave_the_footer_below_100_columns_and_come_back(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(200, 30)) as pilot:
        await settle(pilot)
        assert "  R Rebuild  d Doctor  f2/esc Memory  f3 Board  " in await _unfocused_footer(app, pilot)
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        footer = await _unfocused_footer(app, pilot)
        assert footer.startswith(" f1 Keys  q Quit  / Search  i Inactive  w Write  x Retire  y Why  "), footer
        assert "Rebuild" not in footer and "Board" not in footer
        await press(pilot, "f3")  # behind F1, and still a key
        assert type(app.screen).__name__ == "BlackboardScreen"
        await press(pilot, "escape")
        assert type(app.screen).__name__ == "MemoryScreen"
        await press(pilot, "f1")
        panel = " ".join(_keys_panel_text(app).split())
        for words in ("R Rebuild", "d Doctor", "f2/esc Memory", "f3 Board", "f9 Approvals"):
            assert words in panel, words
        assert panel.count("f2/esc Memory") == 1  # F2's twin and Escape's: one row
        await press(pilot, "f1")
        await pilot.resize_terminal(200, 30)
        await settle(pilot)
        assert "  R Rebuild  d Doctor  f2/esc Memory  f3 Board  " in await _unfocused_footer(app, pilot)


async def test_the_wide_footer_names_every_screen_and_the_missing_keys(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(200, 45)) as pilot:
        await settle(pilot)
        app.screen.set_focus(None)
        await pilot.pause()
        await pilot.pause()
        footer = text_of(drawn(app, -1))
        assert footer.startswith(
            " f1 Keys  q Quit  / Search  i Inactive  w Write  x Retire  y Why  R Rebuild  d Doctor  f2/esc Memory  "
            "f3 Board  f4 Docs  f5 Health  f6 Curator  f7 Sessions  f8 History  f9 Approvals "
        ), footer
        await press(pilot, "f3")
        app.screen.set_focus(None)
        await pilot.pause()
        await pilot.pause()
        assert text_of(drawn(app, -1)).startswith(" f1 Keys  q Quit  / Filter  v Valid?  c Clear  m Mark  d Diff ")


@pytest.mark.parametrize(
    ("keys", "footer"), [(("w",), "esc Cancel  ^s Save"), (("x",), "esc Cancel  ^s Confirm"), (("d",), "esc Close")]
)
async def test_a_dialog_shows_its_own_keys(demo_root: Path, keys: tuple[str, ...], footer: str) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, *keys)
        await pilot.pause()
        await pilot.pause()
        assert text_of(drawn(app, -1)).strip() == footer


CURATOR_TABS = [
    ("dupes-tab", ["m Merge", "u Undo"]),
    ("conflicts-tab", ["k Keep one"]),
    ("missed-tab", ["t Tag"]),
    ("retire-tab", ["x Retire"]),
    ("budget-tab", []),
    ("stale-tab", ["c Confirm", "r Retire it", "s Supersede", "D Diff"]),
]


@pytest.mark.parametrize(("tab", "own"), CURATOR_TABS)
async def test_each_curator_tab_shows_its_keys_whole_at_80x24_and_the_others_behind_f1(
    demo_root: Path, tab: str, own: list[str]
) -> None:
    """Issue 31, item 5, tab by tab: at 80 columns the curator's footer shows the keys of the
    tab in view, each whole (before, the Stale code tab's footer ended in "m Mer"); the other
    tabs' keys are behind F1 and still answer."""
    from textual.widgets import TabbedContent

    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "f6")
        app.screen.query_one(TabbedContent).active = tab
        await settle(pilot)
        footer = await _unfocused_footer(app, pilot)
        left, palette = footer.split("▏")
        assert palette == "^p palette "
        labels = _footer_labels(app)
        assert labels == ["f1 Keys", "q Quit", *own], footer
        assert left.rstrip() == " " + "  ".join(labels), footer  # every key whole, none cut
        await press(pilot, "f1")
        panel = " ".join(_keys_panel_text(app).split())
        for words in ("m Merge", "u Undo", "k Keep one", "t Tag", "x Retire", "d Doctor", *own):
            assert words in panel, words
        await press(pilot, "f1")
        if tab != "dupes-tab":  # u behind F1 still answers
            await press(pilot, "u")
            assert notifications(pilot)[-1] == "No merge to undo in this session."


async def test_the_curator_tabs_keys_all_show_where_there_is_room(demo_root: Path) -> None:
    from textual.widgets import TabbedContent

    app = make_app(demo_root)
    async with app.run_test(size=(320, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "f6")
        app.screen.query_one(TabbedContent).active = "stale-tab"
        await settle(pilot)
        footer = await _unfocused_footer(app, pilot)
        assert footer.startswith(
            " f1 Keys  q Quit  c Confirm  r Retire it  s Supersede  D Diff  m Merge  u Undo  t Tag  x Retire  "
            "k Keep one "
        ), footer
