"""The fact store: loading `.foundry/memory/facts/` (through the parse cache), the
active set, and keeping up with changes on disk.

A file that does not parse never stops the others from loading: it is kept as a
`BrokenFile` with the reason, for doctor and the TUI to show.
"""

from __future__ import annotations

import datetime as _dt
import gc
import os
from dataclasses import dataclass, field
from pathlib import Path

from . import cache as _cache
from .facts import Fact, FactFileError, fact_number, parse_fact_text
from .paths import Layout


@dataclass(frozen=True, slots=True)
class BrokenFile:
    """A fact file that cannot be loaded, and why."""

    name: str
    reason: str


@dataclass(slots=True)
class Changes:
    """What one refresh found: file names added, changed and removed."""

    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.added or self.changed or self.removed)

    def merge(self, other: Changes) -> None:
        self.added += other.added
        self.changed += other.changed
        self.removed += other.removed

    def summary(self) -> str:
        """A short human line: `fact-0012 changed`, `3 facts added`."""
        parts = []
        for names, verb in ((self.added, "added"), (self.changed, "changed"), (self.removed, "removed")):
            if len(names) == 1:
                parts.append(f"{names[0].removesuffix('.md')} {verb}")
            elif names:
                parts.append(f"{len(names)} facts {verb}")
        return ", ".join(parts)


def _is_fact_file(name: str) -> bool:
    return name.endswith(".md") and not name.startswith(".")


