"""RowList on its own: ten thousand rows, each made only when it comes into view, and a
line cache that stays bounded however far the list is scrolled."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.text import Text
from textual.app import App, ComposeResult

from foundry_tui.tui.common.row_list import Row, RowList


class OneList(App[None]):
    def compose(self) -> ComposeResult:
        yield RowList(id="rows")


async def test_the_line_cache_stays_bounded() -> None:
    made: list[int] = []

    def make(number: int) -> Text:
        made.append(number)
        return Text(f"row {number}")

    rows: list[Row] = [(None, Text("heading"))]
    rows += [(f"row:{i}", lambda i=i: make(i)) for i in range(10_000)]  # type: ignore[misc]
    app = OneList()
    async with app.run_test(size=(40, 12)) as pilot:
        row_list = app.query_one(RowList)
        row_list.replace_rows(rows)
        row_list.focus()
        await pilot.pause()
        for _ in range(150):  # about 1,600 rows come into view: more than the cache holds
            row_list.action_page(1)
            await pilot.pause()
        seen = len(set(made))
        assert seen > RowList.CACHED_LINES
        assert 0 < len(row_list.line_cache) <= RowList.CACHED_LINES
        assert seen < 2_000  # rows far below were never made


async def test_the_highlighted_row_comes_into_view_when_the_list_gains_focus() -> None:
    app = OneList()
    async with app.run_test(size=(40, 12)) as pilot:
        row_list = app.query_one(RowList)
        app.set_focus(None)
        row_list.replace_rows([(f"row:{i}", Text(f"row {i}")) for i in range(200)])
        await pilot.pause()
        row_list.highlighted = 150
        await pilot.pause()
        row_list.scroll_home(animate=False, immediate=True)  # scrolled away (the mouse wheel, a refresh)
        await pilot.pause()
        assert row_list.scroll_offset.y == 0
        row_list.focus()
        await pilot.pause()
        top = row_list.scroll_offset.y
        assert top <= 150 < top + row_list.scrollable_content_region.height


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_focus_shows_without_colour_in_the_tabs_and_the_board_filters(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    from textual.widgets import Select, Tabs

    from tests.tui_helpers import drawn, make_app, press, settle

    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        for key, widget in (("f4", Tabs), ("f3", Select)):
            await press(pilot, key)
            target = app.screen.query(widget).first()
            app.screen.set_focus(None)
            await settle(pilot)
            y = target.region.y + (1 if widget is Select else 0)
            blurred = drawn(app, y)
            target.focus()
            await settle(pilot)
            focused = drawn(app, y)
            assert [c[0] for c in focused] == [c[0] for c in blurred]  # the same text
            assert [c[3] for c in focused] != [c[3] for c in blurred], key  # bold where it has the focus
