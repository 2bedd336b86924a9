"""The T0 session store: SQLite at `.foundry/scratch/sessions.db` (spec 004 §5).

One key-value table holds the latest `SessionMemory` bundle of each session under
`memory:{session_id}` (working, observation, reflection: each tier keeps only its latest
record), and an append-only audit table receives every record written, in the same
transaction (the spec's MemoryCoordinator dual write). Beside them: the token ledger,
the transcript turns already counted, and the agent processes that identify a session
for its MCP server (core/sessions/agents.py).

Every read-modify-write runs in one `BEGIN IMMEDIATE` transaction, so two processes
writing one session lose no version, and a writer killed mid-way leaves the previous
record (SQLite rolls the unfinished transaction back). A database that is newer than
this code, or not a database at all, is a one-line error: never a traceback, never a
silent reset. `sqlite3` is imported when the store is first opened: the hooks import
this module on every prompt.

The store is only ever a file of this project that git does not track, reached through
no link, holding exactly the objects SCHEMA creates (issue 28): a repository that ships a
`sessions.db` (or a link at `.foundry/scratch`) would otherwise run its own triggers and
speak into every session's context. Every open refuses a link, reads the schema with
`trusted_schema` off before anything is written, and compares it with SCHEMA's; a file
this code did not create (its device and inode are not the ones stamped inside it) is
also asked about in git, once. A foreign database git does not track is set aside
(renamed `sessions.db.refused-<time>`, with its -wal, -shm and -journal) and the next open
starts an empty one; a tracked one is left exactly as it is (renaming it would be a
deletion in git, and a fresh store at its path a change to commit) and session memory
stays off until it is untracked.
"""

from __future__ import annotations

import json
import os
import stat
import time

from foundry_tui.core.errors import FoundryError, InputError, NotFoundError
from foundry_tui.core.paths import LINK_ADVICE

TYPE_CHECKING = False  # the hooks import this module: keep typing out of their start-up
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable, Iterator
    from contextlib import AbstractContextManager
    from pathlib import Path
    from typing import Any

    from foundry_tui.core.paths import Layout

    SchemaRow = tuple[str, str, str, str | None]

SCHEMA_VERSION = 1
BUSY_TIMEOUT_SECONDS = 5.0
STORE_FILE = "sessions.db"
# SQLite's own files beside the database (its log, the log's index, its rollback journal):
# part of the store, so bound by the same rules (a hostile -wal replays into the database).
SIDE_FILE_SUFFIXES = ("-wal", "-shm", "-journal")
SET_ASIDE_MARK = ".refused-"
FILE_STAMP_KEY = "store:file"  # in kv: "device:inode" of the file this code created or checked
GIT_CHECK_TIMEOUT_SECONDS = 5.0
MAX_SHOWN_OBJECTS = 3  # a foreign schema's objects named in its one-line refusal
MAX_SHOWN_NAME_CHARS = 40
# The most one audit record may hold (its JSON): every record written is bounded by its
# tool's limits (50 entries of 1,000 characters, 40 facts of 300), JSON escaping included.
MAX_AUDIT_RECORD_CHARS = 120_000
TIERS = ("working", "observation", "reflection")
# The objects are compared with a live database's, text included: any change to this text
# needs SCHEMA_VERSION raised and a migration, or every existing store is refused.
SCHEMA = """
CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE audit (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    record TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE INDEX audit_by_session ON audit (session_id, seq);
CREATE TABLE ledger (
    session_id TEXT PRIMARY KEY,
    rolling INTEGER NOT NULL DEFAULT 0,
    observation INTEGER NOT NULL DEFAULT 0,
    total INTEGER NOT NULL DEFAULT 0,
    generating TEXT,
    generating_since REAL,
    created REAL NOT NULL,
    last_active REAL NOT NULL
) WITHOUT ROWID;
CREATE TABLE turns (
    session_id TEXT NOT NULL,
    turn_id TEXT NOT NULL,
    tokens INTEGER NOT NULL,
    PRIMARY KEY (session_id, turn_id)
) WITHOUT ROWID;
CREATE TABLE transcripts (
    session_id TEXT NOT NULL,
    path TEXT NOT NULL,
    read_to INTEGER NOT NULL,
    PRIMARY KEY (session_id, path)
) WITHOUT ROWID;
CREATE TABLE agents (
    pid INTEGER NOT NULL,
    started TEXT NOT NULL,
    session_id TEXT NOT NULL,
    recorded REAL NOT NULL,
    PRIMARY KEY (pid, started)
) WITHOUT ROWID;
"""
SESSION_TABLES = ("kv", "audit", "ledger", "turns", "transcripts", "agents")


