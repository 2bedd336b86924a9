"""The write form's traps, driven by Pilot on the demo memory (issue 31): where `y` puts the
cursor, what Escape and a cancelled confirm do to a draft, the labels of every field,
the type chosen (never preset), and the warning a decision without its Why line gets
before the write."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, TextArea

from foundry_tui.tui.memory.write_fact import WriteFactScreen
from tests.tui_helpers import make_app, press, select, settle

SIZES = [(120, 40), (80, 24)]
CELERY = "Background jobs run on Celery with Redis as the broker"


@pytest.mark.parametrize("size", SIZES)
async def test_y_starts_in_the_body_after_the_why_marker(demo_root: Path, size: tuple[int, int]) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await select(pilot, "fact-0011", "#prune")
        await press(pilot, "y")
        form = app.screen
        assert isinstance(form, WriteFactScreen)
        body = form.query_one("#body", TextArea)
        assert app.focused is body
        assert body.cursor_location == body.document.end
        await pilot.press(*"ops runs it")
        await settle(pilot)
        assert body.text.endswith("\n\n**Why:** ops runs it")
        assert form.query_one("#title", Input).value == CELERY  # the title is not replaced


async def test_w_still_starts_in_the_title(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "w")
        assert isinstance(app.screen, WriteFactScreen)
        assert app.focused is app.screen.query_one("#title", Input)
