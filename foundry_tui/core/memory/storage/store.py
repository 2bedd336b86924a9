"""The fact store: loading `.foundry/memory/facts/` (through the parse cache), the
active set, and keeping up with changes on disk.

A file that does not parse never stops the others from loading: it is kept as a
`BrokenFile` with the reason, for doctor and the TUI to show.
"""

from __future__ import annotations

import bisect
import contextlib
import datetime as _dt
import itertools
import os
import stat
from collections.abc import Iterable
from functools import partial
from pathlib import Path

from foundry_tui.core.atomic import atomic_write
from foundry_tui.core.collector_hold import held
from foundry_tui.core.memory.model.facts import (
    MAX_FACT_FILE_BYTES,
    Fact,
    FactFileError,
    fact_number,
    id_order,
    normalise,
    oversize_reason,
    parse_fact_text,
)
from foundry_tui.core.memory.model.vocabulary import TYPE_RANK
from foundry_tui.core.memory.storage import cache as _cache
from foundry_tui.core.memory.storage.snapshot import Snapshot
from foundry_tui.core.paths import Layout, UnsafePathError, decode_text, fact_file_name, read_regular


class BrokenFile:
    """A fact file that cannot be loaded, and why."""

    __slots__ = ("name", "reason")

    def __init__(self, name: str, reason: str) -> None:
        self.name = name
        self.reason = reason

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BrokenFile) and (self.name, self.reason) == (other.name, other.reason)

    def __hash__(self) -> int:
        return hash((self.name, self.reason))

    def __repr__(self) -> str:
        return f"BrokenFile({self.name!r}, {self.reason!r})"


class Changes:
    """What one refresh found: file names added, changed and removed."""

    __slots__ = ("added", "changed", "removed")

    def __init__(
        self, added: list[str] | None = None, changed: list[str] | None = None, removed: list[str] | None = None
    ) -> None:
        self.added = added if added is not None else []
        self.changed = changed if changed is not None else []
        self.removed = removed if removed is not None else []

    def __repr__(self) -> str:
        return f"Changes(added={self.added!r}, changed={self.changed!r}, removed={self.removed!r})"

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
    """Parse one fact file; a problem becomes a BrokenFile with a one-line reason.

    The caller has checked that the facts folder stays inside the root; the file itself
    must be a regular file, not a link (it could lead anywhere), a FIFO or a device."""
    return _read_fact(str(path), path.name)


def _read_fact(path: str, name: str) -> Fact | BrokenFile:
    """read_fact_file on a path given as text (no pathlib objects per file: loading 100,000 files)."""
    try:
        info = os.lstat(path)
        if stat.S_ISREG(info.st_mode) and info.st_size > MAX_FACT_FILE_BYTES:  # never read, so never served
            return BrokenFile(name, oversize_reason(info.st_size))
        text = decode_text(read_regular(path, MAX_FACT_FILE_BYTES, follow=False, shown=name))
    except UnicodeDecodeError:
        return BrokenFile(name, "not UTF-8 text: save the file as UTF-8")
    except UnsafePathError as exc:
        return BrokenFile(name, str(exc).removeprefix(f"{name} "))
    except OSError as exc:
        return BrokenFile(name, f"cannot be read ({exc.strerror})")
    try:
        return parse_fact_text(text, name[:-3])
    except FactFileError as exc:
        return BrokenFile(name, str(exc))


# A first-ever load of at least this many files parses them on every core (one process per
# core, this one included); fewer are parsed here, as starting a process costs more.
PARALLEL_PARSE_MIN = 4000


def _parse_chunk(folder: str, names: list[str]) -> list[Fact | BrokenFile]:
    return [_read_fact(f"{folder}/{name}", name) for name in names]


