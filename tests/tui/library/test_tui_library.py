"""The library's ADRs and the facts that cite them (issue 31, item 15)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.text import Text
from textual.widgets import Markdown, TabbedContent

from foundry_tui.tui.library.screen import DocumentList, LibraryScreen
from tests.tui_helpers import make_app, press, select, settle

SIZE = (120, 40)
SIZES = [SIZE, (80, 24)]  # issue 31: every behaviour at 80x24 too


@pytest.mark.parametrize("size", SIZES)
async def test_o_on_a_fact_citing_an_adr_opens_it_with_the_facts_that_cite_it(
    demo_root: Path, size: tuple[int, int]
) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await select(pilot, "fact-0009")  # source: adr-0002
        await press(pilot, "o")
        screen = app.screen
        assert isinstance(screen, LibraryScreen)
        assert screen.query_one(TabbedContent).active == "adrs-tab"
        adrs = screen.query_one("#adrs", DocumentList)
        option = adrs.get_option_at_index(adrs.highlighted or 0)
        assert option.id is not None and option.id.endswith("0002-use-postgresql-16.md")
        prompt = option.prompt
        assert isinstance(prompt, Text) and prompt.plain.endswith("\n  cited by fact-0009")
        assert screen.texts[option.id].startswith(
            "**Cited by 1 active fact:**\n\n- fact-0009: PostgreSQL 16 is the only supported database\n"
        )
        assert screen.query_one("#adr-text", Markdown).source.startswith("**Cited by 1 active fact:**")


@pytest.mark.parametrize("size", SIZES)
async def test_o_on_a_fact_without_an_adr_source_says_so(demo_root: Path, size: tuple[int, int]) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await select(pilot, "fact-0003")
        await press(pilot, "o")
        assert not isinstance(app.screen, LibraryScreen)


async def test_a_slow_load_shows_the_busy_indicator_until_it_ends(demo_root: Path) -> None:
    """Issue 31, item 11: a screen's load still under way after BUSY_DELAY covers its
    content with a loading indicator (here the library's read waits for the project's lock,
    held as a long write would hold it); gone once the load ends."""
    from foundry_tui.tui.common.base import BUSY_DELAY

    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        with app.project.lock:
            await pilot.press("f4")
            await pilot.pause(BUSY_DELAY + 0.3)
            screen = app.screen
            assert isinstance(screen, LibraryScreen)
            assert screen.query_one(TabbedContent).loading
        await settle(pilot)
        assert not screen.query_one(TabbedContent).loading
        assert "0002-use-postgresql-16.md" in "".join(screen.texts)
