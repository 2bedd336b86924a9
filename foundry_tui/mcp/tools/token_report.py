"""`token_report`: reports Foundry token accounting for the project, including the recorded gate events."""

from __future__ import annotations

from foundry_tui.mcp.tool import READ_ONLY, Tool, schema_object

TYPE_CHECKING = False
if TYPE_CHECKING:
    from foundry_tui.mcp.tool import Reply, ToolCall

DESCRIPTION = "Reports Foundry token accounting for the project, including the recorded gate events."
SCHEMA = schema_object({}, [])


def handle(call: ToolCall) -> Reply:
    from foundry_tui.core.artefacts.token_report import token_report

    return token_report(call.project, call.today), {}


TOOL = Tool(
    "token_report",
    DESCRIPTION,
    SCHEMA,
    handle,
    title="Report token accounting",
    writes=False,
    hints=READ_ONLY,
    acts_for_caller=False,
)
