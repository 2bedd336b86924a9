"""The parse cache: parsed fact records keyed by file name and stat, so that a
one-shot command over unchanged files does not parse them again.

It is derived data: kept outside the repository in the user's cache directory
(`$FOUNDRY_CACHE_DIR`, else `$XDG_CACHE_HOME/foundry-tui`, else `~/.cache/foundry-tui`),
one file per project root, written atomically, validated entry by entry against
each file's stat before use, and always safe to delete. `FOUNDRY_NO_CACHE=1` turns it off.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import time
from pathlib import Path
from typing import Any

from .atomic import atomic_write

CACHE_VERSION = 2
# Files changed this recently are not cached: a same-size edit within one clock tick
# of the cache write could otherwise keep a stale entry ("racy" entries, as git calls them).
RACY_SECONDS = 0.1

StatKey = tuple[int, int, int]
Entries = dict[str, tuple[StatKey, Any]]


def cache_file(root: Path) -> Path | None:
    """Where the cache of `root` lives, or None when caching is off."""
    if os.environ.get("FOUNDRY_NO_CACHE"):
        return None
    base = os.environ.get("FOUNDRY_CACHE_DIR")
    if base:
        folder = Path(base)
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        folder = (Path(xdg) if xdg else Path.home() / ".cache") / "foundry-tui"
    key = hashlib.sha256(str(root).encode()).hexdigest()[:20]
    return folder / f"facts-{key}.marshal"


def stat_key(st: os.stat_result) -> StatKey:
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def load_entries(path: Path | None, root: Path) -> Entries:
    """The cached entries, or {} when there is no usable cache (never an error)."""
    if path is None:
        return {}
    try:
        data = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(data, tuple) or len(data) != 3 or data[0] != CACHE_VERSION or data[1] != str(root):
        return {}
    entries = data[2]
    return entries if isinstance(entries, dict) else {}


def save_entries(path: Path | None, root: Path, entries: Entries) -> None:
    """Write the cache atomically, leaving out racy entries; failures are ignored (it is only a cache)."""
    if path is None:
        return
    horizon = time.time_ns() - int(RACY_SECONDS * 1e9)
    kept = {name: entry for name, entry in entries.items() if entry[0][0] < horizon}
    with contextlib.suppress(OSError):
        atomic_write(path, marshal.dumps((CACHE_VERSION, str(root), kept)))
