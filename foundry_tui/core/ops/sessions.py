"""The door for session memory (spec 004, T0): an agent's own session tiers (`open`: the
session's scratch, read back only into that session), promoting a working fact into a T1
fact (`gated`, like any fact), and pruning old sessions (`curator`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from foundry_tui.core.ops.actor import Actor, require_curator
from foundry_tui.core.ops.registry import operation

if TYPE_CHECKING:
    from foundry_tui.core.gate.guard import GateResult
    from foundry_tui.core.memory.model.request import WriteRequest
    from foundry_tui.core.memory.writing.write import WriteResult
    from foundry_tui.core.paths import Layout
    from foundry_tui.core.sessions.store import SessionStore


@operation("session.tool", "open", "the session tools: working memory, observation and reflection of this session")
# args: Any, the tool's arguments as checked against its schema (read as the schema's types)
def session_tool(layout: Layout, name: str, args: dict[str, Any]) -> tuple[str, dict[str, object]]:
    from foundry_tui.core.sessions.tools import call_session_tool

    return call_session_tool(layout, name, args)


@operation("session.edit", "open", "add, remove or replace a working fact of a session (the CLI's `memory` tool)")
def edit_working_memory(
    store: SessionStore,
    session_id: str,
    command: str,
    fact: str | None = None,
    old: str | None = None,
    new: str | None = None,
) -> str:
    from foundry_tui.core.sessions.working import memory_command

    return memory_command(store, session_id, command, fact, old, new)


@operation("session.promote", "gated", "write a session's working fact as a T1 fact")
def promote(
    actor: Actor, store: SessionStore, session_id: str, request: WriteRequest, fact: str
) -> GateResult[WriteResult]:
    from foundry_tui.core.gate.changes import WriteChange
    from foundry_tui.core.gate.guard import guarded_write
    from foundry_tui.core.sessions.curation import note_promoted

    gate = guarded_write(actor.project, actor.caller, WriteChange(request, "promote"), actor.today)
    if gate.applied is not None and gate.applied.fact_id:
        note_promoted(store, session_id, fact, gate.applied.fact_id, gate.applied.action)
    return gate


def promote_reference(
    actor: Actor,
    store: SessionStore,
    session_id: str,
    reference: str,
    title: str | None = None,
    type: str = "convention",
    tags: list[str] | None = None,
) -> GateResult[WriteResult]:
    """`foundry session promote ID FACT`: find the working fact (by text or number), then promote it."""
    from foundry_tui.core.sessions.curation import promotion_for

    fact, request = promotion_for(store, session_id, reference, title, type, tags)
    return promote(actor, store, session_id, request, fact)


@operation("session.prune", "curator", "remove sessions last active before a cutoff (scratch only)")
def prune_sessions(actor: Actor, store: SessionStore, rows: list[dict[str, Any]]) -> str:
    from foundry_tui.core.sessions.curation import prune_sessions as remove

    require_curator(actor, "prune sessions")
    return remove(store, rows)
