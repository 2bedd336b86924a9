"""The first-frame record (reports/first_frame.py): the index's first rows and the header's
counts as the last full load saw them, read by `foundry tui`'s first paint instead of the
snapshot. Its view is the full view's (the same rows, row for row, text and style); it is
ignored unless it matches the snapshot, the facts folder, the day and the budget, and a
damaged, truncated, oversized or ill-shaped record is refused."""

from __future__ import annotations

import datetime
import json
import os
import threading
import time
import zlib
from pathlib import Path

import pytest
from rich.segment import Segment

from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.reports import first_frame
from foundry_tui.core.memory.reports.first_frame import (
    RECORD_AT_MOST,
    read_first_frame,
    record_path,
    write_first_frame,
)
from foundry_tui.core.memory.reports.views import IndexView, Overview
from foundry_tui.tui.common.status_header import StatusHeader
from foundry_tui.tui.memory.index_pane import IndexPane
from foundry_tui.tui.memory.screen import MemoryScreen
from foundry_tui.tui.preload import Preload
from tests.core.memory.test_early_index import generate, rendered, same_view, warm
from tests.helpers import TODAY
from tests.tui_helpers import make_app, settle


def full_view(root: Path) -> IndexView:
    return Overview(Project(root), TODAY, {}, with_doctor=False).index_view()


def record(root: Path) -> Path:
    """The record a full load writes (a fresh process over the warm cache)."""
    project = warm(root)
    view = Overview(project, TODAY, {}, with_doctor=False).index_view()
    identity, dir_mtime = project.store.snapshot_identity, project.store.dir_mtime
    assert identity is not None and dir_mtime is not None, "the store matches its snapshot"
    assert write_first_frame(project, TODAY, view, identity, dir_mtime)
    assert not write_first_frame(project, TODAY, view, identity, dir_mtime), "the same record is not rewritten"
    path = record_path(project)
    assert path is not None and path.is_file()
    return path


def same_first_rows(first: IndexView, full: IndexView) -> None:
    """`first` holds the first rows of `full` and its counts."""
    rows = len(first.ordered)
    assert first.ordered == full.ordered[:rows] and first.types == full.types[:rows]
    assert first.omitted == full.omitted & set(first.ordered)
    assert (first.listed, first.active, first.total) == (full.listed, full.active, full.total)
    assert (first.index_tokens, first.budget, first.status()) == (full.index_tokens, full.budget, full.status())
    assert first.counts() == full.counts()
    for fact_id in first.ordered:
        assert first.entry(fact_id) == full.entry(fact_id), fact_id


@pytest.mark.parametrize(
    ("count", "seed", "budget", "rows"),
    [(250, 1, 400, 300), (60, 3, 20, 300), (0, 4, 400, 300), (250, 2, 400, 40), (250, 5, 100000, 40)],
)
def test_the_record_is_the_full_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, count: int, seed: int, budget: int, rows: int
) -> None:
    monkeypatch.setattr(first_frame, "FIRST_ROWS", rows)
    generate(tmp_path, count, seed)
    (tmp_path / ".foundry" / "config.json").write_text(f'{{"indexTokenBudget": {budget}}}')
    record(tmp_path)
    project = Project(tmp_path)
    view = read_first_frame(project, TODAY)
    assert view is not None and view.inactive is None and view.recorded
    assert not project.store.loaded
    full = full_view(tmp_path)
    if len(full.ordered) <= rows:
        assert view.whole is None
        same_view(view, full)
    else:
        assert view.whole is not None and len(view.ordered) == rows and view.broken == []
        same_first_rows(view, full)


