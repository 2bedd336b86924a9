"""`runbook_get`: returns the full markdown of .foundry/runbooks/<slug>.md."""

from __future__ import annotations

from foundry_tui.mcp.tool import READ_ONLY, Tool, schema_object

TYPE_CHECKING = False
if TYPE_CHECKING:
    from foundry_tui.mcp.tool import Reply, ToolCall

DESCRIPTION = "Returns the full markdown of .foundry/runbooks/<slug>.md."
SCHEMA = schema_object({"slug": {"type": "string", "minLength": 1}}, ["slug"])


def handle(call: ToolCall) -> Reply:
    from foundry_tui.core.artefacts.runbooks import get_runbook

    return get_runbook(call.project.layout, call.args["slug"]), {"slug": call.args["slug"]}


TOOL = Tool(
    "runbook_get",
    DESCRIPTION,
    SCHEMA,
    handle,
    title="Read a runbook",
    writes=False,
    hints=READ_ONLY,
    acts_for_caller=False,
)