class SessionStoreError(FoundryError):
    """The session store cannot be used (corrupt, newer, locked); the message says what to do."""


def expected_schema() -> frozenset[SchemaRow]:
    """sqlite_master's (type, name, tbl_name, sql) rows of a store SCHEMA creates."""
    global _expected_schema
    if _expected_schema is None:
        import sqlite3

        conn = sqlite3.connect(":memory:")
        try:
            conn.executescript(SCHEMA)
            _expected_schema = schema_rows(conn)
        finally:
            conn.close()
    return _expected_schema


_expected_schema: frozenset[SchemaRow] | None = None


def schema_rows(conn: sqlite3.Connection) -> frozenset[SchemaRow]:
    return frozenset(conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))


def _shown(name: object) -> str:
    text = str(name)
    if len(text) > MAX_SHOWN_NAME_CHARS:
        text = text[: MAX_SHOWN_NAME_CHARS - 3] + "..."
    return repr(text)


def schema_difference(actual: frozenset[SchemaRow]) -> str | None:
    """None when `actual` is exactly SCHEMA's objects; else a few words on what differs."""
    expected = expected_schema()
    if actual == expected:
        return None
    ours = {(kind, name) for kind, name, _table, _sql in expected}
    theirs = {(kind, name) for kind, name, _table, _sql in actual}
    parts = []
    foreign = sorted(theirs - ours)
    if foreign:
        shown = ", ".join(f"{kind} {_shown(name)}" for kind, name in foreign[:MAX_SHOWN_OBJECTS])
        more = f" and {len(foreign) - MAX_SHOWN_OBJECTS} more" if len(foreign) > MAX_SHOWN_OBJECTS else ""
        parts.append(f"it holds {shown}{more}, which foundry does not create")
    same = {(kind, name) for kind, name, _table, _sql in actual & expected}
    changed = sorted((ours & theirs) - same)
    if changed:
        shown = ", ".join(f"{kind} {_shown(name)}" for kind, name in changed[:MAX_SHOWN_OBJECTS])
        parts.append(f"{shown} differ{'s' if len(changed) == 1 else ''} from foundry's")
    missing = sorted(ours - theirs)
    if missing and not foreign and not changed:
        parts.append(f"{', '.join(f'{kind} {name}' for kind, name in missing[:MAX_SHOWN_OBJECTS])} missing")
    return "; ".join(parts) or "its schema differs from foundry's"


def file_stamp(path: Path) -> str:
    """What identifies one file on this machine: a repository cannot know it in advance."""
    info = os.stat(path)
    return f"{info.st_dev}:{info.st_ino}"


def memory_key(session_id: str) -> str:
    return f"memory:{session_id}"


def empty_memory() -> dict[str, Any]:
    return {"working": None, "observation": None, "reflection": None}