def test_the_record_is_ignored_once_the_files_or_the_day_differ(tmp_path: Path) -> None:
    generate(tmp_path, 40, 6)
    facts = tmp_path / ".foundry" / "memory" / "facts"
    record(tmp_path)
    assert read_first_frame(Project(tmp_path), TODAY) is not None
    assert read_first_frame(Project(tmp_path), TODAY + datetime.timedelta(days=1)) is None  # expiry moves with the day
    (tmp_path / ".foundry" / "config.json").write_text('{"indexTokenBudget": 123}')
    assert read_first_frame(Project(tmp_path), TODAY) is None  # another budget
    (tmp_path / ".foundry" / "config.json").unlink()
    assert read_first_frame(Project(tmp_path), TODAY) is not None
    (facts / "fact-9999.md").write_text("---\nid: fact-9999\ntype: domain\ntitle: New\n---\n\nBody.\n")
    assert read_first_frame(Project(tmp_path), TODAY) is None  # the folder changed: a file was added
    (facts / "fact-9999.md").unlink()
    assert read_first_frame(Project(tmp_path), TODAY) is None  # and removed: the folder's mtime moved on
    record(tmp_path)
    assert read_first_frame(Project(tmp_path), TODAY) is not None
    # Another snapshot written (a new identity) for the same folder: the record is not its.
    project = Project(tmp_path)
    project.sync()
    project.store.save_cache()
    assert read_first_frame(Project(tmp_path), TODAY) is None


def test_no_record_without_the_snapshot_it_was_made_from(tmp_path: Path) -> None:
    generate(tmp_path, 20, 7)
    path = record(tmp_path)
    snapshot = Project(tmp_path).store.cache_path
    assert snapshot is not None
    whole = snapshot.read_bytes()
    snapshot.write_bytes(whole[:4096])  # only its header is read here (the full load checks the rest)
    assert read_first_frame(Project(tmp_path), TODAY) is not None
    snapshot.write_bytes(whole[:30])
    assert read_first_frame(Project(tmp_path), TODAY) is None
    snapshot.unlink()
    assert read_first_frame(Project(tmp_path), TODAY) is None
    path.unlink()
    assert read_first_frame(Project(tmp_path), TODAY) is None
    assert read_first_frame(Project(tmp_path, use_cache=False), TODAY) is None


def test_a_store_changed_since_its_snapshot_records_nothing(tmp_path: Path) -> None:
    generate(tmp_path, 20, 8)
    project = warm(tmp_path)
    assert project.store.snapshot_identity is not None
    assert len(project.store.facts) == 20  # materialised: the same entries, still the snapshot's
    assert project.store.snapshot_identity is not None
    facts = tmp_path / ".foundry" / "memory" / "facts"
    path = facts / "fact-0002.md"
    path.write_text(path.read_text().replace("title: ", "title: Edited ", 1))
    project.store.refresh_names({"fact-0002.md"})
    assert project.store.snapshot_identity is None


def resealed(body: bytes) -> bytes:
    return f"foundry-first-frame 1 {zlib.crc32(body):08x} {len(body)}\n".encode() + body


