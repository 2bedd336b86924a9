"""`runbook_list`: lists runbooks with their trigger conditions."""

from __future__ import annotations

from foundry_tui.mcp.tool import READ_ONLY, Tool, schema_object

TYPE_CHECKING = False
if TYPE_CHECKING:
    from foundry_tui.mcp.tool import Reply, ToolCall

DESCRIPTION = (
    "Lists runbooks with their trigger conditions. Consult this before starting any recurring or error-prone task — "
    "a runbook that exists must be followed rather than improvised."
)
SCHEMA = schema_object({}, [])


def handle(call: ToolCall) -> Reply:
    from foundry_tui.core.artefacts.runbooks import list_runbooks, render_runbook_list

    return render_runbook_list(list_runbooks(call.project.layout)), {}


TOOL = Tool(
    "runbook_list",
    DESCRIPTION,
    SCHEMA,
    handle,
    title="List runbooks",
    writes=False,
    hints=READ_ONLY,
    acts_for_caller=False,
)
