"""`blackboard_write`: writes a wave artifact and validates it against its contract in one step; this is how an agent hands work to the next wave."""

from __future__ import annotations

from foundry_tui.mcp.tool import Tool, changes, schema_object

TYPE_CHECKING = False
if TYPE_CHECKING:
    from foundry_tui.mcp.tool import Reply, ToolCall

DESCRIPTION = (
    "Writes a wave artifact and validates it against its contract in one step; this is how an agent hands work to "
    "the next wave. schema and producedBy are set from schema and agent. On failure nothing is written."
)
SCHEMA = schema_object(
    {
        "wave": {"type": "string", "description": "Wave id, e.g. analysis"},
        "agent": {"type": "string", "description": "Producing agent name"},
        "schema": {"type": "string", "description": "Contract id the artifact conforms to"},
        "data": {"type": "object", "description": "The artifact"},
    },
    ["wave", "agent", "schema", "data"],
)


def handle(call: ToolCall) -> Reply:
    from foundry_tui.core.ops.board import blackboard_write

    outcome = blackboard_write(
        call.actor(), call.args["wave"], call.args["agent"], call.args["schema"], call.args["data"]
    )
    return outcome.text, {"schema": call.args["schema"], "written": outcome.written}


# It replaces the agent's earlier artifact in the wave; the same artifact again leaves the same file.
TOOL = Tool(
    "blackboard_write",
    DESCRIPTION,
    SCHEMA,
    handle,
    title="Hand an artifact to the next wave",
    writes=True,
    hints=changes(destructive=True, idempotent=True),
    acts_for_caller=False,
)
