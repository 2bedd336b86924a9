"""The parse cache (a second start does not re-parse), the watcher, and a search from the cache
that needs no YAML. The layers are held by import-linter (`tox -e imports`)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from foundry_tui.core.memory.model import facts
from foundry_tui.core.memory.model.hits import Hit
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.search.reply import memory_search
from foundry_tui.core.memory.storage import cache
from foundry_tui.core.memory.storage.snapshot import Snapshot
from foundry_tui.core.memory.storage.store import FactStore
from tests.helpers import TODAY, write


def _count_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    real = facts.parse_fact_text

    def counting(text: str, stem: str | None = None) -> facts.Fact:
        calls.append(stem or "")
        return real(text, stem)

    monkeypatch.setattr("foundry_tui.core.memory.storage.store.parse_fact_text", counting)
    return calls


def _age_files(folder: Path) -> None:
    old = time.time() - 60
    for path in folder.iterdir():
        os.utime(path, (old, old))


def test_second_start_reads_from_the_cache(demo: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    _age_files(demo.layout.facts_dir)
    calls = _count_parses(monkeypatch)
    FactStore(demo.layout).refresh()
    assert len(calls) == 16
    calls.clear()
    second = FactStore(demo.layout)
    second.refresh()
    assert calls == [] and len(second.facts) == 16
    # An edited file is parsed again; the others still come from the cache.
    path = demo.layout.facts_dir / "fact-0012.md"
    path.write_text(path.read_text().replace("paying organisation", "paying company"))
    third = FactStore(demo.layout)
    third.refresh()
    assert calls == ["fact-0012"]
    assert third.facts["fact-0012"].title == "A tenant is one paying company, not one user"


def test_corrupt_or_foreign_cache_is_ignored(demo: Project) -> None:
    FactStore(demo.layout).refresh()
    path = cache.cache_file(demo.root)
    assert path is not None and path.exists()
    good = path.read_bytes()
    assert Snapshot.loads(good, str(demo.root)) is not None
    assert Snapshot.loads(good, "/somewhere/else") is None
    path.write_bytes(b"\x00garbage")
    store = FactStore(demo.layout)
    store.refresh()
    assert len(store.facts) == 16


def test_unchanged_store_answers_searches_from_the_snapshot(demo: Project) -> None:
    _age_files(demo.layout.facts_dir)
    FactStore(demo.layout).refresh()  # writes the snapshot
    fresh = Project(demo.root)
    materialised = Project(demo.root)
    for query in ("postgres migrations", "json snake_case", "orders payments webhook", "tenant", "zzz nothing"):
        for type_ in (None, "decision", "convention"):
            snap_text, snap_hits = memory_search(fresh, query, TODAY, type=type_)
            assert fresh.store.pending_snapshot is not None  # no Fact built but the hits
            materialised.store.facts  # noqa: B018 - build every Fact
            text, hits = memory_search(materialised, query, TODAY, type=type_)
            assert snap_text == text and [h.fact for h in snap_hits] == [h.fact for h in hits]
    # An edit is seen: the snapshot no longer matches, so the store is built from it plus the changed file.
    path = demo.layout.facts_dir / "fact-0007.md"
    path.write_text(path.read_text().replace("snake_case", "kebab-case"))
    assert memory_search(fresh, "kebab", TODAY)[1][0].fact.id == "fact-0007"
    assert fresh.store.pending_snapshot is None


def test_a_file_written_just_before_the_snapshot_is_read_again(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = Project(root)
    write(project, "Fresh fact", "Written a moment ago.")
    FactStore(project.layout).refresh()  # snapshot taken while the file is "racy"
    calls = _count_parses(monkeypatch)
    FactStore(project.layout).refresh()
    assert calls == ["fact-0001"]  # not trusted from the snapshot: re-read


def test_cache_off(demo: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FOUNDRY_NO_CACHE", "1")
    assert cache.cache_file(demo.root) is None
    assert len(FactStore(demo.layout).refresh().added) == 0


def test_broken_files_are_cached_with_their_reason(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = root / ".foundry/memory/facts/fact-0001.md"
    bad.write_text("---\nid: [\n---\n")
    _age_files(bad.parent)
    first = FactStore(Project(root).layout)
    first.refresh()
    calls = _count_parses(monkeypatch)
    second = FactStore(Project(root).layout)
    second.refresh()
    assert calls == [] and second.broken["fact-0001.md"].reason == first.broken["fact-0001.md"].reason


@pytest.mark.serial
def test_watcher_sees_in_place_edits_within_a_second(demo: Project) -> None:
    demo.sync()
    demo.use_search_index()
    demo.watch()
    try:
        time.sleep(0.3)  # the watcher thread sets up its inotify watch
        path = demo.layout.facts_dir / "fact-0016.md"
        with path.open("a") as handle:  # an in-place append: the folder's mtime does not move
            handle.write("\nDaylight saving is handled by zoneinfo.\n")
        deadline = time.monotonic() + 1.0
        found: list[Hit] = []
        while time.monotonic() < deadline and not found:
            _text, found = memory_search(demo, "zoneinfo", TODAY)
            time.sleep(0.02)
        assert [h.fact.id for h in found] == ["fact-0016"]
        write(demo, "Zoneinfo beats pytz", "Stdlib.")  # a write from this process is seen at once
        assert memory_search(demo, "pytz", TODAY)[1][0].fact.title == "Zoneinfo beats pytz"
    finally:
        demo.close()


def test_search_from_the_cache_needs_no_yaml(demo: Project) -> None:
    FactStore(demo.layout).refresh()  # fills the cache
    _age_files(demo.layout.facts_dir)
    FactStore(demo.layout).refresh()
    code = (
        "import sys, datetime\nfrom pathlib import Path\n"
        "from foundry_tui.core.memory.project import Project\nfrom foundry_tui.core.memory.search.reply import memory_search\n"
        f"text, hits = memory_search(Project(Path({str(demo.root)!r})), 'postgres', datetime.date(2026, 11, 30))\n"
        "assert hits, text\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('yaml', 'frontmatter', 'jsonschema', 'textual', 'rich'))\n"
        "assert not heavy, heavy\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=os.environ.copy()
    )
    assert proc.returncode == 0, proc.stderr


def _answers(project: Project) -> tuple[object, ...]:
    """What a fresh process would answer: a search, the active facts, the broken files."""
    text, _hits = memory_search(project, "postgres tenant database migrations", TODAY)
    active = [f.to_dict() for f in project.store.active_facts(TODAY)]
    broken = sorted((b.name, b.reason) for b in project.store.broken.values())
    return text, active, broken, project.store.max_number()


def test_a_corrupted_cache_never_answers(demo: Project) -> None:
    """Issue 9, Medium 5: random byte flips in the cache file are caught by its checksum;
    every answer equals the uncached one, and the corrupted file is replaced: at once when the
    load finds it, or dropped when a joined field (checked on first use, issue 33) is found
    damaged by a search, and written whole by the next process."""
    import random

    _age_files(demo.layout.facts_dir)  # no racy entries: the whole snapshot is trusted
    (demo.layout.facts_dir / "fact-0099.md").write_text("not a fact\n")  # one broken file in the cache too
    _age_files(demo.layout.facts_dir)
    expected = _answers(Project(demo.root, use_cache=False))
    FactStore(demo.layout).refresh()
    path = cache.cache_file(demo.root)
    assert path is not None
    good = path.read_bytes()
    rng = random.Random(9)
    for flip in range(200):
        data = bytearray(good)
        for _ in range(1 + flip % 3):
            position = rng.randrange(len(data))
            data[position] ^= rng.randrange(1, 256)
        path.write_bytes(bytes(data))
        project = Project(demo.root)
        project.sync()
        assert _answers(project) == expected, f"flip {flip}"
        if not path.exists():  # dropped by the search that found it damaged
            Project(demo.root).sync()
        assert Snapshot.loads(path.read_bytes(), str(demo.root)) is not None  # re-saved whole
