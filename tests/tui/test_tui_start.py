"""`foundry tui`'s start-up: a plain `foundry tui` skips building the command line (the
same namespace argparse makes), and the index read ahead from the parse cache while
Textual is imported (tui/preload.py) is the index the full load paints; when a file
changed since the cache was written, the screen ends on what is on disk."""

from __future__ import annotations

import contextlib
import gc
import itertools
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.segment import Segment
from textual.app import App

from foundry_tui.cli import _plain_tui, build_parser
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.reports.views import IndexView, Overview
from foundry_tui.tui import collector
from foundry_tui.tui.app import FoundryApp
from foundry_tui.tui.memory.index_pane import IndexPane
from foundry_tui.tui.memory.screen import MemoryScreen
from foundry_tui.tui.preload import Preload
from tests.core.memory.test_early_index import generate, rendered, same_view, warm
from tests.helpers import TODAY
from tests.tui_helpers import make_app, settle

WORDS = ["tui", "--root", "x", "--root=y", "--today", "2026-01-01", "--today=2026-02-02", "--no-watch"]
OTHER = ["-x", "--at", "--", "memory", "", "--root=", "--demo", "-h", "--no-w"]


def test_plain_tui_is_what_argparse_makes() -> None:
    """Every command line of up to four words: where the fast path answers, argparse makes
    the same namespace; it answers for the plain forms."""
    parser = build_parser()
    answered = 0
    for length in range(1, 5):
        for argv in itertools.product(WORDS + OTHER, repeat=length):
            fast = _plain_tui(list(argv))
            if fast is None:
                continue
            answered += 1
            assert vars(fast) == vars(parser.parse_args(list(argv))), argv
    assert answered > 100
    for plain in (["tui"], ["--root", "r", "tui", "--today", "2026-01-01", "--no-watch"], ["tui", "--root=r"]):
        assert _plain_tui(plain) is not None
    for other in (["--no-watch", "tui"], ["tui", "--at", "HEAD"], ["tui", "--demo"], ["tui", "--root"], ["tui", "-h"]):
        assert _plain_tui(other) is None, other


def preloaded(root: Path) -> Preload:
    return Preload(Project(root), TODAY).start()


@pytest.mark.parametrize(("count", "seed", "budget"), [(300, 11, 400), (60, 12, 100000), (0, 13, 400)])
def test_preload_is_the_full_index(tmp_path: Path, count: int, seed: int, budget: int) -> None:
    generate(tmp_path, count, seed)
    (tmp_path / ".foundry" / "config.json").write_text(f'{{"indexTokenBudget": {budget}}}')
    warm(tmp_path)
    preload = preloaded(tmp_path)
    view = preload.view()
    assert view is not None and view.inactive is None
    full = Overview(Project(tmp_path), TODAY, {}, with_doctor=False)
    same_view(view, full.index_view())
    # The load that follows compares the files with the snapshot read ahead, not a second copy.
    snapshot = preload.project.store.load_snapshot_ahead()
    preload.project.sync()
    assert preload.project.store.pending_snapshot is snapshot is not None


def test_preload_reads_nothing_it_cannot_trust(tmp_path: Path) -> None:
    assert preloaded(tmp_path).view() is None  # no memory at all
    generate(tmp_path, 20, 14)
    assert preloaded(tmp_path).view() is None  # no parse cache yet
    warm(tmp_path)
    assert Preload(Project(tmp_path, use_cache=False), TODAY).start().view() is None  # --demo: no cache
    assert preloaded(tmp_path).view() is not None


def test_preload_refuses_a_facts_folder_linked_out(tmp_path: Path) -> None:
    root = tmp_path / "project"
    generate(root, 20, 15)
    warm(root)
    facts = root / ".foundry" / "memory" / "facts"
    outside = tmp_path / "elsewhere"
    facts.rename(outside)
    facts.symlink_to(outside)
    assert preloaded(root).view() is None


def changed_after_cache(root: Path, view: IndexView) -> None:
    """The index's first fact retitled and its second removed after the cache was written."""
    facts = root / ".foundry" / "memory" / "facts"
    retitled = facts / f"{view.ordered[0]}.md"
    retitled.write_text(retitled.read_text().replace("title: ", "title: Retitled after the cache ", 1))
    later = time.time() - 60
    os.utime(retitled, (later, later))
    (facts / f"{view.ordered[1]}.md").unlink()