def iso(moment: float) -> str:
    """UTC, to the second, for people and the audit timeline."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(moment))


class SessionStore:
    """The sessions database of one project. Open it once per process; each method that
    writes runs in its own transaction (or in the caller's, through `transaction`)."""

    def __init__(self, layout: Layout, clock: Callable[[], float] | None = None) -> None:
        self.layout = layout
        self.clock: Callable[[], float] = clock or time.time  # tests freeze it
        self._conn: sqlite3.Connection | None = None

    @property
    def path(self) -> Path:
        return self.layout.scratch_dir / STORE_FILE

    def side_files(self) -> list[Path]:
        return [self.path.with_name(STORE_FILE + suffix) for suffix in SIDE_FILE_SUFFIXES]

    def where(self) -> str:
        return self.layout.relative(self.path)

    def exists(self) -> bool:
        return self.path.is_file()

    # ---- opening ------------------------------------------------------------------------

    def connection(self) -> sqlite3.Connection:
        """The open connection, creating the database (and `.foundry/scratch/`) on first use.
        Raises SessionStoreError (or UnsafePathError, for a link out of the root) when the
        file may not be used; see the module's docstring."""
        if self._conn is not None:
            return self._conn
        import sqlite3

        if not self.layout.foundry.is_dir():
            raise NotFoundError(
                f"no .foundry/ folder in {self.layout.root}: run `foundry init` there to use session memory"
            )
        opened = self.check_place()
        if opened is None:
            self._set_aside_orphans()
        try:
            self.layout.scratch_dir.mkdir(parents=True, exist_ok=True)
            # One connection per store; a server opens it in one thread and closes it in another.
            conn = sqlite3.connect(
                self.path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None, check_same_thread=False
            )
        except (OSError, sqlite3.Error) as exc:
            raise SessionStoreError(f"cannot open {self.where()}: {exc}") from None
        try:
            foreign = self._prepare(conn, opened)
        except BaseException:
            conn.close()
            raise
        if foreign is not None:
            conn.close()
            raise self._refuse_foreign(foreign, opened)
        self._conn = conn
        return conn

    def check_place(self) -> str | None:
        """Refuse a store reached through a link (out of the root: the confinement rule of
        Layout.check_inside; inside it: no link either) or that is not a regular file.
        Returns the stamp of the database file, None when there is none yet. On every
        prompt: plain lstat calls on strings (about 0.05 ms), Layout's walk only past a link."""
        scratch = str(self.layout.scratch_dir)
        database = os.path.join(scratch, STORE_FILE)
        if os.path.islink(str(self.layout.foundry)) or os.path.islink(scratch):
            self.layout.check_inside(self.path)  # a link out of the root: its own message
        stamp = None
        for path in (scratch, database, *(database + suffix for suffix in SIDE_FILE_SUFFIXES)):
            try:
                info = os.lstat(path)
            except FileNotFoundError:
                continue
            except OSError as exc:
                raise SessionStoreError(f"cannot open {self._shown_path(path)}: {exc.strerror or exc}") from None
            if stat.S_ISLNK(info.st_mode):
                try:
                    target = os.readlink(path)
                except OSError:
                    target = "?"
                shown = target if target.isprintable() else repr(target)
                raise SessionStoreError(
                    f"refused: {self._shown_path(path)} is a symbolic link to {shown}: the session store is "
                    f"never reached through a link; session memory is off until you {LINK_ADVICE}"
                )
            folder = path == scratch
            if not (stat.S_ISDIR if folder else stat.S_ISREG)(info.st_mode):
                raise SessionStoreError(
                    f"refused: {self._shown_path(path)} is not a {'folder' if folder else 'regular file'}: "
                    "move it aside to use session memory"
                )
            if path == database:
                stamp = f"{info.st_dev}:{info.st_ino}"
        return stamp

    def _shown_path(self, path: str) -> str:
        """`path` (the scratch folder or one of the store's files) relative to the root."""
        scratch = self.layout.scratch_dir
        return self.layout.relative(scratch if path == str(scratch) else scratch / os.path.basename(path))

    def _prepare(self, conn: sqlite3.Connection, opened: str | None) -> str | None:
        """Ready `conn` (creating the schema in an empty file); the reason when the file is a
        SQLite database foundry did not create, for `_refuse_foreign`."""
        import sqlite3

        try:
            # Before anything reads the schema: nothing a database defines runs functions with side effects.
            conn.execute("PRAGMA trusted_schema = OFF")
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
            # WAL with synchronous=NORMAL: a commit survives the process being killed (not a power
            # cut, which may lose the last few): scratch, written on every prompt, needs no fsync each.
            conn.execute("PRAGMA synchronous = NORMAL")
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise SessionStoreError(
                    f"{self.where()} was written by a newer foundry (schema {version}; this one reads "
                    f"{SCHEMA_VERSION}): upgrade foundry-tui, or move the file aside to start empty"
                )
            if version == SCHEMA_VERSION:
                foreign = schema_difference(schema_rows(conn))
                if foreign is None and opened is not None:
                    self._check_untracked(conn, opened)
                return foreign
            if opened is not None:  # an empty file already there: not one git tracks, to fill
                tracked = self.tracked_files()
                if tracked:
                    raise SessionStoreError(self.tracked_message(tracked))
            conn.execute("BEGIN IMMEDIATE")
            try:
                version = conn.execute("PRAGMA user_version").fetchone()[0]  # another process may have won
                if version == 0:
                    objects = conn.execute("SELECT type, name FROM sqlite_master ORDER BY rowid").fetchall()
                    if objects:
                        conn.execute("ROLLBACK")
                        shown = ", ".join(f"{kind} {_shown(name)}" for kind, name in objects[:MAX_SHOWN_OBJECTS])
                        more = (
                            f" and {len(objects) - MAX_SHOWN_OBJECTS} more" if len(objects) > MAX_SHOWN_OBJECTS else ""
                        )
                        return f"it holds {shown}{more}"
                    for statement in SCHEMA.split(";"):
                        if statement.strip():
                            conn.execute(statement)
                    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                    self._write_stamp(conn)
                conn.execute("COMMIT")
            except BaseException:
                _rollback(conn)
                raise
            if version != 0:
                return self._prepare(conn, opened)  # another process created it meanwhile: check it as any
            # WAL: readers never wait for a writer. Set outside any transaction; it persists.
            conn.execute("PRAGMA journal_mode = WAL")
        except sqlite3.Error as exc:
            raise self._error(exc) from None
        return None

    def _write_stamp(self, conn: sqlite3.Connection) -> None:
        conn.execute(
            "INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (FILE_STAMP_KEY, file_stamp(self.path)),
        )

    def _check_untracked(self, conn: sqlite3.Connection, opened: str) -> None:
        """A file this code did not create or check (its stamp is not inside it) is asked
        about in git once: refused when git tracks it, stamped otherwise."""
        row = conn.execute("SELECT value FROM kv WHERE key = ?", (FILE_STAMP_KEY,)).fetchone()
        if row is not None and row[0] == opened:
            return
        tracked = self.tracked_files()
        if tracked:
            raise SessionStoreError(self.tracked_message(tracked))
        conn.execute("BEGIN IMMEDIATE")
        try:
            self._write_stamp(conn)
            conn.execute("COMMIT")
        except BaseException:
            _rollback(conn)
            raise

    def tracked_files(self) -> list[str]:
        """The store's files that git tracks ([] outside a repository, or without git)."""
        import subprocess

        names = [self.layout.relative(path) for path in (self.path, *self.side_files())]
        try:
            done = subprocess.run(
                ["git", "ls-files", "-z", "--", *names],
                cwd=self.layout.root,
                capture_output=True,
                timeout=GIT_CHECK_TIMEOUT_SECONDS,
            )
        except subprocess.TimeoutExpired:
            raise SessionStoreError(
                f"git did not say within {GIT_CHECK_TIMEOUT_SECONDS:.0f} s whether it tracks {self.where()}: "
                "session memory is off for this call; try again"
            ) from None
        except OSError:  # no git: nothing can be tracked by it here
            return []
        if done.returncode != 0:  # not a repository
            return []
        return [name for name in done.stdout.decode("utf-8", "replace").split("\0") if name]

    def tracked_message(self, tracked: list[str]) -> str:
        names = " ".join(tracked)
        return (
            f"refused: git tracks {', '.join(tracked)}: a session store is this machine's scratch, never part of a "
            "repository (one that ships it can speak into every session); session memory is off and the file is "
            f"left as it is: run `git rm --cached {names}`, then `foundry init` (it ignores .foundry/scratch)"
        )

    def _refuse_foreign(self, reason: str, opened: str | None) -> SessionStoreError:
        """The error for a database foundry did not create, after setting it aside (renamed,
        never deleted) unless git tracks it."""
        where = self.where()
        tracked = self.tracked_files()
        if tracked:
            return SessionStoreError(self.tracked_message(tracked))
        if opened is None or not os.path.lexists(self.path) or file_stamp(self.path) != opened:
            return SessionStoreError(f"{where} was replaced while it was being opened: try again")
        try:
            aside = self._set_aside([self.path, *self.side_files()])
        except OSError as exc:
            return SessionStoreError(
                f"{where} is not a foundry session store ({reason}) and cannot be set aside "
                f"({exc.strerror or exc}): move it aside by hand"
            )
        return SessionStoreError(
            f"refused: {where} is not a foundry session store ({reason}): set aside as {aside}; "
            "the next use starts an empty store"
        )

    def _set_aside_orphans(self) -> None:
        """SQLite's side files with no database beside them would be replayed into (or deleted
        by) a new one: set them aside first, unless git tracks them."""
        orphans = [path for path in self.side_files() if os.path.lexists(path)]
        if not orphans:
            return
        tracked = self.tracked_files()
        if tracked:
            raise SessionStoreError(self.tracked_message(tracked))
        try:
            self._set_aside(orphans)
        except OSError as exc:
            raise SessionStoreError(
                f"cannot set aside {', '.join(self.layout.relative(p) for p in orphans)} "
                f"(left by no database): {exc.strerror or exc}; move them aside by hand"
            ) from None

    def _set_aside(self, paths: list[Path]) -> str:
        """Rename `paths` (the database and its side files) to `sessions.db.refused-<UTC time>`
        and its suffixes, so that SQLite can still open them together; returns the new name."""
        base = f"{self.path}{SET_ASIDE_MARK}{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime(self.clock()))}"
        chosen, number = base, 1
        while any(os.path.lexists(chosen + suffix) for suffix in ("", *SIDE_FILE_SUFFIXES)):
            number += 1
            chosen = f"{base}-{number}"
        for path in paths:
            if os.path.lexists(path):
                os.rename(path, chosen + path.name[len(STORE_FILE) :])
        return self.layout.relative(self.path.with_name(os.path.basename(chosen)))

    def _error(self, exc: Exception) -> SessionStoreError:
        text = str(exc)
        if "locked" in text or "busy" in text:
            return SessionStoreError(
                f"{self.where()} stayed locked by another process for {BUSY_TIMEOUT_SECONDS:.0f} s: try again"
            )
        return SessionStoreError(
            f"{self.where()} cannot be used ({text}): move it aside or delete it to start empty "
            "(session memory is scratch; the facts are not in it)"
        )

    def hold(self) -> None:
        """Open the store and read it once, so that this connection stays attached to the
        WAL while idle: a long-lived process (the MCP server) holding it spares every
        short one (the hooks) the checkpoint and fsyncs of closing the last connection."""
        import sqlite3

        try:
            self.connection().execute("SELECT count(*) FROM ledger").fetchone()
        except sqlite3.Error as exc:
            raise self._error(exc) from None

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    # ---- transactions -------------------------------------------------------------------

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        """`with store.transaction() as conn:` one BEGIN IMMEDIATE … COMMIT; any error rolls
        back and a SQLite error becomes a one-line SessionStoreError."""
        return self._in_transaction("BEGIN IMMEDIATE")

    def read(self) -> AbstractContextManager[sqlite3.Connection]:
        """A consistent read (a deferred transaction: WAL gives it one snapshot)."""
        return self._in_transaction("BEGIN")

    def _in_transaction(self, begin: str) -> AbstractContextManager[sqlite3.Connection]:
        import contextlib

        @contextlib.contextmanager
        def run() -> Iterator[sqlite3.Connection]:
            import sqlite3

            conn = self.connection()
            try:
                conn.execute(begin)
            except sqlite3.Error as exc:
                raise self._error(exc) from None
            try:
                yield conn
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                _rollback(conn)
                raise self._error(exc) from None
            except BaseException:
                _rollback(conn)
                raise

        return run()

    # ---- the bundle and its audit (call inside a transaction) ---------------------------

    def load_memory(self, conn: sqlite3.Connection, session_id: str) -> dict[str, Any]:
        row = conn.execute("SELECT value FROM kv WHERE key = ?", (memory_key(session_id),)).fetchone()
        if row is None:
            return empty_memory()
        try:
            memory = json.loads(row[0])
        except json.JSONDecodeError:
            raise SessionStoreError(
                f"{self.where()}: the memory of session {session_id} is damaged: "
                f"`foundry session show {session_id}` lists its audit trail"
            ) from None
        return {tier: memory.get(tier) for tier in TIERS}

    def write_record(
        self,
        conn: sqlite3.Connection,
        session_id: str,
        tier: str,
        record: dict[str, Any],
        change: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Make `record` the latest of its tier and append it to the audit, in the caller's
        transaction; `change`, when given, is what the audit receives instead (what this
        write changed: the observation tier's new entries, not a copy of the whole tier).
        Returns the record with its audit sequence number and time. An audit record over
        MAX_AUDIT_RECORD_CHARS is refused (nothing written)."""
        now = self.clock()
        record = {**record, "at": iso(now)}
        audited = json.dumps(record if change is None else {**change, "at": record["at"]}, ensure_ascii=False)
        if len(audited) > MAX_AUDIT_RECORD_CHARS:
            raise InputError(
                f"{tier} record of {len(audited):,} characters; an audit record holds at most "
                f"{MAX_AUDIT_RECORD_CHARS:,}: write less at once"
            )
        cursor = conn.execute(
            "INSERT INTO audit (session_id, kind, record, at) VALUES (?, ?, ?, ?)", (session_id, tier, audited, now)
        )
        record["seq"] = cursor.lastrowid
        if tier in TIERS:
            memory = self.load_memory(conn, session_id)
            memory[tier] = record
            conn.execute(
                "INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (memory_key(session_id), json.dumps(memory, ensure_ascii=False)),
            )
        self.touch(conn, session_id, now)
        return record

    def touch(self, conn: sqlite3.Connection, session_id: str, now: float | None = None) -> None:
        """Make sure the session has a ledger row and mark it active now."""
        now = self.clock() if now is None else now
        conn.execute(
            "INSERT INTO ledger (session_id, created, last_active) VALUES (?, ?, ?) "
            "ON CONFLICT (session_id) DO UPDATE SET last_active = excluded.last_active",
            (session_id, now, now),
        )

    def memory(self, session_id: str) -> dict[str, Any]:
        """The latest bundle of one session (empty tiers are None)."""
        if not self.exists():
            return empty_memory()
        with self.read() as conn:
            return self.load_memory(conn, session_id)

    def audit(self, session_id: str) -> list[dict[str, Any]]:
        """Every record written for the session, oldest first."""
        with self.read() as conn:
            rows = conn.execute(
                "SELECT seq, kind, record, at FROM audit WHERE session_id = ? ORDER BY seq", (session_id,)
            ).fetchall()
        timeline = []
        for seq, kind, record, at in rows:
            try:
                data = json.loads(record)
            except json.JSONDecodeError:
                data = {"damaged": True}
            timeline.append({"seq": seq, "kind": kind, "at": iso(at), "record": data})
        return timeline

    def session_ids(self) -> list[str]:
        if not self.exists():
            return []
        with self.read() as conn:
            return [row[0] for row in conn.execute("SELECT session_id FROM ledger ORDER BY last_active DESC")]

    def has_session(self, session_id: str) -> bool:
        if not self.exists():
            return False
        with self.read() as conn:
            return conn.execute("SELECT 1 FROM ledger WHERE session_id = ?", (session_id,)).fetchone() is not None

    def remove_sessions(self, session_ids: list[str]) -> None:
        """Delete every trace of these sessions, in one transaction."""
        with self.transaction() as conn:
            for session_id in session_ids:
                conn.execute("DELETE FROM kv WHERE key = ?", (memory_key(session_id),))
                for table in SESSION_TABLES[1:]:
                    conn.execute(f"DELETE FROM {table} WHERE session_id = ?", (session_id,))


def _rollback(conn: sqlite3.Connection) -> None:
    import contextlib
    import sqlite3

    with contextlib.suppress(sqlite3.Error):  # nothing was open
        conn.execute("ROLLBACK")
