"""The index pane's rows at each width: the id's number only where the pane is narrow (80x24,
issue 31 item 7: titles cut at 25 characters), the whole id where there is room."""

from __future__ import annotations

from pathlib import Path

from foundry_tui.tui.memory.index_pane import COMPACT_BELOW, IndexPane
from tests.tui_helpers import drawn, make_app, settle, text_of


async def test_a_narrow_index_shows_the_ids_number_and_more_of_each_title(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        pane = app.screen.query_one(IndexPane)
        assert pane.scrollable_content_region.width == 36 < COMPACT_BELOW
        assert text_of(drawn(app, 3))[:40] == "│0009 PostgreSQL 16 is the only supp…  │"
        assert text_of(drawn(app, 17)).startswith("│fact-0006 — expired")  # the prune list: as it was
        await pilot.resize_terminal(120, 40)
        await settle(pilot)
        assert pane.scrollable_content_region.width == 46 >= COMPACT_BELOW
        assert text_of(drawn(app, 3)).startswith("│fact-0009 PostgreSQL 16 is the only supported…│")
        await pilot.resize_terminal(80, 24)  # and back: the lines drawn at 46 columns are not reused
        await settle(pilot)
        assert text_of(drawn(app, 3)).startswith("│0009 PostgreSQL")