def read_fact_file(path: Path) -> Fact | BrokenFile:
    """Parse one fact file; a problem becomes a BrokenFile with a one-line reason."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return BrokenFile(path.name, "not UTF-8 text: save the file as UTF-8")
    except OSError as exc:
        return BrokenFile(path.name, f"cannot be read ({exc.strerror})")
    try:
        return parse_fact_text(text, path.name[:-3])
    except FactFileError as exc:
        return BrokenFile(path.name, str(exc))


class FactStore:
    """Every fact file of one project, kept in step with the disk by `refresh()`."""

    def __init__(self, layout: Layout, *, use_cache: bool = True) -> None:
        self.layout = layout
        self._cache_path = _cache.cache_file(layout.root) if use_cache else None
        self._entries: dict[str, tuple[_cache.StatKey, Fact | BrokenFile]] = {}
        self._loaded = False
        self._dir_mtime: int | None = None
        self.generation = 0
        self.facts: dict[str, Fact] = {}
        self.broken: dict[str, BrokenFile] = {}
        self._derived: tuple[int, _dt.date, list[Fact], dict[str, str]] | None = None
        self._active_map: tuple[object, dict[str, Fact]] | None = None

    # ---- loading ---------------------------------------------------------------------

    def _stat_all(self) -> dict[str, os.stat_result]:
        found: dict[str, os.stat_result] = {}
        try:
            fd = os.open(self.layout.facts_dir, os.O_RDONLY)
        except (FileNotFoundError, NotADirectoryError):
            return found
        try:
            stat = os.stat
            for name in os.listdir(fd):
                if _is_fact_file(name):
                    try:  # relative to the folder's fd: no path walk per file (about twice as fast)
                        found[name] = stat(name, dir_fd=fd)
                    except FileNotFoundError:
                        continue
        finally:
            os.close(fd)
        return found

    def refresh(self) -> Changes:
        """Bring the store in line with the disk: re-parse only files whose stat changed."""
        # Loading builds many small objects at once; the cyclic GC would only re-scan them.
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            return self._refresh()
        finally:
            if gc_was_enabled:
                gc.enable()

    def _refresh(self) -> Changes:
        try:
            self._dir_mtime = os.stat(self.layout.facts_dir).st_mtime_ns
        except FileNotFoundError:
            self._dir_mtime = None
        stats = self._stat_all()
        cached: _cache.Entries = {}
        if not self._loaded:
            cached = _cache.load_entries(self._cache_path, self.layout.root)
        changes = Changes()
        parsed = 0
        for name, st in stats.items():
            key = _cache.stat_key(st)
            current = self._entries.get(name)
            if current is not None and current[0] == key:
                continue
            item: Fact | BrokenFile
            hit = cached.get(name)
            if hit is not None and hit[0] == key:
                record = hit[1]
                item = BrokenFile(name, record[1]) if record[0] == "!broken" else Fact.from_record(record)
            else:
                item = read_fact_file(self.layout.facts_dir / name)
                parsed += 1
            self._set(name, key, item)
            if self._loaded:
                (changes.changed if current is not None else changes.added).append(name)
        for name in [n for n in self._entries if n not in stats]:
            self._drop(name)
            changes.removed.append(name)
        if parsed or (changes.removed and self._loaded) or (not self._loaded and len(cached) != len(stats)):
            self.save_cache()
        self._loaded = True
        if changes or parsed:
            self.generation += 1
        return changes

    def refresh_names(self, names: set[str]) -> Changes:
        """Re-check only these file names (from a file watcher): cheaper than a full scan."""
        if not self._loaded:
            self.refresh()
            return Changes()
        changes = Changes()
        for name in sorted(names):
            if not _is_fact_file(name):
                continue
            path = self.layout.facts_dir / name
            try:
                key = _cache.stat_key(os.stat(path))
            except FileNotFoundError:
                if name in self._entries:
                    self._drop(name)
                    changes.removed.append(name)
                continue
            current = self._entries.get(name)
            if current is not None and current[0] == key:
                continue
            self._set(name, key, read_fact_file(path))
            (changes.changed if current is not None else changes.added).append(name)
        if changes:
            self.generation += 1
        return changes

    def folder_changed(self) -> bool:
        """Whether the facts folder's own mtime moved (a file was created, renamed or removed)."""
        try:
            return os.stat(self.layout.facts_dir).st_mtime_ns != self._dir_mtime
        except FileNotFoundError:
            return self._dir_mtime is not None

    def _set(self, name: str, key: _cache.StatKey, item: Fact | BrokenFile) -> None:
        previous = self._entries.get(name)
        if previous is not None:
            self._forget(name, previous[1])
        self._entries[name] = (key, item)
        if isinstance(item, Fact):
            self.facts[item.id] = item
        else:
            self.broken[name] = item

    def _drop(self, name: str) -> None:
        previous = self._entries.pop(name, None)
        if previous is not None:
            self._forget(name, previous[1])

    def _forget(self, name: str, item: Fact | BrokenFile) -> None:
        if isinstance(item, Fact):
            if self.facts.get(item.id) is item:
                del self.facts[item.id]
        else:
            self.broken.pop(name, None)

    def record_written(self, fact: Fact) -> None:
        """Take a fact this process has just written into the store without re-reading it."""
        name = f"{fact.id}.md"
        try:
            key = _cache.stat_key(os.stat(self.layout.facts_dir / name))
        except FileNotFoundError:
            return
        self._set(name, key, fact)
        self.generation += 1

    def save_cache(self) -> None:
        entries: _cache.Entries = {}
        for name, (key, item) in self._entries.items():
            record = ("!broken", item.reason) if isinstance(item, BrokenFile) else item.to_record()
            entries[name] = (key, record)
        _cache.save_entries(self._cache_path, self.layout.root, entries)

    # ---- the active set --------------------------------------------------------------

    def file_names(self) -> list[str]:
        return sorted(self._entries)

    def max_number(self) -> int:
        """The highest fact number on disk, from valid facts and from the names of broken files."""
        numbers = [fact.number for fact in self.facts.values()]
        numbers += [fact_number(name[:-3]) for name in self.broken]
        return max(numbers, default=0)

    def superseded_by(self) -> dict[str, str]:
        """Old id → the newest fact id naming it in `supersedes` (presence, not depth)."""
        return self._derive(None)[3]

    def _derive(self, today: _dt.date | None) -> tuple[int, _dt.date, list[Fact], dict[str, str]]:
        day = today or _dt.date.today()
        derived = self._derived
        if derived is not None and derived[0] == self.generation and (today is None or derived[1] == day):
            return derived
        replaced: dict[str, str] = {}
        for fact in sorted(self.facts.values(), key=lambda f: f.order_key):
            for old in fact.replaced_ids():
                if old != fact.id:
                    replaced[old] = fact.id
        iso = day.isoformat()
        active = [
            f for f in self.facts.values() if f.id not in replaced and not (f.expires is not None and f.expires < iso)
        ]
        active.sort(key=lambda f: f.order_key)
        self._derived = (self.generation, day, active, replaced)
        return self._derived

    def active_facts(self, today: _dt.date) -> list[Fact]:
        """Facts that are neither expired (expires earlier than today) nor superseded, by id."""
        return self._derive(today)[2]

    def active_by_id(self, today: _dt.date) -> dict[str, Fact]:
        """The active facts by id (kept with the active set, so searches need not rebuild it)."""
        derived = self._derive(today)
        if self._active_map is None or self._active_map[0] is not derived:
            self._active_map = (derived, {f.id: f for f in derived[2]})
        return self._active_map[1]

    def inactive_reason(self, fact: Fact, today: _dt.date) -> str | None:
        """Why `fact` is inactive (`expired 2026-06-30`, `superseded by fact-0009`), or None."""
        if fact.expires is not None and fact.expires < today.isoformat():
            return f"expired {fact.expires}"
        newer = self._derive(today)[3].get(fact.id)
        if newer is not None:
            return f"superseded by {newer}"
        return None

    def sorted_facts(self) -> list[Fact]:
        return sorted(self.facts.values(), key=lambda f: f.order_key)

    def get(self, fact_id: str) -> Fact | None:
        return self.facts.get(fact_id)


def open_store(layout: Layout, *, use_cache: bool = True) -> FactStore:
    """A store loaded from disk."""
    store = FactStore(layout, use_cache=use_cache)
    store.refresh()
    return store