def app_with(preload: Preload | None, root: Path) -> FoundryApp:
    if preload is None:
        return make_app(root)
    return FoundryApp(root, TODAY, watch=False, root_label="demo", preload=preload)


async def settled_rows(app: FoundryApp) -> tuple[list[list[Segment]], str, str | None]:
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MemoryScreen)
        pane = screen.query_one(IndexPane)
        assert screen.overview is not None
        return rendered(pane), str(pane.border_subtitle), screen.selected


@pytest.mark.parametrize("stale", [False, True])
async def test_the_preloaded_screen_ends_as_the_plain_one(tmp_path: Path, stale: bool) -> None:
    """The first frame shows the index read ahead; once loaded, the screen is the one a plain
    start shows, row for row, even when files changed after the cache was written."""
    generate(tmp_path, 300, 16)
    (tmp_path / ".foundry" / "config.json").write_text('{"indexTokenBudget": 500}')
    warm(tmp_path)
    preload = preloaded(tmp_path)
    early = preload.view()
    assert early is not None
    if stale:
        changed_after_cache(tmp_path, early)
    first_frames: list[IndexView] = []
    show = IndexPane.show

    def recorded(self: IndexPane, view: IndexView, show_inactive: bool) -> None:
        first_frames.append(view)
        show(self, view, show_inactive)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(IndexPane, "show", recorded)
        with_preload = await settled_rows(app_with(preload, tmp_path))
    assert first_frames[0] is early, "the index read ahead is shown first"
    plain = await settled_rows(app_with(None, tmp_path))
    assert with_preload == plain
    if stale:
        assert any("Retitled after the cache" in "".join(s.text for s in row) for row in plain[0])


@pytest.mark.parametrize("with_preload", [False, True])
async def test_the_first_paint_waits_for_a_frame_that_is_shown(tmp_path: Path, with_preload: bool) -> None:
    """Textual renders the screen during its start-up batch (`App.batch_update`) and a mode
    switch's delay (`App.delay_update`), and throws those frames away: what waits for the
    index to be drawn (the file watcher, the load's stat of every file) starts on a frame
    that is shown, not on one of those. The holds are seen through Textual's public methods."""
    generate(tmp_path, 300, 16)
    warm(tmp_path)
    batches: list[int] = [0]  # how many batch_update blocks are open now
    delayed: list[str] = []  # the modes a delay_update held the frames of
    held_when_painted: list[bool] = []
    painted = MemoryScreen._index_painted
    batch_update = App.batch_update
    delay_update = App.delay_update

    @contextlib.contextmanager
    def counted_batch(self: App[object]) -> Iterator[None]:
        with batch_update(self):
            batches[0] += 1
            try:
                yield
            finally:
                batches[0] -= 1

    def recorded_delay(self: App[object], delay: float = 0.05) -> None:
        delayed.append(self.current_mode)
        delay_update(self, delay)

    def recorded(self: MemoryScreen, event: Any) -> None:
        held_when_painted.append(batches[0] > 0 or bool(delayed))
        painted(self, event)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(App, "batch_update", counted_batch)
        patch.setattr(App, "delay_update", recorded_delay)
        patch.setattr(MemoryScreen, "_index_painted", recorded)
        await settled_rows(app_with(preloaded(tmp_path) if with_preload else None, tmp_path))
    assert held_when_painted == [False]


@pytest.fixture
def collector_paused() -> Any:
    """The cyclic collector paused as `foundry tui` pauses it, and on again afterwards
    whatever the test did."""
    collector.pause()
    assert not gc.isenabled()
    yield
    collector.resume()
    gc.enable()


@pytest.mark.parametrize("with_preload", [False, True])
async def test_the_collector_paused_at_start_runs_again_once_the_index_is_drawn(
    tmp_path: Path, with_preload: bool, collector_paused: None
) -> None:
    generate(tmp_path, 300, 17)
    warm(tmp_path)
    enabled_when_drawn: list[bool] = []
    frozen: list[tuple[int, int]] = []
    painted = MemoryScreen._index_painted

    def recorded(self: MemoryScreen, event: Any) -> None:
        enabled_when_drawn.append(gc.isenabled())
        before = gc.get_freeze_count()
        painted(self, event)
        frozen.append((before, gc.get_freeze_count()))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(MemoryScreen, "_index_painted", recorded)
        app = app_with(preloaded(tmp_path) if with_preload else None, tmp_path)
        async with app.run_test(size=(160, 45)) as pilot:
            await settle(pilot)
            assert enabled_when_drawn == [False], "paused until the first index is drawn"
            assert gc.isenabled(), "and running again from then on"
            [(before, after)] = frozen
            assert after > before, "what was alive then is left out of its passes"
            assert not collector.paused()