def test_a_damaged_truncated_or_oversized_record_is_refused(tmp_path: Path) -> None:
    generate(tmp_path, 30, 9)
    path = record(tmp_path)
    good = path.read_bytes()
    assert read_first_frame(Project(tmp_path), TODAY) is not None

    def refused(data: bytes) -> None:
        path.write_bytes(data)
        assert read_first_frame(Project(tmp_path), TODAY) is None, data[:80]

    at = good.index(b"\n") + 40
    refused(good[:at] + bytes([good[at] ^ 0x01]) + good[at + 1 :])  # one bit flipped: the CRC says so
    refused(good[:-1])  # truncated
    refused(good[: len(good) // 2])
    refused(b"")
    refused(good.replace(b"foundry-first-frame 1", b"foundry-first-frame 2", 1))  # another version
    body = good.split(b"\n", 1)[1]
    payload = json.loads(body)
    header_length = len(resealed(b" " * RECORD_AT_MOST)) - RECORD_AT_MOST  # as long for a body a little shorter
    padded = body + b" " * (RECORD_AT_MOST - header_length - len(body))
    assert len(resealed(padded)) == RECORD_AT_MOST
    path.write_bytes(resealed(padded))
    assert read_first_frame(Project(tmp_path), TODAY) is not None, "at the bound, still read"
    refused(resealed(padded + b" "))  # sound, but one byte past the bound
    for name, bad in (
        ("ids", [1, 2]),
        ("ids", ["fact-0001"] * len(payload["ids"])),
        ("types", payload["types"][:-1]),
        ("tags", [[1]] * len(payload["ids"])),
        ("omitted", [0] * len(payload["ids"])),
        ("broken", [["a.md"]]),
        ("listed", -1),
        ("total", "3"),
        ("whole", [1, 2, 3]),
        ("whole", [0, 0, 0, 0]),  # fewer facts than its rows
    ):
        refused(resealed(json.dumps({**payload, name: bad}).encode()))
    refused(resealed(json.dumps([payload]).encode()))
    refused(resealed(b"[" * 100000 + b"]" * 100000))  # nesting deep enough to exhaust the parser


def test_a_record_past_the_bound_is_not_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    generate(tmp_path, 30, 10)
    monkeypatch.setattr(first_frame, "RECORD_AT_MOST", 200)
    project = warm(tmp_path)
    view = Overview(project, TODAY, {}, with_doctor=False).index_view()
    identity, dir_mtime = project.store.snapshot_identity, project.store.dir_mtime
    assert identity is not None and dir_mtime is not None
    assert not write_first_frame(project, TODAY, view, identity, dir_mtime)
    path = record_path(project)
    assert path is not None and not path.exists()


Paint = tuple[bool, list[list[Segment]], int | None, object, str, int]


@pytest.mark.parametrize("rows", [300, 40])
async def test_the_record_paint_is_the_full_load_paint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rows: int
) -> None:
    """The TUI's load writes the record; the next start paints its first frame from it (the
    snapshot unread), row for row (text and style) the full load's first rows, with the same
    cursor, border, header counts and height (so the same scroll bar)."""
    monkeypatch.setattr(first_frame, "FIRST_ROWS", rows)
    generate(tmp_path, 250, 11)
    (tmp_path / ".foundry" / "config.json").write_text('{"indexTokenBudget": 600}')
    warm(tmp_path)
    async with make_app(tmp_path).run_test(size=(160, 45)) as pilot:  # writes the record
        await settle(pilot)
    preload = Preload(Project(tmp_path), TODAY).start()
    first = preload.view()  # the app takes it again (the thread is done: the same view)
    assert first is not None and (first.whole is None) == (rows == 300)
    paints: list[Paint] = []
    show, index_painted = IndexPane.show, MemoryScreen._index_painted

    def paint(pane: IndexPane, from_record: bool) -> None:
        counts = pane.screen.query_one(StatusHeader).part("counts")
        height = pane.virtual_size.height
        paints.append((from_record, rendered(pane), pane.highlighted, pane.border_subtitle, counts, height))

    def drawn(self: MemoryScreen, painted: threading.Event) -> None:
        paint(self.query_one(IndexPane), True)  # the first frame, drawn: the load waits for this
        index_painted(self, painted)

    def recorded(self: IndexPane, view: IndexView, show_inactive: bool) -> None:
        show(self, view, show_inactive)
        if view is not first:
            self.call_after_refresh(paint, self, False)

    monkeypatch.setattr(MemoryScreen, "_index_painted", drawn)
    monkeypatch.setattr(IndexPane, "show", recorded)
    from foundry_tui.tui.app import FoundryApp

    app = FoundryApp(tmp_path, TODAY, watch=False, root_label="demo", preload=preload)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, MemoryScreen) and app.screen.overview is not None
    assert [from_record for from_record, *_ in paints] == [True, False], "the record's paint, then the full load's"
    (_, first_rows, *first_rest), (_, full_rows, *full_rest) = paints
    assert len(first_rows) >= min(rows, 100)
    assert first_rows == full_rows[: len(first_rows)]
    assert first_rest == full_rest
    assert (len(first_rows) == len(full_rows)) == (rows == 300)


def test_a_saved_store_is_its_snapshot_until_a_file_changes(tmp_path: Path) -> None:
    generate(tmp_path, 20, 12)
    project = Project(tmp_path)
    project.sync()  # parsed and saved: its snapshot holds what the store holds
    assert project.store.snapshot_identity is not None
    facts = tmp_path / ".foundry" / "memory" / "facts"
    settled = time.time() - 3600
    path = facts / "fact-0003.md"
    path.write_text(path.read_text().replace("title: ", "title: Changed ", 1))
    os.utime(path, (settled, settled))
    project.store.refresh_names({"fact-0003.md"})
    assert project.store.snapshot_identity is None
