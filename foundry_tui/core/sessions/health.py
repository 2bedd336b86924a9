"""The doctor's check of the session store (issue 28). core.memory may not import the
sessions room, so core/checkup.py adds it to `ALL_CHECKS`.

It says what the store's own checks would refuse (a link, a file git tracks, a schema
foundry did not create), without writing anything: the database is opened read-only,
with `trusted_schema` off, and only sqlite_master and user_version are read. Silent
when there is nothing to say, as the links check is.
"""

from __future__ import annotations

from collections.abc import Iterator

from foundry_tui.core.errors import FoundryError
from foundry_tui.core.memory.reports.doctor import FAIL, WARN, Check, DoctorContext
from foundry_tui.core.sessions.store import (
    SCHEMA_VERSION,
    SET_ASIDE_MARK,
    SIDE_FILE_SUFFIXES,
    STORE_FILE,
    SessionStore,
    schema_difference,
    schema_rows,
)

NAME = "session store"


def inspect_schema(store: SessionStore) -> str | None:
    """Why the database at store.path would be refused, read-only; None when it would not."""
    import sqlite3

    try:
        conn = sqlite3.connect(f"{store.path.as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        return f"it cannot be opened ({exc})"
    try:
        conn.execute("PRAGMA trusted_schema = OFF")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        rows = schema_rows(conn)
    except sqlite3.Error as exc:
        return f"it cannot be read ({exc}): move it aside or delete it (session memory is scratch)"
    finally:
        conn.close()
    if version > SCHEMA_VERSION:
        return f"it was written by a newer foundry (schema {version}): upgrade foundry-tui"
    if version < SCHEMA_VERSION:
        return "it is not a foundry session store (no schema version): the next use sets it aside" if rows else None
    difference = schema_difference(rows)
    if difference is not None:
        return f"it is not a foundry session store ({difference}): the next use sets it aside"
    return None


def set_aside_stores(store: SessionStore) -> list[str]:
    """The databases refused earlier and renamed beside the store (their side files not listed)."""
    folder = store.layout.scratch_dir
    if not folder.is_dir() or folder.is_symlink():
        return []
    return sorted(
        store.layout.relative(path)
        for path in folder.glob(f"{STORE_FILE}{SET_ASIDE_MARK}*")
        if not path.name.endswith(SIDE_FILE_SUFFIXES)
    )


def check_session_store(ctx: DoctorContext) -> Iterator[Check]:
    store = SessionStore(ctx.layout)
    where = store.where()
    try:
        opened = store.check_place()
        tracked = store.tracked_files()
    except FoundryError as exc:  # a link, or not a regular file; git too slow to answer
        yield Check(NAME, FAIL, f"{where} cannot be used: session memory is off", [str(exc)])
        return
    if tracked:
        yield Check(NAME, FAIL, f"git tracks {', '.join(tracked)}", [store.tracked_message(tracked)])
        return
    problem = inspect_schema(store) if opened is not None else None
    if problem is not None:
        status = WARN if "newer foundry" in problem or "cannot be" in problem else FAIL
        yield Check(NAME, status, f"{where} would be refused", [f"{where}: {problem}"])
    aside = set_aside_stores(store)
    if aside:
        yield Check(
            NAME,
            WARN,
            f"{len(aside)} refused session store{'' if len(aside) == 1 else 's'} set aside",
            [f"{name}: a database foundry did not create; look at it if you wish, then delete it" for name in aside],
        )
