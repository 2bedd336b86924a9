"""`memory_observe`: saves condensed observations of this session's recent work (when a [memory_request] asks for them)."""

from __future__ import annotations

from foundry_tui.mcp.tool import Tool, changes, schema_object

TYPE_CHECKING = False
if TYPE_CHECKING:
    from foundry_tui.mcp.tool import Reply, ToolCall

DESCRIPTION = (
    "Saves condensed observations of this session's recent work (when a [memory_request] asks for them). "
    "Each entry is one line: what was done, decided or found. Resets the session's rolling token counter."
)
SCHEMA = schema_object(
    {
        "entries": {"type": "array", "items": {"type": "string"}, "description": "One line each"},
        "token_count": {
            "type": "integer",
            "minimum": 0,
            "maximum": 10_000_000,
            "description": "Tokens of conversation condensed (the request names it). Defaults to the rolling count",
        },
    },
    ["entries"],
)


def handle(call: ToolCall) -> Reply:
    from foundry_tui.core.ops.sessions import session_tool

    return session_tool(call.project.layout, call.name, call.args)


# Each call appends its entries (the oldest leave the tier but stay in the audit): the same call
# twice adds them twice.
TOOL = Tool(
    "memory_observe",
    DESCRIPTION,
    SCHEMA,
    handle,
    title="Save observations",
    writes=True,
    hints=changes(destructive=False, idempotent=False),
    acts_for_caller=False,
)
