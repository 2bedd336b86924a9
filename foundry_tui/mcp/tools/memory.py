"""`memory`: edits this session's working memory: short facts you are working with, shown at the top of your context on every prompt and kept across compaction and resume."""

from __future__ import annotations

from foundry_tui.mcp.tool import Tool, changes, schema_object

TYPE_CHECKING = False
if TYPE_CHECKING:
    from foundry_tui.mcp.tool import Reply, ToolCall

DESCRIPTION = (
    "Edits this session's working memory: short facts you are working with, shown at the top of your context "
    "on every prompt and kept across compaction and resume. Commands: add {fact}, remove {fact}, "
    "replace {old, new}. For durable project knowledge use memory_write instead."
)
SCHEMA = schema_object(
    {
        "command": {"type": "string", "enum": ["add", "remove", "replace"]},
        "fact": {"type": "string", "description": "add, remove: one line, at most 300 characters"},
        "old": {"type": "string", "description": "replace: the fact as it stands"},
        "new": {"type": "string", "description": "replace: the fact that takes its place"},
    },
    ["command"],
)


def handle(call: ToolCall) -> Reply:
    from foundry_tui.core.ops.sessions import session_tool

    return session_tool(call.project.layout, call.name, call.args)


# remove and replace take facts out; the same add again is `unchanged`, and the same remove or
# replace finds nothing left to do.
TOOL = Tool(
    "memory",
    DESCRIPTION,
    SCHEMA,
    handle,
    title="Edit working memory",
    writes=True,
    hints=changes(destructive=True, idempotent=True),
    acts_for_caller=False,
)
