"""The session-memory MCP tools (`memory`, `memory_observe`, `memory_reflect`) as one
core call each: the MCP adapter and the CLI print what these return."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from foundry_tui.core.paths import Layout

SESSION_TOOLS = ("memory", "memory_observe", "memory_reflect")


# args: Any, the tool's arguments as checked against its schema (read as the schema's types)
def call_session_tool(layout: Layout, name: str, args: dict[str, Any]) -> tuple[str, dict[str, object]]:
    """Run one session tool for the session this process acts for (FOUNDRY_SESSION, else
    the agent process that started it); return the reply and the fields of its event.
    Raises FoundryError (nothing written) when it cannot apply."""
    from foundry_tui.core.sessions.agents import resolve_session
    from foundry_tui.core.sessions.ledger import persist_observation, persist_reflection
    from foundry_tui.core.sessions.store import SessionStore
    from foundry_tui.core.sessions.working import memory_command

    store = SessionStore(layout)
    try:
        session_id = resolve_session(store)
        if name == "memory":
            text = memory_command(
                store, session_id, args["command"], args.get("fact"), args.get("old"), args.get("new")
            )
            return text, {"session": session_id, "command": args["command"]}
        if name == "memory_observe":
            text = persist_observation(store, session_id, args["entries"], args.get("token_count"))
            return text, {"session": session_id, "entries": len(args["entries"])}
        if name == "memory_reflect":
            text = persist_reflection(store, session_id, args["entries"])
            return text, {"session": session_id, "entries": len(args["entries"])}
    finally:
        store.close()
    raise KeyError(name)
