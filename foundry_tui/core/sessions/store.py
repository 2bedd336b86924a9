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
"""

from __future__ import annotations

import json
import time

from foundry_tui.core.errors import FoundryError, NotFoundError

TYPE_CHECKING = False  # the hooks import this module: keep typing out of their start-up
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable, Iterator
    from contextlib import AbstractContextManager
    from pathlib import Path
    from typing import Any

    from foundry_tui.core.paths import Layout

SCHEMA_VERSION = 1
BUSY_TIMEOUT_SECONDS = 5.0
TIERS = ("working", "observation", "reflection")
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
        return self.layout.scratch_dir / "sessions.db"

    def where(self) -> str:
        return self.layout.relative(self.path)

    def exists(self) -> bool:
        return self.path.is_file()

    # ---- opening ------------------------------------------------------------------------

    def connection(self) -> sqlite3.Connection:
        """The open connection, creating the database (and `.foundry/scratch/`) on first use."""
        if self._conn is not None:
            return self._conn
        import sqlite3

        if not self.layout.foundry.is_dir():
            raise NotFoundError(
                f"no .foundry/ folder in {self.layout.root}: run `foundry init` there to use session memory"
            )
        try:
            self.layout.scratch_dir.mkdir(parents=True, exist_ok=True)
            # One connection per store; a server opens it in one thread and closes it in another.
            conn = sqlite3.connect(
                self.path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None, check_same_thread=False
            )
        except (OSError, sqlite3.Error) as exc:
            raise SessionStoreError(f"cannot open {self.where()}: {exc}") from None
        try:
            self._prepare(conn)
        except BaseException:
            conn.close()
            raise
        self._conn = conn
        return conn

    def _prepare(self, conn: sqlite3.Connection) -> None:
        import sqlite3

        try:
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
            # WAL with synchronous=NORMAL: a commit survives the process being killed (not a power
            # cut, which may lose the last few): scratch, written on every prompt, needs no fsync each.
            conn.execute("PRAGMA synchronous = NORMAL")
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version == SCHEMA_VERSION:
                return
            if version > SCHEMA_VERSION:
                raise SessionStoreError(
                    f"{self.where()} was written by a newer foundry (schema {version}; this one reads "
                    f"{SCHEMA_VERSION}): upgrade foundry-tui, or move the file aside to start empty"
                )
            conn.execute("BEGIN IMMEDIATE")
            try:
                version = conn.execute("PRAGMA user_version").fetchone()[0]  # another process may have won
                if version == 0:
                    tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
                    if tables:
                        raise SessionStoreError(
                            f"{self.where()} is a SQLite database but not a foundry session store: move it aside"
                        )
                    for statement in SCHEMA.split(";"):
                        if statement.strip():
                            conn.execute(statement)
                    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            # WAL: readers never wait for a writer. Set outside any transaction; it persists.
            conn.execute("PRAGMA journal_mode = WAL")
        except sqlite3.Error as exc:
            raise self._error(exc) from None

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
        self, conn: sqlite3.Connection, session_id: str, tier: str, record: dict[str, Any]
    ) -> dict[str, Any]:
        """Append `record` to the audit and make it the latest of its tier, in the caller's
        transaction. Returns the record with its audit sequence number and time."""
        now = self.clock()
        record = {**record, "at": iso(now)}
        cursor = conn.execute(
            "INSERT INTO audit (session_id, kind, record, at) VALUES (?, ?, ?, ?)",
            (session_id, tier, json.dumps(record, ensure_ascii=False), now),
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
