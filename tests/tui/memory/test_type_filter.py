"""The search pane's type filter (Textual's Select), driven by Pilot on the demo memory: it
opens and closes by keys and clicks, its open list takes typed letters, and the type chosen
filters the hits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.color import Color
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import OptionList, Select

from foundry_tui.tui.memory.search_pane import SearchPane
from tests.tui_helpers import drawn, make_app, option_ids, press, settle

SIZES = [(120, 40), (80, 24)]  # issue 31: every behaviour at 80x24 too


def _filter(pilot: Pilot[Any]) -> Select[str]:
    return pilot.app.screen.query_one("#type-filter", Select)


def _options(pilot: Pilot[Any]) -> OptionList:
    """The filter's drop-down list (Select's overlay is an OptionList)."""
    return _filter(pilot).query_one(OptionList)


def _list_shown(pilot: Pilot[Any]) -> bool:
    return _filter(pilot).expanded and _options(pilot).display


def _shown_in_box(pilot: Pilot[Any]) -> str:
    """What the box shows, as drawn on the screen (inside its border)."""
    box = _filter(pilot).region
    row = drawn(pilot.app, box.y + 1)
    return "".join(cell[0] for cell in row[box.x : box.x + box.width]).strip(" ▊▎▌▐")


def _focused(pilot: Pilot[Any]) -> object:
    return pilot.app.focused


async def _search(pilot: Pilot[Any], query: str) -> None:
    await settle(pilot)
    await pilot.press("slash", *query)
    await settle(pilot)


async def test_a_type_chosen_from_the_list_filters_the_hits_and_any_type_lifts_it(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await _search(pilot, "orders")
        assert option_ids(pilot, "#results") == ["fact-0015", "fact-0008"]  # a risk, then a domain

        type_filter = _filter(pilot)
        type_filter.focus()
        await press(pilot, "enter")
        assert _list_shown(pilot)
        options = _options(pilot)
        assert _focused(pilot) is options
        assert options.highlighted == 0  # "any type", the choice in force
        assert [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)] == [
            "any type",
            "decision",
            "constraint",
            "convention",
            "domain",
            "risk",
            "metric",
            "glossary",
        ]
        # Drawn just below the box, from its left edge, as the list is.
        assert options.region.x == type_filter.region.x
        assert options.region.y == type_filter.region.y + type_filter.region.height

        await press(pilot, "down", "down", "down", "down", "enter")  # domain
        assert type_filter.value == "domain"
        assert not _list_shown(pilot)
        assert _focused(pilot) is type_filter
        assert _shown_in_box(pilot).startswith("domain")
        assert option_ids(pilot, "#results") == ["fact-0008"]

        await press(pilot, "enter")
        assert options.highlighted == 4  # the list opens on the type chosen
        await press(pilot, "home", "enter")
        assert type_filter.is_blank()
        assert _shown_in_box(pilot).startswith("any type")
        assert option_ids(pilot, "#results") == ["fact-0015", "fact-0008"]


async def test_escape_and_a_click_elsewhere_close_the_list_and_change_nothing(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await _search(pilot, "orders")
        type_filter = _filter(pilot)
        type_filter.focus()
        await press(pilot, "space", "down", "escape")
        assert not _list_shown(pilot)
        assert type_filter.is_blank()
        assert _focused(pilot) is type_filter
        assert option_ids(pilot, "#results") == ["fact-0015", "fact-0008"]

        await pilot.click("#type-filter")  # a click opens it, as enter does
        await settle(pilot)
        assert _list_shown(pilot)
        await pilot.click("#index")  # elsewhere: closed, and the focus stays where it went
        await settle(pilot)
        assert not _list_shown(pilot)
        assert type_filter.is_blank()
        assert _focused(pilot) is pilot.app.screen.query_one("#index")


async def test_a_click_on_a_type_chooses_it(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await _search(pilot, "orders")
        type_filter = _filter(pilot)
        await pilot.click("#type-filter")
        await settle(pilot)
        options = _options(pilot)
        risk = 5  # "any type", decision, constraint, convention, domain, risk
        await pilot.click(_options(pilot), offset=(3, 1 + risk))  # below the list's top border
        await settle(pilot)
        assert type_filter.value == "risk"
        assert not _list_shown(pilot)
        assert not options.has_focus
        assert option_ids(pilot, "#results") == ["fact-0015"]
        pane = pilot.app.screen.query_one(SearchPane)
        assert pane.border_subtitle == "1 hit"


async def _real_click(pilot: Pilot[Any], widget: Widget, offset: tuple[int, int] = (0, 0)) -> None:
    """A click as a terminal sends it: the app gets a mouse-down and a mouse-up and makes
    the click itself (Pilot's `click` skips the app's own handling, where Textual drops a
    click that a widget asked to suppress)."""
    x, y = widget.region.offset + offset  # on the screen, as a terminal reports it
    for event in (events.MouseDown, events.MouseUp):
        pilot.app.post_message(
            event(widget, x, y, 0, 0, button=1, shift=False, meta=False, ctrl=False, screen_x=x, screen_y=y)
        )
        await pilot.pause(0.05)
    await settle(pilot)


async def test_letters_typed_in_the_open_list_pick_a_type_and_run_no_command(demo_root: Path) -> None:
    """the list takes printable keys for its search: q does not quit, x does not offer
    to retire the fact, d does not open the doctor while the list is open."""
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await _search(pilot, "orders")
        type_filter = _filter(pilot)
        type_filter.focus()
        await press(pilot, "enter")
        screen = pilot.app.screen
        await press(pilot, "q", "x", "d")
        assert pilot.app.is_running and pilot.app.screen is screen and _list_shown(pilot)
        options = _options(pilot)
        await pilot.pause(1.5)  # Select forgets the letters typed 0.7 s after the last key
        await press(pilot, "r")
        assert options.highlighted == 5  # risk
        await press(pilot, "enter")
        assert type_filter.value == "risk"
        assert option_ids(pilot, "#results") == ["fact-0015"]


async def test_a_click_on_the_box_closes_the_open_list_and_one_on_its_border_keeps_it(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        type_filter = _filter(pilot)
        await _real_click(pilot, type_filter)
        assert _list_shown(pilot)
        options = _options(pilot)
        await _real_click(pilot, options, (3, 0))  # its top border: not a choice
        assert _list_shown(pilot) and _focused(pilot) is options
        await _real_click(pilot, type_filter)  # the box again: closed, as a drop-down closes
        assert not _list_shown(pilot)
        assert _focused(pilot) is type_filter
        assert type_filter.is_blank()


async def test_the_open_list_is_as_wide_as_the_box_with_the_focused_border(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        type_filter = _filter(pilot)
        type_filter.focus()
        await press(pilot, "enter")
        options = _options(pilot)
        assert options.region.width == type_filter.region.width
        assert options.region.x == type_filter.region.x
        assert options.region.y == type_filter.region.y + type_filter.region.height
        assert pilot.app.screen.region.contains_region(options.region)
        focused_border = Color.parse(pilot.app.theme_variables["border"])
        assert options.styles.border_top == ("tall", focused_border)


@pytest.mark.parametrize("size", SIZES)
async def test_a_search_marks_the_matched_words_and_selects_the_top_hit(demo_root: Path, size: tuple[int, int]) -> None:
    """Issue 31, item 14: the words found are marked in the results' titles, the fact's
    title and the body's lines that hold them; a new query shows its top hit."""
    from rich.text import Text
    from textual.widgets import Static

    from foundry_tui.tui.memory.fact_detail import FactDetail
    from foundry_tui.tui.memory.screen import MemoryScreen
    from foundry_tui.tui.memory.search_pane import SearchResults

    def marked_words(text: Text) -> list[str]:
        return [text.plain[s.start : s.end].lower() for s in text.spans if "underline" in str(s.style)]

    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"snake json")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MemoryScreen)
        assert screen.selected == "fact-0007"  # the top hit, without leaving the query box
        results = screen.query_one(SearchResults)
        first = results.rows[0][1]
        assert isinstance(first, Text)
        assert marked_words(first) == ["snake", "json"]
        detail = screen.query_one(FactDetail)
        head = detail.query_one("#detail-head", Static).content
        assert isinstance(head, Text) and marked_words(head) == ["snake", "json"]
        matches = detail.query_one("#detail-matches", Static)
        assert matches.display
        body = matches.content
        assert isinstance(body, Text) and body.plain.startswith("in the body:\n  ")
        assert set(marked_words(body)) == {"snake", "json"}


async def test_the_body_lines_a_search_found_show_the_reason_labels_without_asterisks(demo_root: Path) -> None:
    """The match lines under the score are text, not Markdown: `**Why:**` and `**How to
    apply:**` read as the labels they are, bold, as the toasts and prune rows show them."""
    from rich.text import Text
    from textual.widgets import Static

    from foundry_tui.tui.memory.fact_detail import FactDetail
    from foundry_tui.tui.memory.screen import MemoryScreen

    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"abstraction plain")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MemoryScreen)
        assert screen.selected == "fact-0009"
        body = screen.query_one(FactDetail).query_one("#detail-matches", Static).content
        assert isinstance(body, Text)
        assert body.plain == (
            "in the body:\n"
            "  Why: we depend on MERGE and partition-wise joins; MySQL 8 has neither, and the abstraction layer that "
            "would hide the difference costs more than supporting …\n"
            "  How to apply: write migrations as plain SQL under `db/migrations` and run integration tests against "
            "`postgres:16-alpine`."
        )
        bold = [body.plain[s.start : s.end] for s in body.spans if s.style == "bold"]
        assert bold == ["Why:", "How to apply:"]
