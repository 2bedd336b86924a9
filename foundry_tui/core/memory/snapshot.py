"""The parse cache as a read-optimised snapshot of every fact file.

One marshal file per project root holds, for the files as they were when it was
written: their names and stats, the broken ones with their reasons, every valid
fact as columns (repeated values shared), and the lowercased title, tags and body
of all facts joined into three strings. A process whose files all still match
(one stat each) answers a search from the joined strings and builds a Fact only
for the hits it returns; anything else materialises the facts from the columns,
re-parsing only the files whose stat changed.
"""

from __future__ import annotations

import marshal
import time
from collections.abc import Iterable
from typing import Any

from foundry_tui.core.memory.facts import RECORD_FIELDS, Fact
from foundry_tui.core.memory.search import (
    CONFIDENCE_MULTIPLIER,
    TYPE_MULTIPLIER,
    FieldIndex,
    ScanFields,
    join_fields,
    tie_break,
)

SNAPSHOT_VERSION = 3
# Files changed this recently are stored as unverified: a same-size edit within one clock
# tick of the snapshot could otherwise keep a stale entry ("racy" entries, as git calls them).
RACY_SECONDS = 0.1
# Fact.to_record()'s fields, then the ids each fact retires (Fact.replaced_ids()).
_COLUMNS = (*RECORD_FIELDS, "replaces")


class Snapshot:
    """Names, stats and columns of every fact file, plus the joined search fields."""

    __slots__ = (
        "_active",
        "_by_name",
        "_fact_at",
        "_scans",
        "broken",
        "columns",
        "fields",
        "keys",
        "names",
        "positions",
    )

    def __init__(
        self,
        names: list[str],
        keys: list[int],
        broken: dict[str, str],
        positions: list[int],
        columns: dict[str, list[Any]],
        fields: tuple[FieldIndex, FieldIndex, FieldIndex] | None,
    ) -> None:
        self.names = names  # every fact file name, sorted
        self.keys = keys  # mtime_ns, size, inode of each name, flattened
        self.broken = broken  # name -> reason
        self.positions = positions  # index into names of each valid fact (the column order)
        self.columns = columns
        self.fields = fields
        self._active: dict[tuple[str, str | None], set[int]] = {}
        self._by_name: dict[str, int] | None = None
        self._fact_at: dict[int, int] | None = None
        self._scans: dict[tuple[str, str | None], ScanFields] = {}

    # ---- building and storing ------------------------------------------------------------

    @classmethod
    def build(cls, names: list[str], keys: list[int], items: dict[str, Any]) -> Snapshot:
        """From the store's items (Fact or BrokenFile by name), in `names` order."""
        shared: dict[Any, Any] = {}
        columns: dict[str, list[Any]] = {name: [] for name in _COLUMNS}
        positions: list[int] = []
        broken: dict[str, str] = {}
        facts: list[Fact] = []
        for pos, name in enumerate(names):
            item = items[name]
            if not isinstance(item, Fact):
                broken[name] = item.reason
                continue
            positions.append(pos)
            facts.append(item)
            for column, value in zip(_COLUMNS, (*item.to_record(), list(item.replaced_ids()) or None), strict=True):
                # Repeated values (types, dates, sources) become one object, which marshal
                # then writes once and reads back as a reference.
                if isinstance(value, str) and column not in ("id", "title", "body"):
                    value = shared.setdefault(value, value)
                columns[column].append(value)
        return cls(names, keys, broken, positions, columns, join_fields(facts))

    def dumps(self, root: str) -> bytes:
        horizon = time.time_ns() - int(RACY_SECONDS * 1e9)
        keys = list(self.keys)
        for i in range(0, len(keys), 3):
            if keys[i] >= horizon:
                keys[i : i + 3] = [0, 0, 0]  # unverified: the next process re-reads the file
        return marshal.dumps(
            (SNAPSHOT_VERSION, root, self.names, keys, self.broken, self.positions, self.columns, self.fields)
        )

    @classmethod
    def loads(cls, data: bytes, root: str) -> Snapshot | None:
        try:
            payload = marshal.loads(data)
            version, stored_root, names, keys, broken, positions, columns, fields = payload
        except (EOFError, ValueError, TypeError):
            return None
        if version != SNAPSHOT_VERSION or stored_root != root or set(columns) != set(_COLUMNS):
            return None
        return cls(names, keys, broken, positions, columns, fields)

    # ---- reading -----------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.positions)

    def fact(self, i: int) -> Fact:
        """The i-th valid fact, built from the columns."""
        c = self.columns
        return Fact(
            c["id"][i],
            c["type"][i],
            c["title"][i],
            c["body"][i],
            c["scope"][i],
            tuple(c["tags"][i]),
            c["confidence"][i],
            c["source"][i],
            c["created"][i],
            c["expires"][i],
            c["supersedes"][i],
            c["extras"][i] or {},
        )

    def key_of(self, pos: int) -> tuple[int, int, int]:
        return (self.keys[3 * pos], self.keys[3 * pos + 1], self.keys[3 * pos + 2])

    def by_name(self) -> dict[str, int]:
        """File name → its position in `names`."""
        if self._by_name is None:
            self._by_name = {name: pos for pos, name in enumerate(self.names)}
        return self._by_name

    def item_at(self, pos: int) -> Fact | str:
        """The Fact in file position `pos`, or the reason it is broken."""
        if self._fact_at is None:
            self._fact_at = {p: i for i, p in enumerate(self.positions)}
        i = self._fact_at.get(pos)
        return self.fact(i) if i is not None else self.broken[self.names[pos]]

    def items(self) -> Iterable[tuple[str, tuple[int, int, int], Fact | str]]:
        """(name, stat key, Fact or broken reason) for every file."""
        for pos, name in enumerate(self.names):
            yield name, self.key_of(pos), self.item_at(pos)

    def active(self, today_iso: str, type: str | None = None) -> set[int]:
        """Positions of the active facts (of one type), from the columns alone."""
        key = (today_iso, type)
        found = self._active.get(key)
        if found is None:
            c = self.columns
            replaced = {old for olds in c["replaces"] if olds for old in olds}
            ids, expires, types = c["id"], c["expires"], c["type"]
            found = {
                i
                for i in range(len(ids))
                if ids[i] not in replaced
                and (expires[i] is None or expires[i] >= today_iso)
                and (type is None or types[i] == type)
            }
            self._active[key] = found
        return found

    def scan(self, today_iso: str, type: str | None = None) -> ScanFields:
        """Index-free search over the active facts, building Facts only for hits (kept, so that
        what a ranker derives from it, such as bm25's statistics, serves the next search too)."""
        found = self._scans.get((today_iso, type))
        if found is None:
            found = self._scans[(today_iso, type)] = self._scan(today_iso, type)
        return found

    def _scan(self, today_iso: str, type: str | None) -> ScanFields:
        c = self.columns
        types, confidences, ids = c["type"], c["confidence"], c["id"]

        def weight(i: int) -> float:
            return TYPE_MULTIPLIER.get(types[i], 1.0) * CONFIDENCE_MULTIPLIER.get(confidences[i], 1.0)

        def order(i: int) -> tuple[int, int]:
            return tie_break(types[i], ids[i])

        return ScanFields(self.fields, self.fact, weight, order, len(self), self.active(today_iso, type))
