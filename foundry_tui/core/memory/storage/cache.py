"""Where the parse cache lives.

It is derived data: kept outside the repository in the user's cache directory
(`$FOUNDRY_CACHE_DIR`, else `$XDG_CACHE_HOME/foundry-tui`, else `~/.cache/foundry-tui`),
one file per project root, written atomically, checksummed (CRC-32: a mismatch drops
it), validated against each file's stat before use, and always safe to delete. `FOUNDRY_NO_CACHE=1` turns it off. Its
content is a `Snapshot` (snapshot.py). Beside it, the bm25 ranker's postings of that
snapshot (postings.py) and the spec ranker's word postings (search/word_postings.py), keyed
to it, the facts' sentence vectors (search/vectors.py), keyed by each fact text's
fingerprint, and the TUI's first-frame record (`.frame`: reports/first_frame.py), keyed to
the snapshot, the facts folder and the day.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

StatKey = tuple[int, int, int]


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
    return folder / f"facts-{key}.snapshot"


def postings_file(snapshot: Path) -> Path:
    """Where the bm25 postings of the snapshot file `snapshot` live."""
    return snapshot.with_suffix(".postings")


def words_file(snapshot: Path) -> Path:
    """Where the spec ranker's word postings of the snapshot file `snapshot` live (search/word_postings.py)."""
    return snapshot.with_suffix(".words")


def vectors_file(snapshot: Path) -> Path:
    """Where the facts' sentence vectors of the snapshot file `snapshot`'s root live (search/vectors.py)."""
    return snapshot.with_suffix(".vectors")


def stat_key(st: os.stat_result) -> StatKey:
    return (st.st_mtime_ns, st.st_size, st.st_ino)
