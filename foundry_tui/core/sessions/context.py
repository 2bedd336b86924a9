"""How session memory reaches the model (spec 004 §7), through the hooks.

On every UserPromptSubmit and SessionStart (startup, resume, clear, compact) the hook
calls `hook_session_context`: it records which agent process runs the session, counts
the transcript's new turns, checks the triggers, and returns the tiers in the spec's
order: `[working_memory]` and one line per fact, then `[reflection]`, then
`[observation]` only when it is newer than the reflection. Empty tiers print nothing.
When a trigger fires, a `[memory_request]` block asks the agent to condense and call
`memory_observe` or `memory_reflect`.
"""

from __future__ import annotations

from foundry_tui.core.sessions.ledger import OBSERVATION

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from foundry_tui.core.paths import Layout
    from foundry_tui.core.sessions.ledger import Ledger


def _lines(entries: list[Any], timed: bool) -> str:
    lines = []
    for entry in entries:
        text = entry.get("text", "") if isinstance(entry, dict) else str(entry)
        at = entry.get("at", "") if isinstance(entry, dict) else ""
        stamp = f"{at[:10]} {at[11:16]} " if timed and len(at) >= 16 else ""
        lines.append(f"- {stamp}{text}")
    return "\n".join(lines)


def observation_is_current(memory: dict[str, Any]) -> bool:
    """The observation tier is shown only when it is newer than the reflection."""
    observation, reflection = memory.get("observation"), memory.get("reflection")
    if not observation or not observation.get("entries"):
        return False
    return not reflection or int(observation.get("seq", 0)) > int(reflection.get("seq", 0))


def render_tiers(memory: dict[str, Any]) -> str:
    """The tiers as the model reads them; "" when every tier is empty."""
    blocks = []
    working = memory.get("working") or {}
    if working.get("facts"):
        blocks.append("[working_memory]\n" + "\n".join(f"- {fact}" for fact in working["facts"]))
    reflection = memory.get("reflection") or {}
    if reflection.get("entries"):
        blocks.append("[reflection]\n" + _lines(reflection["entries"], timed=False))
    if observation_is_current(memory):
        blocks.append("[observation]\n" + _lines(memory["observation"]["entries"], timed=True))
    return "\n\n".join(blocks)


def render_request(kind: str, ledger: Ledger, observation_trigger: int, reflection_trigger: int) -> str:
    """What the hook asks the agent when a trigger fires."""
    if kind == OBSERVATION:
        return (
            f"[memory_request] This session has added {ledger.rolling:,} tokens since its last observation "
            f"(trigger {observation_trigger:,}). Before you go on, condense what happened since then into a few "
            "short observation entries (one line each: what was done, decided or found, with names and numbers) "
            "and call the foundry MCP tool memory_observe with "
            f'{{"entries": [...], "token_count": {ledger.rolling}}}.'
        )
    return (
        f"[memory_request] {ledger.observation:,} tokens have been observed since the last reflection "
        f"(trigger {reflection_trigger:,}). Before you go on, condense the [reflection] and [observation] above "
        "into a short list of reflection entries (what still matters for the rest of this session) and call "
        'the foundry MCP tool memory_reflect with {"entries": [...]}; it replaces the reflection.'
    )


def hook_session_context(
    layout: Layout, event: dict[str, Any], observation_trigger: int, reflection_trigger: int
) -> tuple[str, str]:
    """The session part of a hook's additional context: (the tiers, the memory request),
    each "" when there is none. Raises FoundryError (a junk session id, a corrupt store)
    for the hook to report in one line."""
    session_id = event.get("session_id")
    if session_id is None or not layout.foundry.is_dir():
        return "", ""
    from foundry_tui.core.sessions.agents import check_session_id, record_agent
    from foundry_tui.core.sessions.ledger import begin_generation, check_triggers, ingest_transcript, load_ledger
    from foundry_tui.core.sessions.store import SessionStore

    session_id = check_session_id(session_id, "the hook payload's session_id")
    store = SessionStore(layout)
    request = ""
    try:
        with store.transaction() as conn:
            record_agent(store, conn, session_id)
            transcript = event.get("transcript_path")
            if isinstance(transcript, str) and transcript:
                ingest_transcript(store, conn, session_id, transcript)
            else:
                store.touch(conn, session_id)
            ledger = load_ledger(conn, session_id)
            kind = check_triggers(ledger, observation_trigger, reflection_trigger, store.clock())
            if kind is not None and begin_generation(store, conn, session_id, kind):
                request = render_request(kind, ledger, observation_trigger, reflection_trigger)
            memory = store.load_memory(conn, session_id)
    finally:
        store.close()
    return render_tiers(memory), request
