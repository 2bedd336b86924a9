"""Which agent session a process belongs to (issue 12, "One session, all adapters").

The hooks get `session_id` in their payload; the MCP server does not. Claude Code starts
both: each hook (through `sh -c`) and the MCP server are descendants of one Claude Code
process. So every SessionStart and UserPromptSubmit hook records "this agent process
(pid and start time) runs session S" in the store, and the server (or the CLI run from
the agent's Bash tool) walks its own ancestors and takes the nearest one recorded.

The agent process is the hook's nearest ancestor that is not a shell or a launcher
(`sh -c`, `env`, `uv run`, ...). Only agent processes are recorded, never the shells
and terminals above them, so two agents in one repository never share a recorded
ancestor, and a server whose agent has not run a hook yet finds nothing rather than
another agent's session. The start time guards against a recycled pid. The latest
hook wins: `/clear` and `/resume` move the process to their new session id.
`FOUNDRY_SESSION` overrides all of it.
"""

from __future__ import annotations

import os

from foundry_tui.core.errors import InputError, NotFoundError

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3

    from foundry_tui.core.sessions.store import SessionStore

MAX_SESSION_ID = 128
MAX_ANCESTORS = 16
# Processes between an agent and the hook command it runs (never the agent itself).
PASS_THROUGH = frozenset(
    {"sh", "bash", "dash", "zsh", "fish", "ksh", "env", "timeout", "nice", "nohup", "uv", "uvx", "pipx", "foundry"}
)
_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


def check_session_id(value: object, where: str = "session id") -> str:
    """A session id as given, or a one-line refusal: it names rows, and (the T0 layout) a
    per-session scratch folder, so it must be a plain name."""
    if not isinstance(value, str) or not value:
        raise InputError(f"{where} is missing: give the agent's session id (Claude Code's session_id)")
    if len(value) > MAX_SESSION_ID or not set(value) <= _ID_CHARS or set(value) <= {"."}:
        shown = value if len(value) <= 60 else value[:57] + "..."
        raise InputError(
            f"{where} {shown!r} is not usable: use at most {MAX_SESSION_ID} letters, digits, '.', '_' or '-' "
            "(no path characters)"
        )
    return value


# ---- processes ------------------------------------------------------------------------


def process_info(pid: int) -> tuple[int, str, str] | None:
    """(parent pid, start time, command name) of a live process, or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read().decode("utf-8", "replace")
    except OSError:
        return _process_info_ps(pid) if not os.path.isdir("/proc") else None
    # "pid (comm) state ppid ... starttime": comm may hold spaces and parentheses.
    name = stat[stat.find("(") + 1 : stat.rfind(")")]
    fields = stat[stat.rfind(")") + 2 :].split()
    try:
        return int(fields[1]), fields[19], name
    except (IndexError, ValueError):
        return None


def _process_info_ps(pid: int) -> tuple[int, str, str] | None:
    """The same through `ps` (macOS and other systems without /proc)."""
    import subprocess

    try:
        done = subprocess.run(
            ["ps", "-o", "ppid=", "-o", "lstart=", "-o", "comm=", "-p", str(pid)],
            capture_output=True,
            text=True,
            timeout=5,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    words = done.stdout.split()
    if done.returncode != 0 or len(words) < 7:
        return None
    try:
        return int(words[0]), " ".join(words[1:6]), os.path.basename(" ".join(words[6:]))
    except ValueError:
        return None


def ancestors(pid: int | None = None) -> list[tuple[int, str, str]]:
    """(pid, start time, name) of each ancestor of `pid` (default: this process), nearest first."""
    chain: list[tuple[int, str, str]] = []
    current = os.getpid() if pid is None else pid
    info = process_info(current)
    while info is not None and len(chain) < MAX_ANCESTORS:
        parent = info[0]
        if parent <= 1:
            break
        info = process_info(parent)
        if info is None:
            break
        chain.append((parent, info[1], info[2]))
    return chain


def _command_name(name: str) -> str:
    base = os.path.basename(name)
    return base[1:] if base.startswith("-") else base  # "-bash" is a login shell


def agent_process() -> tuple[int, str] | None:
    """The agent that ran this hook: the nearest ancestor that is not a shell or launcher."""
    for pid, started, name in ancestors():
        if _command_name(name) not in PASS_THROUGH:
            return pid, started
    return None


def record_agent(store: SessionStore, conn: sqlite3.Connection, session_id: str) -> None:
    """Remember that this hook's agent process runs `session_id` (in the caller's transaction)."""
    agent = agent_process()
    if agent is None:
        return
    conn.execute(
        "INSERT INTO agents (pid, started, session_id, recorded) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (pid, started) DO UPDATE SET session_id = excluded.session_id, recorded = excluded.recorded",
        (agent[0], agent[1], session_id, store.clock()),
    )


def resolve_session(store: SessionStore, explicit: str | None = None) -> str:
    """The session this process acts for: `explicit`, else FOUNDRY_SESSION, else the
    session recorded for the nearest ancestor agent process. One-line error otherwise."""
    if explicit:
        return check_session_id(explicit)
    from_env = os.environ.get("FOUNDRY_SESSION")
    if from_env:
        return check_session_id(from_env, "FOUNDRY_SESSION")
    if store.exists():
        with store.read() as conn:
            for pid, started, _name in ancestors():
                row = conn.execute(
                    "SELECT session_id FROM agents WHERE pid = ? AND started = ?", (pid, started)
                ).fetchone()
                if row is not None:
                    return str(row[0])
    raise NotFoundError(
        "no agent session found for this process: run it from a Claude Code session whose foundry hooks have "
        "run (foundry init installs them), or set FOUNDRY_SESSION to the session id"
    )
