"""`memory_index`: rebuilds .foundry/memory/INDEX.md and reports budget usage."""

from __future__ import annotations

from foundry_tui.mcp.tool import Tool, changes, schema_object

TYPE_CHECKING = False
if TYPE_CHECKING:
    from foundry_tui.mcp.tool import Reply, ToolCall

DESCRIPTION = (
    "Rebuilds .foundry/memory/INDEX.md and reports budget usage. Only needed after facts were edited by other means."
)
SCHEMA = schema_object({}, [])


def handle(call: ToolCall) -> Reply:
    from foundry_tui.core.ops.facts import rebuild_index

    return rebuild_index(call.actor()).rebuild_text(), {}


# INDEX.md is derived from the facts: rewriting it loses nothing, and again changes nothing.
TOOL = Tool(
    "memory_index",
    DESCRIPTION,
    SCHEMA,
    handle,
    title="Rebuild the memory index",
    writes=True,
    hints=changes(destructive=False, idempotent=True),
    acts_for_caller=False,
)
