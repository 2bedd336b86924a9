"""`save_user_preferences`: replaces the person's preferences with content (at most 20,000 characters)."""

from __future__ import annotations

from foundry_tui.mcp.tool import Tool, changes, schema_object

TYPE_CHECKING = False
if TYPE_CHECKING:
    from foundry_tui.mcp.tool import Reply, ToolCall

DESCRIPTION = (
    "Replaces the person's preferences with content (at most 20,000 characters). Read, merge, rewrite: "
    "get_user_preferences first, then save the whole merged text."
)
SCHEMA = schema_object({"content": {"type": "string", "description": "The whole new text (markdown)"}}, ["content"])


def handle(call: ToolCall) -> Reply:
    from foundry_tui.core.ops.preferences import save

    return save(call.caller, call.args["content"]), {"chars": len(call.args["content"])}


# It replaces the whole text; the same text again changes nothing.
TOOL = Tool(
    "save_user_preferences",
    DESCRIPTION,
    SCHEMA,
    handle,
    title="Save the person's preferences",
    writes=True,
    hints=changes(destructive=True, idempotent=True),
    acts_for_caller=True,
)
