"""How session memory reaches the model (spec 004 §7), through the hooks.

On every UserPromptSubmit and SessionStart (startup, resume, clear, compact) the hook
calls `hook_session_context`: it records which agent process runs the session, counts
the transcript's new turns, checks the triggers, and returns the tiers in the spec's
order: `[working_memory]` and one line per fact, then `[reflection]`, then
`[observation]` only when it is newer than the reflection. Empty tiers print nothing.
When a trigger fires, a `[memory_request]` block asks the agent to condense and call
`memory_observe` or `memory_reflect`.

What the tiers add to a prompt is bounded by SESSION_CONTEXT_TOKEN_BUDGET: working memory
first (40 facts of 300 characters fit well inside it), then the reflection and the
observation share what is left (either takes what the other leaves). A tier cut short
keeps its first reflection entries and its newest observations, and says how many it
left out in one last line.
"""

from __future__ import annotations

from foundry_tui.core.sessions.ledger import OBSERVATION
from foundry_tui.core.tokens import tokens_for_chars

SESSION_CONTEXT_TOKEN_BUDGET = 8_000
BLOCK_SEPARATOR = "\n\n"

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from foundry_tui.core.json_types import JSONObject
    from foundry_tui.core.paths import Layout
    from foundry_tui.core.sessions.ledger import Ledger


def _lines(entries: list[object], timed: bool) -> list[str]:
    lines = []
    for entry in entries:
        text = entry.get("text", "") if isinstance(entry, dict) else str(entry)
        at = entry.get("at", "") if isinstance(entry, dict) else ""
        stamp = f"{at[:10]} {at[11:16]} " if timed and len(at) >= 16 else ""
        lines.append(f"- {stamp}{text}")
    return lines


def observation_is_current(memory: dict[str, Any]) -> bool:
    """The observation tier is shown only when it is newer than the reflection."""
    observation, reflection = memory.get("observation"), memory.get("reflection")
    if not observation or not observation.get("entries"):
        return False
    return not reflection or int(observation.get("seq", 0)) > int(reflection.get("seq", 0))


def _cost(block: str) -> int:
    """Tokens of a block and the separator after it: summed over the blocks, never less
    than the estimate of the text they make (a sum of ceilings)."""
    return tokens_for_chars(len(block) + len(BLOCK_SEPARATOR)) if block else 0


def _fit(header: str, lines: list[str], allowance: int, keep_newest: bool, budget: int) -> str:
    """`header` and as many of `lines` as fit in `allowance` tokens (the first, or with
    `keep_newest` the last, in their order), then a line saying how many were left out."""
    block = "\n".join([header, *lines])
    if _cost(block) <= allowance:
        return block

    def note(left_out: int) -> str:
        which = "older" if keep_newest else "further"
        return f"- ({left_out} {which} entries not shown: session memory gets at most {budget:,} tokens of a prompt)"

    used = len(header) + 1 + len(note(len(lines)))  # the note at its widest
    kept: list[str] = []
    for line in reversed(lines) if keep_newest else lines:
        if tokens_for_chars(used + 1 + len(line) + len(BLOCK_SEPARATOR)) > allowance:
            break
        kept.append(line)
        used += 1 + len(line)
    if tokens_for_chars(used + len(BLOCK_SEPARATOR)) > allowance:
        return ""
    left_out = note(len(lines) - len(kept))
    if keep_newest:  # the note stands where the older entries would
        return "\n".join([header, left_out, *reversed(kept)])
    return "\n".join([header, *kept, left_out])


def _shares(left: int, reflection: int, observation: int) -> tuple[int, int]:
    """Token allowances of the reflection and the observation out of `left`: each what it
    needs when both fit, else half, and either takes what the other leaves of its half."""
    if reflection + observation <= left:
        return reflection, observation
    half = left // 2
    if reflection <= half:
        return reflection, left - reflection
    if observation <= half:
        return left - observation, observation
    return half, left - half


def render_tiers(memory: dict[str, Any], budget: int = SESSION_CONTEXT_TOKEN_BUDGET) -> str:
    """The tiers as the model reads them, within `budget` tokens; "" when every tier is empty."""
    working = memory.get("working") or {}
    facts = [f"- {fact}" for fact in working.get("facts") or []]
    working_block = _fit("[working_memory]", facts, budget, False, budget) if facts else ""
    reflection = memory.get("reflection") or {}
    reflection_lines = _lines(reflection["entries"], timed=False) if reflection.get("entries") else []
    observation_lines = _lines(memory["observation"]["entries"], timed=True) if observation_is_current(memory) else []
    reflection_full = "\n".join(["[reflection]", *reflection_lines]) if reflection_lines else ""
    observation_full = "\n".join(["[observation]", *observation_lines]) if observation_lines else ""
    reflection_share, observation_share = _shares(
        budget - _cost(working_block), _cost(reflection_full), _cost(observation_full)
    )
    blocks = [
        working_block,
        _fit("[reflection]", reflection_lines, reflection_share, False, budget) if reflection_lines else "",
        _fit("[observation]", observation_lines, observation_share, True, budget) if observation_lines else "",
    ]
    return BLOCK_SEPARATOR.join(block for block in blocks if block)


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
    layout: Layout, event: JSONObject, observation_trigger: int, reflection_trigger: int
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
