"""The first-frame record: the index's first rows and the header's counts, for `foundry tui`'s
first paint without reading the parse cache's snapshot (issue 33, ADR 0013).

A small file beside the snapshot in the derived cache (never in the repository), written by
the TUI's load worker once it has built the full view, and keyed to what that view was built
from: the snapshot's identity (the random bytes its header names, new with every snapshot
written: it stands for the files' stats as the snapshot holds them), the facts folder's mtime
(any file foundry writes, creates, renames or removes moves it), the day (expiry depends on
it), the index's token budget and the root. The preload reads the record, the snapshot's
header and the folder's stat, nothing else; anything that does not match, or a record that is
damaged (CRC-32), truncated, larger than RECORD_AT_MOST or not of the expected shape, is
ignored, and the first paint reads the snapshot as before. A file edited in place since
(same folder mtime) shows its old row until the full load, which always follows the paint,
replaces the view: the same as the snapshot read ahead, which is not checked against the
files either.

It holds at most FIRST_ROWS facts (a screenful on any terminal) and BROKEN_AT_MOST broken
files; with more, the view holds the first rows and the whole index's counts (`WholeIndex`),
so that the pane is as tall and the header and border say what the full view says.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import zlib
from pathlib import Path

from foundry_tui.core.atomic import atomic_write
from foundry_tui.core.memory.project import Project
from foundry_tui.core.memory.reports.views import IndexView, WholeIndex
from foundry_tui.core.memory.storage.snapshot import Snapshot
from foundry_tui.core.memory.storage.store import BrokenFile

RECORD_VERSION = 1
_MAGIC = "foundry-first-frame"
FIRST_ROWS = 300  # facts kept: more than any terminal's height
BROKEN_AT_MOST = 300  # broken files kept in a record of the whole index
RECORD_AT_MOST = 512 << 10  # bytes: a larger record is neither written nor read


def record_path(project: Project) -> Path | None:
    """Where the record of this project's first frame lives (None: caching is off)."""
    snapshot = project.store.cache_path
    return None if snapshot is None else snapshot.with_suffix(".frame")


def _key(project: Project, identity: bytes, dir_mtime: int, today: _dt.date, budget: int) -> list[object]:
    return [RECORD_VERSION, str(project.layout.root), identity.hex(), dir_mtime, today.isoformat(), budget]


def dumps(view: IndexView, key: list[object]) -> bytes:
    """The record of `view` (a full view: `whole` is None) under `key`."""
    ordered = view.ordered[:FIRST_ROWS]
    entries = [view.entry(fact_id) for fact_id in ordered]
    complete = len(view.ordered) <= FIRST_ROWS and len(view.broken) <= BROKEN_AT_MOST
    payload = {
        "key": key,
        "ids": ordered,
        "types": view.types[: len(ordered)],
        "titles": [title for title, _tags in entries],
        "tags": [list(tags) for _title, tags in entries],
        "omitted": [fact_id in view.omitted for fact_id in ordered],
        "broken": [[b.name, b.reason] for b in view.broken] if complete else [],
        "listed": view.listed,
        "tokens": view.index_tokens,
        "budget": view.budget,
        "total": view.total,
        "whole": None if complete else list(view.counts()),
    }
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
    return f"{_MAGIC} {RECORD_VERSION} {zlib.crc32(body):08x} {len(body)}\n".encode() + body


def _strings(value: object, length: int) -> list[str] | None:
    if isinstance(value, list) and len(value) == length and all(isinstance(item, str) for item in value):
        return value
    return None


def _count(value: object) -> int | None:
    return value if type(value) is int and value >= 0 else None


