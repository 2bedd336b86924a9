"""A busy indicator on every write that takes longer than a moment (issue 31, item 11), at
80x24: a write still under way after BUSY_DELAY covers the screen's content with a loading
indicator (the header and the footer stay), gone when it ends. Each write here is made slow
for real: the test holds the memory folder's lock (`folder_lock`, as another writer holds
it), which the door's write waits for."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import DataTable, Footer, SelectionList

from foundry_tui.core.atomic import folder_lock
from foundry_tui.tui.common.base import BUSY_DELAY
from foundry_tui.tui.common.confirm import ConfirmScreen
from foundry_tui.tui.common.empty import EmptyScreen
from foundry_tui.tui.common.status_header import StatusHeader
from foundry_tui.tui.curator.screen import CuratorScreen
from foundry_tui.tui.memory.screen import MemoryScreen
from foundry_tui.tui.memory.write_fact import WriteFactScreen
from foundry_tui.tui.sessions.screen import SessionsScreen
from tests.tui.sessions.test_tui_sessions import seed
from tests.tui_helpers import make_app, open_mode, select, settle

SIZE = (80, 24)
MEMORY = ".foundry/memory"


def covered(screen: Screen[Any]) -> list[bool]:
    """Whether each of the screen's parts but the header and the footer shows as loading."""
    return [child.loading for child in screen.children if not isinstance(child, StatusHeader | Footer)]


def header_and_footer_stay(screen: Screen[Any]) -> bool:
    return not any(child.loading for child in screen.children if isinstance(child, StatusHeader | Footer))


async def busy_while_held(pilot: Pilot[Any], screen: Screen[Any]) -> None:
    """Past BUSY_DELAY, with the lock still held: the content is covered, the header and the footer are not."""
    await pilot.pause(BUSY_DELAY + 0.4)
    assert pilot.app.screen is screen
    assert covered(screen) and all(covered(screen)), covered(screen)
    assert header_and_footer_stay(screen)


async def test_a_slow_memory_write_shows_the_busy_indicator(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MemoryScreen)
        await select(pilot, "fact-0003")
        with folder_lock(demo_root / MEMORY):
            await pilot.press("x")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmScreen)
            await pilot.press("ctrl+s")
            await busy_while_held(pilot, screen)
        await settle(pilot)
        assert not any(covered(screen))
    assert "expires: 2026-11-29" in (demo_root / MEMORY / "facts/fact-0003.md").read_text()


async def test_a_slow_curator_write_shows_the_busy_indicator(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_mode(pilot, "f6", CuratorScreen, tab="retire-tab")
        screen.query_one("#retire-list", SelectionList).select("fact-0011")
        with folder_lock(demo_root / MEMORY):
            await pilot.press("x")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmScreen)
            await pilot.press("ctrl+s")
            await busy_while_held(pilot, screen)
        await settle(pilot)
        assert not any(covered(screen))
    assert "expires: 2026-11-29" in (demo_root / MEMORY / "facts/fact-0011.md").read_text()


async def test_a_slow_promote_shows_the_busy_indicator(demo_root: Path) -> None:
    seed(demo_root)
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_mode(pilot, "f7", SessionsScreen)
        screen.query_one("#working", DataTable).focus()
        await pilot.pause()
        with folder_lock(demo_root / MEMORY):
            await pilot.press("p")
            await pilot.pause()
            assert isinstance(app.screen, WriteFactScreen)
            await pilot.press("ctrl+s")
            await pilot.pause()
            if isinstance(app.screen, ConfirmScreen):  # the form asks before its save
                await pilot.press("ctrl+s")
            await busy_while_held(pilot, screen)
        await settle(pilot)
        assert not any(covered(screen))
    assert any("Promoted from session" in p.read_text() for p in (demo_root / MEMORY / "facts").glob("*.md"))


async def test_a_slow_foundry_init_shows_the_busy_indicator(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, EmptyScreen)
        memory = tmp_path / MEMORY
        memory.mkdir(parents=True)  # the folder init makes, made first so that its lock can be held
        with folder_lock(memory):
            await pilot.press("i")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmScreen)
            await pilot.press("ctrl+s")
            await busy_while_held(pilot, screen)  # init waits to write INDEX.md
        await settle(pilot)
        assert isinstance(app.screen, MemoryScreen)
    assert (tmp_path / MEMORY / "INDEX.md").is_file()
