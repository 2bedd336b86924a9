"""The token ledger and the triggers (spec 004 §2-3), and the two persist operations.

`rolling` counts the tokens of the conversation since the last observation (fed from
the transcript, core/sessions/transcript.py); `observation` counts the tokens observed
since the last reflection. `check_triggers` is the spec's, word for word. The agent is
the memory model: when a trigger fires, the hook marks a generation in progress
(`begin_generation`, which also keeps a second hook from asking again) and asks the
agent to call `memory_observe` or `memory_reflect`; persisting ends the generation.
A mark the agent never answers lapses after GENERATION_LAPSE_SECONDS, so it is asked
again rather than never.
"""

from __future__ import annotations

from foundry_tui.core.errors import InputError

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from typing import Any

    from foundry_tui.core.json_types import JSONObject
    from foundry_tui.core.sessions.store import SessionStore

OBSERVATION = "observation"
REFLECTION = "reflection"
DEFAULT_OBSERVATION_TRIGGER = 30_000
DEFAULT_REFLECTION_TRIGGER = 40_000
GENERATION_LAPSE_SECONDS = 20 * 60
MAX_ENTRIES = 50
MAX_ENTRY_CHARS = 1_000
# The observation tier accumulates until a reflection condenses it; past either bound its
# oldest entries leave it (each stays in the audit, which records every call's new entries).
# One call's largest (50 entries of 1,000 characters) always fits.
MAX_OBSERVATION_TIER_ENTRIES = 200
MAX_OBSERVATION_TIER_CHARS = 100_000
MAX_TOKEN_COUNT = 10_000_000


class Ledger:
    """One session's counters, as read from the store."""

    __slots__ = ("generating", "generating_since", "observation", "rolling", "total")

    def __init__(
        self,
        rolling: int = 0,
        observation: int = 0,
        total: int = 0,
        generating: str | None = None,
        generating_since: float | None = None,
    ) -> None:
        self.rolling = rolling
        self.observation = observation
        self.total = total
        self.generating = generating
        self.generating_since = generating_since

    def in_progress(self, now: float) -> bool:
        """A generation is marked and has not lapsed."""
        if self.generating is None:
            return False
        return self.generating_since is None or now - self.generating_since < GENERATION_LAPSE_SECONDS

    def to_dict(self) -> JSONObject:
        return {
            "rolling": self.rolling,
            "observation": self.observation,
            "total": self.total,
            "generating": self.generating,
        }


def check_triggers(ledger: Ledger, observation_trigger: int, reflection_trigger: int, now: float) -> str | None:
    """The spec's `check_triggers()`: None while a generation is marked in progress;
    "observation" when rolling tokens ≥ the observation trigger; "reflection" when
    observation tokens ≥ the reflection trigger; otherwise None."""
    if ledger.in_progress(now):
        return None
    if ledger.rolling >= observation_trigger:
        return OBSERVATION
    if ledger.observation >= reflection_trigger:
        return REFLECTION
    return None


def load_ledger(conn: sqlite3.Connection, session_id: str) -> Ledger:
    row = conn.execute(
        "SELECT rolling, observation, total, generating, generating_since FROM ledger WHERE session_id = ?",
        (session_id,),
    ).fetchone()
    return Ledger(*row) if row is not None else Ledger()


def ingest_transcript(store: SessionStore, conn: sqlite3.Connection, session_id: str, path: str) -> int:
    """Count the turns of the transcript at `path` not counted yet (in the caller's
    transaction); return the tokens added to the rolling counter."""
    from foundry_tui.core.sessions.transcript import read_turns

    row = conn.execute(
        "SELECT read_to FROM transcripts WHERE session_id = ? AND path = ?", (session_id, path)
    ).fetchone()
    turns, read_to = read_turns(path, row[0] if row else 0)
    added = 0
    for turn_id, tokens in turns:
        seen = conn.execute(
            "SELECT tokens FROM turns WHERE session_id = ? AND turn_id = ?", (session_id, turn_id)
        ).fetchone()
        if seen is None:
            conn.execute(
                "INSERT INTO turns (session_id, turn_id, tokens) VALUES (?, ?, ?)", (session_id, turn_id, tokens)
            )
            added += tokens
        elif tokens > seen[0]:  # a later line of the same message reports more output
            conn.execute(
                "UPDATE turns SET tokens = ? WHERE session_id = ? AND turn_id = ?", (tokens, session_id, turn_id)
            )
            added += tokens - seen[0]
    conn.execute(
        "INSERT INTO transcripts (session_id, path, read_to) VALUES (?, ?, ?) "
        "ON CONFLICT (session_id, path) DO UPDATE SET read_to = excluded.read_to",
        (session_id, path, read_to),
    )
    store.touch(conn, session_id)
    if added:
        conn.execute(
            "UPDATE ledger SET rolling = rolling + ?, total = total + ? WHERE session_id = ?",
            (added, added, session_id),
        )
    return added


def begin_generation(store: SessionStore, conn: sqlite3.Connection, session_id: str, kind: str) -> bool:
    """Mark a generation in progress; False when one already is (nobody asks twice)."""
    if load_ledger(conn, session_id).in_progress(store.clock()):
        return False
    store.touch(conn, session_id)
    conn.execute(
        "UPDATE ledger SET generating = ?, generating_since = ? WHERE session_id = ?",
        (kind, store.clock(), session_id),
    )
    return True


