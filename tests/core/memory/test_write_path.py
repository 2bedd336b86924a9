"""The writer's fast path: a watched project learns every change from the kernel's queue
(exact, no stat of every file), and the writer's lookups stay equal to a full recount."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.reports.index_file import index_order
from foundry_tui.core.memory.storage.watchers import KernelWatcher as _KernelWatcher
from foundry_tui.core.memory.writing.write import retire_facts
from tests.helpers import TODAY, write

WRITE_ONE = """
import sys
from pathlib import Path
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.writing.write import memory_write
from foundry_tui.core.memory.model.request import WriteRequest
from foundry_tui.core.paths import resolve_today
r = memory_write(Project(Path(sys.argv[1])), WriteRequest(title=sys.argv[2], body="Same body.", type="convention"), resolve_today("2026-11-30"))
print(r.action, r.fact_id)
"""

needs_inotify = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")


def _other_process_writes(root: Path, title: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", WRITE_ONE, str(root), title], capture_output=True, text=True, check=True, timeout=60
    )
    return out.stdout.strip()


@needs_inotify
def test_a_watched_writer_sees_another_processes_write_at_once(project: Project) -> None:
    write(project, "First fact", "One.")
    project.watch()
    try:
        assert isinstance(project._watcher, _KernelWatcher)
        project.sync()
        assert _other_process_writes(project.root, "Written elsewhere") == "created fact-0002"
        # No waiting: the other process's fact is in the kernel's queue before our lock is taken.
        assert write(project, "Written elsewhere", "Same body.").startswith("unchanged: fact-0002")
        assert write(project, "Written elsewhere", "Another body.").startswith(
            "updated: fact-0003 (supersedes fact-0002)"
        )
        assert _other_process_writes(project.root, "Written elsewhere").startswith("updated fact-0004")
        assert write(project, "Third", "Three.").startswith("created: fact-0005\nIndex: 3/3 facts listed")
        # An in-place edit by hand (no rename, the folder's mtime does not move) is seen too.
        path = project.layout.facts_dir / "fact-0001.md"
        with path.open("a") as handle:
            handle.write("Edited in place.\n")
        project.sync()
        assert "Edited in place." in project.store.facts["fact-0001"].body
        (project.layout.facts_dir / "fact-0005.md").unlink()
        project.sync()
        assert "fact-0005" not in project.store.facts
    finally:
        project.close()


@needs_inotify
def test_a_watched_project_rescans_when_the_folder_is_replaced(project: Project) -> None:
    write(project, "First fact", "One.")
    project.watch()
    try:
        project.sync()
        facts = project.layout.facts_dir
        facts.rename(facts.with_name("old-facts"))
        facts.mkdir()
        project.sync()
        assert not project.store.facts
        (facts.with_name("old-facts") / "fact-0001.md").rename(facts / "fact-0001.md")
        project.sync()
        assert list(project.store.facts) == ["fact-0001"]
    finally:
        project.close()


def test_the_writers_lookups_equal_a_full_recount(project: Project) -> None:
    for n in range(12):
        write(project, f"Fact number {n % 8}", f"Body {n}.", ("decision", "convention", "glossary")[n % 3])
    retire_facts(project, ["fact-0003"], "2026-01-01", TODAY)
    write(project, "Fact number 5", "Restated.")
    store = project.store
    fresh = Project(project.root)
    fresh.sync()
    assert store.active_ids_in_index_order(TODAY) == [f.id for f in index_order(fresh.active_facts(TODAY))]
    assert store.max_number() == fresh.store.max_number() == 13
    for n in range(8):
        expected = [f.id for f in fresh.active_facts(TODAY) if f.title == f"Fact number {n}"]
        assert [f.id for f in store.active_with_title(f"fact number {n}", TODAY)] == expected
    assert [f.id for f in store.active_with_title("fact number 5", TODAY)] == ["fact-0013"]
    assert [f.id for f in store.active_with_title("fact number 2", TODAY)] == ["fact-0011"]  # 0003 replaced, retired


def _recount(store: object) -> int:
    """The highest number as max_number always counted it, from scratch."""
    from foundry_tui.core.memory.model.facts import fact_number
    from foundry_tui.core.memory.storage.store import FactStore

    assert isinstance(store, FactStore)
    numbers = [f.number for f in store.facts.values()] + [fact_number(n[:-3]) for n in store.broken]
    return max(numbers, default=0)


def test_the_highest_number_is_kept_as_it_was_counted(project: Project) -> None:
    facts = project.layout.facts_dir
    facts.mkdir(parents=True, exist_ok=True)
    (facts / "notes.md").write_text("not a fact\n")  # a broken file whose name holds no number
    project.sync()
    assert project.store.max_number() == _recount(project.store)
    write(project, "One", "1.")
    write(project, "Two", "2.")
    assert project.store.max_number() == _recount(project.store)
    (facts / max(p.name for p in facts.glob("fact-*.md"))).unlink()
    project.sync()
    assert project.store.max_number() == _recount(project.store)