async def test_the_collector_is_frozen_once_after_start_up_and_never_on_a_reload(
    tmp_path: Path, collector_paused: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`gc.freeze` keeps what is alive at that moment for good: once, at the end of the start-up
    (the first index drawn), and not again on the reloads that follow (a change on disk, a
    screen shown again) nor on their repaints of the index."""
    generate(tmp_path, 300, 19)
    warm(tmp_path)
    freezes: list[bool] = []  # whether the first index was drawn by then
    real_freeze = gc.freeze
    drawn: list[bool] = []
    painted = MemoryScreen._index_painted

    def counted_freeze() -> None:
        freezes.append(bool(drawn))
        real_freeze()

    def recorded(self: MemoryScreen, event: Any) -> None:
        drawn.append(True)
        painted(self, event)

    monkeypatch.setattr(gc, "freeze", counted_freeze)
    monkeypatch.setattr(MemoryScreen, "_index_painted", recorded)
    app = app_with(preloaded(tmp_path), tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        assert freezes == [True], "frozen once, as the first index is drawn"
        memory = app.screen
        assert isinstance(memory, MemoryScreen)
        for _ in range(3):
            memory.load(announce=True)  # as the file watcher's reload does
            await settle(pilot)
        await pilot.press("f3")
        await settle(pilot)
        await pilot.press("escape")  # the memory screen shown again: read again
        await settle(pilot)
        assert memory.overview is not None
        assert app.screen is memory
    assert freezes == [True]


async def test_the_empty_screen_resumes_the_collector_too(tmp_path: Path, collector_paused: None) -> None:
    app = make_app(tmp_path)  # no .foundry: the screen that offers `foundry init`
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert gc.isenabled()


async def test_the_collector_runs_again_at_the_latest_after_a_few_seconds(
    tmp_path: Path, collector_paused: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever becomes of the memory screen's first load (here: it is never drawn)."""
    from foundry_tui.tui import startup

    generate(tmp_path, 30, 18)
    monkeypatch.setattr(startup, "COLLECTOR_PAUSED_AT_MOST", 0.5)
    monkeypatch.setattr(MemoryScreen, "_index_painted", lambda self, event: None)
    monkeypatch.setattr(MemoryScreen, "on_memory_screen_files_read", lambda self, event: None)
    monkeypatch.setattr(MemoryScreen, "on_memory_screen_loaded", lambda self, event: None)
    # When the timer fires, not whether it has yet: on a loaded machine the app's start-up
    # alone can take longer than the 0.5 s bound (CI saw it), so the test waits for the
    # resume and then checks who called it and when.
    resumed: list[float] = []
    real_resume = collector.resume

    def resume() -> None:
        resumed.append(time.monotonic())
        real_resume()

    monkeypatch.setattr(collector, "resume", resume)
    started = time.monotonic()
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        deadline = time.monotonic() + 20
        while not resumed and time.monotonic() < deadline:
            await pilot.pause(0.05)
        assert gc.isenabled() and not collector.paused()
        assert len(resumed) == 1 and resumed[0] - started >= 0.5  # the bound's timer, once


def test_pause_and_resume_leave_a_collector_that_was_off_alone() -> None:
    gc.disable()
    try:
        collector.pause()
        collector.resume()
        assert not gc.isenabled()
    finally:
        gc.enable()
    collector.pause()
    assert collector.paused() and not gc.isenabled()
    collector.pause()  # once: one resume ends it
    collector.resume()
    assert gc.isenabled() and not collector.paused()
    collector.resume()  # and a second resume ends nothing
    assert gc.isenabled()


def test_cmd_tui_resumes_the_collector_when_it_fails_before_the_app_runs(tmp_path: Path) -> None:
    from foundry_tui.cli import main

    assert main(["tui", "--root", str(tmp_path / "missing")]) != 0
    assert gc.isenabled() and not collector.paused()