def end_generation(conn: sqlite3.Connection, session_id: str) -> None:
    conn.execute("UPDATE ledger SET generating = NULL, generating_since = NULL WHERE session_id = ?", (session_id,))


def check_entries(entries: object, tool: str) -> list[str]:
    """The entries as one-line strings, or a one-line refusal naming the limit."""
    if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
        raise InputError(f"{tool}: entries must be a list of strings")
    cleaned = [" ".join(e.split()) for e in entries]
    cleaned = [e for e in cleaned if e]
    if not cleaned:
        raise InputError(f"{tool}: entries is empty: give at least one short line")
    if len(cleaned) > MAX_ENTRIES:
        raise InputError(f"{tool}: {len(cleaned)} entries; at most {MAX_ENTRIES}: condense them further")
    for number, entry in enumerate(cleaned, 1):
        if len(entry) > MAX_ENTRY_CHARS:
            raise InputError(
                f"{tool}: entry {number} is {len(entry):,} characters; at most {MAX_ENTRY_CHARS:,}: shorten it"
            )
    return cleaned


def _stamped(entries: list[str], at: str) -> list[dict[str, str]]:
    return [{"text": entry, "at": at} for entry in entries]


def _within_tier_bounds(entries: list[dict[str, str]]) -> int:
    """How many of the oldest `entries` must leave the observation tier for the rest to
    fit MAX_OBSERVATION_TIER_ENTRIES and MAX_OBSERVATION_TIER_CHARS."""
    dropped = max(0, len(entries) - MAX_OBSERVATION_TIER_ENTRIES)
    chars = sum(len(entry["text"]) for entry in entries[dropped:])
    while chars > MAX_OBSERVATION_TIER_CHARS:
        chars -= len(entries[dropped]["text"])
        dropped += 1
    return dropped


def persist_observation(store: SessionStore, session_id: str, entries: object, token_count: int | None = None) -> str:
    """`memory_observe`: add the entries to the observation tier (a fresh list when the
    latest observation is older than the latest reflection, which already condensed it),
    reset the rolling counter, add `token_count` (default: the rolling count being
    condensed) to the observation counter, and end the generation. Past the tier's bounds
    its oldest entries leave it; the audit records only this call's entries."""
    from foundry_tui.core.sessions.store import iso

    cleaned = check_entries(entries, "memory_observe")
    if token_count is not None and not 0 <= token_count <= MAX_TOKEN_COUNT:
        raise InputError(f"memory_observe: token_count must be from 0 to {MAX_TOKEN_COUNT:,}")
    with store.transaction() as conn:
        memory = store.load_memory(conn, session_id)
        ledger = load_ledger(conn, session_id)
        counted = ledger.rolling if token_count is None else token_count
        latest, reflection = memory["observation"], memory["reflection"]
        carried = latest if latest and not (reflection and reflection["seq"] > latest["seq"]) else None
        previous = [e for e in (carried["entries"] if carried else []) if isinstance(e, dict) and "text" in e]
        added = _stamped(cleaned, iso(store.clock()))
        combined = previous + added
        dropped = _within_tier_bounds(combined)
        total = (int(carried["token_count"]) if carried else 0) + counted
        record: dict[str, Any] = {"entries": combined[dropped:], "token_count": total}
        change = {"entries": added, "token_count": total, "in_tier": len(record["entries"]), "dropped": dropped}
        store.write_record(conn, session_id, OBSERVATION, record, change)
        conn.execute(
            "UPDATE ledger SET rolling = 0, observation = observation + ? WHERE session_id = ?",
            (counted, session_id),
        )
        end_generation(conn, session_id)
        observed = ledger.observation + counted
    left = (
        f"; the {dropped:,} oldest left the tier (it holds at most {MAX_OBSERVATION_TIER_ENTRIES} entries and "
        f"{MAX_OBSERVATION_TIER_CHARS:,} characters; the audit keeps them): call memory_reflect to condense it"
        if dropped
        else ""
    )
    return (
        f"observation saved: {len(cleaned)} new entr{'y' if len(cleaned) == 1 else 'ies'} "
        f"({len(record['entries'])} in the tier), {counted:,} tokens condensed; "
        f"rolling counter reset, {observed:,} tokens observed since the last reflection{left}"
    )


def persist_reflection(store: SessionStore, session_id: str, entries: object) -> str:
    """`memory_reflect`: replace the reflection tier, reset the observation counter and
    end the generation."""
    cleaned = check_entries(entries, "memory_reflect")
    from foundry_tui.core.sessions.store import iso

    with store.transaction() as conn:
        store.write_record(conn, session_id, REFLECTION, {"entries": _stamped(cleaned, iso(store.clock()))})
        conn.execute("UPDATE ledger SET observation = 0 WHERE session_id = ?", (session_id,))
        end_generation(conn, session_id)
    return (
        f"reflection saved: {len(cleaned)} entr{'y' if len(cleaned) == 1 else 'ies'}; observation counter reset "
        "(the observations it condensed leave the context)"
    )
