"""`memory_reflect`: replaces this session's reflection with condensed entries over the reflection and observations in your context (when a [memory_request] asks for it)."""

from __future__ import annotations

from foundry_tui.mcp.tool import Tool, changes, schema_object

TYPE_CHECKING = False
if TYPE_CHECKING:
    from foundry_tui.mcp.tool import Reply, ToolCall

DESCRIPTION = (
    "Replaces this session's reflection with condensed entries over the reflection and observations in your "
    "context (when a [memory_request] asks for it). Resets the session's observation counter."
)
SCHEMA = schema_object(
    {"entries": {"type": "array", "items": {"type": "string"}, "description": "One line each"}}, ["entries"]
)


def handle(call: ToolCall) -> Reply:
    from foundry_tui.core.ops.sessions import session_tool

    return session_tool(call.project.layout, call.name, call.args)


# It replaces the session's reflection; the same entries again leave the same one.
TOOL = Tool(
    "memory_reflect",
    DESCRIPTION,
    SCHEMA,
    handle,
    title="Save a reflection",
    writes=True,
    hints=changes(destructive=True, idempotent=True),
    acts_for_caller=False,
)