def loads(data: bytes, key: list[object]) -> IndexView | None:
    """The view in a record made under `key` (None: another key, or not a sound record)."""
    if len(data) > RECORD_AT_MOST:
        return None
    line, _newline, body = data.partition(b"\n")
    parts = line.split(b" ")
    if len(parts) != 4 or parts[0] != _MAGIC.encode() or parts[1] != str(RECORD_VERSION).encode():
        return None
    if parts[3] != str(len(body)).encode() or parts[2] != f"{zlib.crc32(body):08x}".encode():
        return None
    try:
        payload = json.loads(body.decode("utf-8", "surrogatepass"))
    except (ValueError, RecursionError):
        return None
    if not isinstance(payload, dict) or payload.get("key") != key:
        return None
    return _view(payload)


def _view(payload: dict[str, object]) -> IndexView | None:
    ids = payload.get("ids")
    if not isinstance(ids, list) or len(ids) > FIRST_ROWS:
        return None
    ordered, types = _strings(ids, len(ids)), _strings(payload.get("types"), len(ids))
    titles = _strings(payload.get("titles"), len(ids))
    tags, omitted, broken = payload.get("tags"), payload.get("omitted"), payload.get("broken")
    if ordered is None or types is None or titles is None or len(set(ordered)) != len(ordered):
        return None
    if not isinstance(tags, list) or len(tags) != len(ids) or any(_strings(t, len(t)) is None for t in tags):
        return None
    if not isinstance(omitted, list) or len(omitted) != len(ids) or any(type(flag) is not bool for flag in omitted):
        return None
    if not isinstance(broken, list) or len(broken) > BROKEN_AT_MOST or any(_strings(b, 2) is None for b in broken):
        return None
    counts = [_count(payload.get(name)) for name in ("listed", "tokens", "budget", "total")]
    listed, tokens, budget, total = counts
    if listed is None or tokens is None or budget is None or total is None:
        return None
    whole = payload.get("whole")
    whole_counts = None
    if whole is not None:
        if not isinstance(whole, list) or len(whole) != 4 or any(_count(n) is None for n in whole):
            return None
        whole_counts = WholeIndex(*whole)
        if whole_counts.active < len(ordered) or broken:
            return None
    entries = {fact_id: (title, tuple(tag)) for fact_id, title, tag in zip(ordered, titles, tags, strict=True)}
    return IndexView(
        ordered=ordered,
        types=types,
        entry=entries.__getitem__,
        omitted={fact_id for fact_id, flag in zip(ordered, omitted, strict=True) if flag},
        listed=listed,
        index_tokens=tokens,
        budget=budget,
        total=total,
        broken=[BrokenFile(name, reason) for name, reason in broken],
        inactive=None,
        whole=whole_counts,
        recorded=True,
    )


def write_first_frame(project: Project, today: _dt.date, view: IndexView, identity: bytes, dir_mtime: int) -> bool:
    """Record `view` (the full index of the files the snapshot `identity` holds, the facts
    folder at `dir_mtime`) for the next first paint, unless the record says so already or it
    would be larger than RECORD_AT_MOST. Disk work: call it from a worker. True if written."""
    path = record_path(project)
    if path is None or view.whole is not None:
        return False
    data = dumps(view, _key(project, identity, dir_mtime, today, view.budget))
    if len(data) > RECORD_AT_MOST:
        return False
    with contextlib.suppress(OSError), open(path, "rb") as file:
        if file.read(RECORD_AT_MOST + 1) == data:
            return False
    try:
        atomic_write(path, data, inside=None)
    except OSError:
        return False
    return True


def read_first_frame(project: Project, today: _dt.date) -> IndexView | None:
    """The index view recorded for the files as they are (their snapshot's identity, the
    folder's mtime), today and the configured budget; None when there is none that matches."""
    path = record_path(project)
    snapshot = project.store.cache_path
    if path is None or snapshot is None:
        return None
    try:
        with open(path, "rb") as file:
            data = file.read(RECORD_AT_MOST + 1)
        dir_mtime = os.stat(project.layout.facts_dir).st_mtime_ns
    except OSError:
        return None
    identity = Snapshot.read_identity(snapshot, str(project.layout.root))
    if identity is None:
        return None
    budget = project.config_or_defaults()[0].index_token_budget
    return loads(data, _key(project, identity, dir_mtime, today, budget))
