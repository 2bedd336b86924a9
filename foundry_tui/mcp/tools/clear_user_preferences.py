"""`clear_user_preferences`: asks to delete the person's preferences."""

from __future__ import annotations

from foundry_tui.mcp.tool import Tool, changes, schema_object

TYPE_CHECKING = False
if TYPE_CHECKING:
    from foundry_tui.mcp.tool import Reply, ToolCall

DESCRIPTION = (
    "Asks to delete the person's preferences. It only parks the request: the person confirms it "
    "(foundry prefs clear --confirm); nothing is deleted by this call."
)
SCHEMA = schema_object({}, [])


def handle(call: ToolCall) -> Reply:
    from foundry_tui.core.ops.preferences import request_clear

    return request_clear(call.caller), {}


# It only parks a request (the person confirms the deletion); asking again parks the same request.
TOOL = Tool(
    "clear_user_preferences",
    DESCRIPTION,
    SCHEMA,
    handle,
    title="Ask to clear the person's preferences",
    writes=True,
    hints=changes(destructive=False, idempotent=True),
    acts_for_caller=True,
)
