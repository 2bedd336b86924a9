"""`get_user_preferences`: returns the standing notes of the person this session works for (their preferences: a default branch, a review style...)."""

from __future__ import annotations

from foundry_tui.mcp.tool import READ_ONLY, Tool, schema_object

TYPE_CHECKING = False
if TYPE_CHECKING:
    from foundry_tui.mcp.tool import Reply, ToolCall

DESCRIPTION = (
    "Returns the standing notes of the person this session works for (their preferences: a default "
    "branch, a review style...). Read them before saving: saving replaces the whole text."
)
SCHEMA = schema_object({}, [])


def handle(call: ToolCall) -> Reply:
    from foundry_tui.core.trust.preferences import get_preferences

    return get_preferences(call.caller), {}


TOOL = Tool(
    "get_user_preferences",
    DESCRIPTION,
    SCHEMA,
    handle,
    title="Read the person's preferences",
    writes=False,
    hints=READ_ONLY,
    acts_for_caller=True,
)
