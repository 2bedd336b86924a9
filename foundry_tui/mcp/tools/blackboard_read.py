"""`blackboard_read`: reads artifacts for a wave: metadata and summaries by default."""

from __future__ import annotations

from foundry_tui.mcp.tool import READ_ONLY, Tool, schema_object

TYPE_CHECKING = False
if TYPE_CHECKING:
    from foundry_tui.mcp.tool import Reply, ToolCall

DESCRIPTION = (
    "Reads artifacts for a wave: metadata and summaries by default. full returns each artifact verbatim; "
    "use it only when you genuinely need it."
)
SCHEMA = schema_object(
    {
        "wave": {"type": "string"},
        "agent": {"type": "string", "description": "Restrict to one producer"},
        "full": {"type": "boolean", "description": "Return the whole artifact"},
    },
    ["wave"],
)


def handle(call: ToolCall) -> Reply:
    from foundry_tui.core.artefacts.blackboard import blackboard_read

    return blackboard_read(
        call.project.layout, call.args["wave"], call.args.get("agent"), bool(call.args.get("full", False))
    ), {}


TOOL = Tool(
    "blackboard_read",
    DESCRIPTION,
    SCHEMA,
    handle,
    title="Read a wave's artifacts",
    writes=False,
    hints=READ_ONLY,
    acts_for_caller=False,
)
