"""RowList on its own: ten thousand rows, each made only when it comes into view, and a
line cache that stays bounded however far the list is scrolled."""

from __future__ import annotations

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