def parse_files(folder: str, names: list[str]) -> list[Fact | BrokenFile]:
    """Each of `names` in `folder` parsed (read_fact_file), in order; many files on several cores.

    The other processes run the same function on their share and send the Facts back
    whole (pickled), so every fact and every broken-file message is what one process
    would have made. If they cannot be started, this process parses everything."""
    cores = os.cpu_count() or 1
    if len(names) < PARALLEL_PARSE_MIN or cores < 2:
        return _parse_chunk(folder, names)
    import multiprocessing
    import threading
    from concurrent.futures import ProcessPoolExecutor

    # fork is cheap, but forking a process that runs other threads (the TUI, the MCP server)
    # can copy a lock held mid-operation; those start fresh interpreters instead.
    method = "fork" if threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods() else "spawn"
    workers = min(cores, 8)
    size = -(-len(names) // workers)
    chunks = [names[i : i + size] for i in range(0, len(names), size)]
    try:
        pool = ProcessPoolExecutor(max_workers=len(chunks) - 1, mp_context=multiprocessing.get_context(method))
    except (OSError, ValueError, ImportError):
        return _parse_chunk(folder, names)
    with pool:
        try:
            futures = [pool.submit(_parse_chunk, folder, chunk) for chunk in chunks[1:]]
        except Exception:  # the processes could not start: parse here
            futures = []
        done = _parse_chunk(folder, chunks[0])
        for future, chunk in zip(futures, chunks[1:], strict=False):
            try:
                done += future.result()
            except Exception:  # a worker died (out of memory, killed): its share is parsed here
                done += _parse_chunk(folder, chunk)
        if not futures:
            done += [item for chunk in chunks[1:] for item in _parse_chunk(folder, chunk)]
    return done


JOURNAL_LIMIT = 1 << 20  # ids the journal of changes holds before it starts afresh


class FactStore:
    """Every fact file of one project, kept in step with the disk by `refresh()`.

    After a load that found every file unchanged since the snapshot was written, the
    facts stay in the snapshot's columns until something asks for `facts`; searches
    answer from the snapshot directly (`pending_snapshot`)."""

    def __init__(self, layout: Layout, *, use_cache: bool = True) -> None:
        self.layout = layout
        self._cache_path = _cache.cache_file(layout.root) if use_cache else None
        self._entries: dict[str, tuple[_cache.StatKey, Fact | BrokenFile]] = {}
        self._loaded = False
        self._dir_mtime: int | None = None
        self.generation = 0
        self._facts: dict[str, Fact] = {}
        self._broken: dict[str, BrokenFile] = {}
        self._pending: Snapshot | None = None
        self._ahead: Snapshot | None = None  # loaded before the first refresh (load_snapshot_ahead)
        # The identity of the snapshot file that holds exactly the entries known now (None: not
        # known, or changed since): what the TUI's first-frame record is keyed to.
        self._identity: bytes | None = None
        self._derived: tuple[int, _dt.date, list[Fact], dict[str, str]] | None = None
        self._active_map: tuple[object, dict[str, Fact]] | None = None
        # The highest number among the file names (None: none at all), once known; kept on each change.
        self._max_number: tuple[int | None] | None = None
        self._sorted: tuple[int, list[Fact]] | None = None
        self._lookups: _Lookups | None = None
        # The ids of the facts set or dropped, in order, since the journal began (its epoch):
        # a word index re-reads only those after a change (Project keeps its place in it).
        self.journal: list[str] = []
        self.journal_epoch = 0

    # ---- loading ---------------------------------------------------------------------

    @property
    def loaded(self) -> bool:
        return self._loaded

    @property
    def facts(self) -> dict[str, Fact]:
        """Valid facts by id."""
        if self._pending is not None:
            self._materialise()
        return self._facts

    @property
    def broken(self) -> dict[str, BrokenFile]:
        """Files that cannot be loaded, by file name."""
        if self._pending is not None:
            self._materialise()
        return self._broken

    @property
    def cache_path(self) -> Path | None:
        """The parse cache's file (None: caching is off)."""
        return self._cache_path

    @property
    def snapshot_identity(self) -> bytes | None:
        """The identity of the parse cache's snapshot when it holds the files as the store
        knows them now (None otherwise: not known, or changed since it was written)."""
        return self._identity

    @property
    def dir_mtime(self) -> int | None:
        """The facts folder's mtime (ns) as the last full refresh saw it, before its stat."""
        return self._dir_mtime

    @property
    def pending_snapshot(self) -> Snapshot | None:
        """The snapshot the store was loaded from, while no Fact has been built from it."""
        return self._pending

    def _materialise(self) -> None:
        snapshot, self._pending = self._pending, None
        if snapshot is None:
            return
        try:
            self._materialise_from(snapshot)
        finally:
            snapshot.close()

    def _materialise_from(self, snapshot: Snapshot) -> None:
        identity = self._identity  # the same entries, as Facts: still that snapshot's
        with held():
            self._fill_from(snapshot)
        self._identity = identity

    def _fill_from(self, snapshot: Snapshot) -> None:
        if self._entries or self._lookups is not None:
            for name, key, item in snapshot.items():
                self._set(name, key, item if isinstance(item, Fact) else BrokenFile(name, item))
            return
        # A store filled from nothing but the snapshot: every entry set directly, in one pass.
        keys, names, entries = snapshot.keys, snapshot.names, self._entries
        facts = iter(snapshot.all_facts())
        valid = set(snapshot.positions)
        for pos, name in enumerate(names):
            key = (keys[3 * pos], keys[3 * pos + 1], keys[3 * pos + 2])
            if pos in valid:
                fact = next(facts)
                entries[name] = (key, fact)
                self._facts[fact.id] = fact
            else:
                broken = BrokenFile(name, snapshot.broken[name])
                entries[name] = (key, broken)
                self._broken[name] = broken
        self._max_number = None

    def _stat_all(self) -> tuple[list[str], list[int]]:
        """Every fact file name, sorted, and their stat keys flattened (mtime_ns, size, inode)."""
        try:  # a file where the folder belongs is an error naming it, not an empty memory
            fd = os.open(self.layout.facts_dir, os.O_RDONLY | os.O_DIRECTORY)
        except FileNotFoundError:
            return [], []
        names: list[str] = []
        keys: list[int] = []
        try:
            stat = os.stat
            for name in sorted(os.listdir(fd)):
                if _is_fact_file(name):
                    try:  # relative to the folder's fd: no path walk per file (about twice as fast)
                        st = stat(name, dir_fd=fd)
                    except FileNotFoundError:
                        continue
                    names.append(name)
                    keys += (st.st_mtime_ns, st.st_size, st.st_ino)
        finally:
            os.close(fd)
        return names, keys

    def _load_snapshot(self) -> Snapshot | None:
        if self._cache_path is None:
            return None
        try:
            file = open(self._cache_path, "rb")  # noqa: SIM115  # the snapshot keeps it for the bodies
            inode = os.fstat(file.fileno()).st_ino
        except OSError:
            return None
        snapshot = Snapshot.load(file, str(self.layout.root))
        if snapshot is not None:
            snapshot.on_damage = partial(_drop_cache_file, self._cache_path, inode)
        return snapshot

    def load_snapshot_ahead(self) -> Snapshot | None:
        """The parse cache's snapshot, loaded before the first refresh, which then compares
        the files with it instead of loading it again (None: no usable snapshot, or already
        loaded). Nothing here says the files still match it: the TUI paints its index from
        the columns first, and the refresh that follows tells."""
        if self._loaded:
            return None
        if self._ahead is None:
            self._ahead = self._load_snapshot()
        return self._ahead

    def refresh(self) -> Changes:
        """Bring the store in line with the disk: re-parse only files whose stat changed."""
        # Loading builds many small objects at once; the cyclic GC would only re-scan them.
        # No freeze: one on every reload kept that moment's garbage cycles for good
        # (core/collector_hold.py); `foundry tui` freezes once, after its start-up.
        with held():
            return self._refresh()

    def _refresh(self) -> Changes:
        self.layout.check_inside(self.layout.facts_dir)  # a facts folder linked out of the root is refused by name
        try:
            self._dir_mtime = os.stat(self.layout.facts_dir).st_mtime_ns
        except FileNotFoundError:
            self._dir_mtime = None
        names, keys = self._stat_all()
        pending = self._pending
        if pending is not None:
            if names == pending.names and keys == pending.keys:
                return Changes()
            self._materialise()
        snapshot = None
        if not self._loaded:
            snapshot = self._ahead if self._ahead is not None else self._load_snapshot()
            self._ahead = None
            if snapshot is not None and snapshot.names == names and snapshot.keys == keys:
                self._pending = snapshot  # nothing changed: no Fact is built until one is needed
                self._identity = snapshot.identity
                self._loaded = True
                self.generation += 1
                return Changes()
        reuse = {}
        if snapshot is not None:
            snapshot.read_bodies()  # most facts come from it: every body in one read
            reuse = snapshot.by_name()
        changes = Changes()
        parsed = 0
        stale: list[tuple[str, _cache.StatKey, Fact | BrokenFile | None]] = []
        for idx, name in enumerate(names):
            key = (keys[3 * idx], keys[3 * idx + 1], keys[3 * idx + 2])
            current = self._entries.get(name)
            if current is not None and current[0] == key:
                continue
            cached = reuse.get(name)
            if cached is not None and snapshot is not None and snapshot.key_of(cached) == key:
                found = snapshot.item_at(cached)
                stale.append((name, key, found if isinstance(found, Fact) else BrokenFile(name, found)))
            else:
                stale.append((name, key, None))
        if snapshot is not None:
            snapshot.close()
        if len(stale) > 256:  # cheaper to build the writer's lookups anew than to update them
            self._lookups = None
        unread = [name for name, _key, item in stale if item is None]
        read = iter(parse_files(str(self.layout.facts_dir), unread))
        parsed = len(unread)
        for name, key, known in stale:
            current = self._entries.get(name)
            item = known if known is not None else next(read)
            self._set(name, key, item)
            if self._loaded:
                (changes.changed if current is not None else changes.added).append(name)
        present = set(names)
        for name in [n for n in self._entries if n not in present]:
            self._drop(name)
            changes.removed.append(name)
        if parsed or changes.removed or (snapshot is None and not self._loaded and names):
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
        self.layout.check_inside(self.layout.facts_dir)
        changes = Changes()
        for name in sorted(names):
            if not _is_fact_file(name):
                continue
            path = self.layout.facts_dir / name
            try:
                key = _cache.stat_key(os.stat(path))
            except FileNotFoundError:
                if name in self._entries or (self._pending is not None and name in self._pending.names):
                    self._materialise()
                    self._drop(name)
                    changes.removed.append(name)
                continue
            if self._pending is not None:
                pos = self._pending.by_name().get(name)
                if pos is not None and self._pending.key_of(pos) == key:
                    continue
                self._materialise()
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
        self._identity = None
        previous = self._entries.get(name)
        if previous is not None:
            self._forget(name, previous[1])
        self._entries[name] = (key, item)
        if self._max_number is not None:
            number, known = fact_number(name[:-3]), self._max_number[0]
            self._max_number = (number if known is None else max(known, number),)
        if isinstance(item, Fact):
            self._facts[item.id] = item
            self._journal(item.id)
            if self._lookups is not None:
                self._lookups.add(item)
        else:
            self._broken[name] = item

    def _drop(self, name: str) -> None:
        self._identity = None
        previous = self._entries.pop(name, None)
        if previous is not None:
            self._forget(name, previous[1])
            self._max_number = None  # known again on the next call

    def _journal(self, fact_id: str) -> None:
        if len(self.journal) >= JOURNAL_LIMIT:  # a fresh journal: its readers compare every fact once
            self.journal = []
            self.journal_epoch += 1
        self.journal.append(fact_id)

    def _forget(self, name: str, item: Fact | BrokenFile) -> None:
        if isinstance(item, Fact):
            self._journal(item.id)
            if self._facts.get(item.id) is item:
                del self._facts[item.id]
                if self._lookups is not None:
                    self._lookups.remove(item)
        else:
            self._broken.pop(name, None)

    def lookups(self) -> _Lookups:
        """The writer's lookups (titles, what is replaced, index order), built on first use and
        then kept in step with every change, so that a write costs what it changes."""
        if self._pending is not None:
            self._lookups = None
            self._materialise()
        if self._lookups is None:
            self._lookups = _Lookups(self._facts.values())
        return self._lookups

    def record_written(self, fact: Fact) -> None:
        """Take a fact this process has just written into the store without re-reading it."""
        self._materialise()
        name = fact_file_name(fact.id)
        try:
            key = _cache.stat_key(os.stat(self.layout.facts_dir / name))
        except FileNotFoundError:
            return
        self._set(name, key, fact)
        self.generation += 1

    def save_cache(self) -> None:
        """Write the snapshot of the store as it is (atomically; failures ignored: it is a cache)."""
        if self._cache_path is None:
            return
        self._materialise()
        names = sorted(self._entries)
        keys = [k for name in names for k in self._entries[name][0]]
        snapshot = Snapshot.build(names, keys, {name: self._entries[name][1] for name in names})
        self._identity = None
        with contextlib.suppress(OSError):
            atomic_write(self._cache_path, snapshot.dumps(str(self.layout.root)), inside=None)
            self._identity = snapshot.identity

    # ---- the active set --------------------------------------------------------------

    def file_names(self) -> list[str]:
        if self._pending is not None:
            return list(self._pending.names)
        return sorted(self._entries)

    def max_number(self) -> int:
        """The highest fact number on disk, from valid facts and from the names of broken files."""
        if self._max_number is None or self._pending is not None:
            numbers = [fact.number for fact in self.facts.values()]
            numbers += [fact_number(name[:-3]) for name in self.broken]
            self._max_number = (max(numbers) if numbers else None,)
        highest = self._max_number[0]
        return 0 if highest is None else highest

    def active_with_title(self, title_key: str, today: _dt.date) -> list[Fact]:
        """The active facts whose normalised title is `title_key`, by id."""
        lookups = self.lookups()
        iso = today.isoformat()
        found = [
            fact
            for fact_id in lookups.titles.get(title_key, ())
            if lookups.is_active(fact := self._facts[fact_id], iso)
        ]
        return sorted(found, key=lambda f: f.order_key)

    def active_ids_in_index_order(self, today: _dt.date) -> list[str]:
        """The ids of the active facts in INDEX.md's order (type, then id), as
        index_order(active_facts(today)) gives them, without visiting every Fact."""
        lookups = self.lookups()
        iso = today.isoformat()
        inactive = set(lookups.replaced)
        inactive.update(fact_id for fact_id, expires in lookups.expiring.items() if expires < iso)
        return list(itertools.filterfalse(inactive.__contains__, lookups.ids))

    def superseded_by(self) -> dict[str, str]:
        """Old id → the newest fact id naming it in `supersedes` (presence, not depth)."""
        return self._derive(None)[3]

    def _derive(self, today: _dt.date | None) -> tuple[int, _dt.date, list[Fact], dict[str, str]]:
        day = today or _dt.date.today()
        derived = self._derived
        if derived is not None and derived[0] == self.generation and (today is None or derived[1] == day):
            return derived
        replaced: dict[str, str] = {}
        for fact in self.facts.values():
            if fact.supersedes is None and not fact.extras:
                continue  # the common case: replaces nothing
            for old in fact.replaced_ids():
                if old != fact.id:
                    newer = replaced.get(old)
                    if newer is None or id_order(fact.id) > id_order(newer):
                        replaced[old] = fact.id  # the newest fact naming it
        iso = day.isoformat()
        active = [f for f in self.facts.values() if f.id not in replaced and (f.expires is None or f.expires >= iso)]
        active.sort(key=lambda f: (len(f.id), f.id))  # id_order, inlined: this runs after every change
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
        """Every valid fact by id (kept while nothing changes: prune, listings and the TUI ask in turn)."""
        facts = self.facts
        if self._sorted is None or self._sorted[0] != self.generation:
            self._sorted = (self.generation, sorted(facts.values(), key=lambda f: (len(f.id), f.id)))
        return list(self._sorted[1])

    def get(self, fact_id: str) -> Fact | None:
        return self.facts.get(fact_id)


class _Lookups:
    """Every valid fact by normalised title, the ids other facts replace (with how many name
    each), and every fact id in index order; each change costs one insert or removal."""

    __slots__ = ("expiring", "ids", "order", "replaced", "titles")

    def __init__(self, facts: Iterable[Fact]) -> None:
        self.titles: dict[str, list[str]] = {}
        self.replaced: dict[str, int] = {}
        self.expiring: dict[str, str] = {}  # id -> expires, for the facts that have one
        self.order: list[tuple[int, int, str]] = []
        for fact in facts:
            self._add(fact, sort=False)
        self.order.sort()
        self.ids = [key[2] for key in self.order]  # the ids of `order`, in step with it

    @staticmethod
    def _key(fact: Fact) -> tuple[int, int, str]:
        return (TYPE_RANK.get(fact.type, len(TYPE_RANK)), *fact.order_key)

    def _add(self, fact: Fact, sort: bool) -> None:
        self.titles.setdefault(normalise(fact.title), []).append(fact.id)
        for old in fact.replaced_ids():
            if old != fact.id:
                self.replaced[old] = self.replaced.get(old, 0) + 1
        if fact.expires is not None:
            self.expiring[fact.id] = fact.expires
        if sort:
            key = self._key(fact)
            at = bisect.bisect_left(self.order, key)
            self.order.insert(at, key)
            self.ids.insert(at, fact.id)
        else:
            self.order.append(self._key(fact))

    def add(self, fact: Fact) -> None:
        self._add(fact, sort=True)

    def remove(self, fact: Fact) -> None:
        title = normalise(fact.title)
        ids = self.titles.get(title, [])
        if fact.id in ids:
            ids.remove(fact.id)
            if not ids:
                del self.titles[title]
        for old in fact.replaced_ids():
            if old != fact.id and old in self.replaced:
                self.replaced[old] -= 1
                if not self.replaced[old]:
                    del self.replaced[old]
        self.expiring.pop(fact.id, None)
        key = self._key(fact)
        at = bisect.bisect_left(self.order, key)
        if at < len(self.order) and self.order[at] == key:
            del self.order[at]
            del self.ids[at]

    def is_active(self, fact: Fact, today_iso: str) -> bool:
        return fact.id not in self.replaced and (fact.expires is None or fact.expires >= today_iso)


def open_store(layout: Layout, *, use_cache: bool = True) -> FactStore:
    """A store loaded from disk."""
    store = FactStore(layout, use_cache=use_cache)
    store.refresh()
    return store


def _drop_cache_file(path: Path, inode: int) -> None:
    """Remove the parse cache at `path` when it is still the file of this inode (a snapshot found
    damaged after its load; a newer one written meanwhile stays): the next process re-parses."""
    with contextlib.suppress(OSError):
        if os.stat(path).st_ino == inode:
            os.unlink(path)
