"""`contract_validate`: validates a JSON artifact against a Foundry contract schema and returns the list of violations."""

from __future__ import annotations

from foundry_tui.mcp.tool import READ_ONLY, Tool, schema_object

TYPE_CHECKING = False
if TYPE_CHECKING:
    from foundry_tui.mcp.tool import Reply, ToolCall

DESCRIPTION = (
    "Validates a JSON artifact against a Foundry contract schema and returns the list of violations. "
    "Supply exactly one of data or path."
)
SCHEMA = schema_object(
    {
        "schema": {"type": "string", "description": "Contract id, e.g. finding.v1"},
        "data": {"type": "object", "description": "The artifact to validate"},
        "path": {
            "type": "string",
            "description": "Alternatively, a JSON file, resolved against the project root when relative",
        },
    },
    ["schema"],
)


def handle(call: ToolCall) -> Reply:
    from foundry_tui.core.artefacts.contracts import contract_validate

    valid, text = contract_validate(
        call.project.layout,
        call.args["schema"],
        call.args.get("data"),
        call.args.get("path"),
        has_data="data" in call.args,
    )
    return text, {"schema": call.args["schema"], "valid": valid}


TOOL = Tool(
    "contract_validate",
    DESCRIPTION,
    SCHEMA,
    handle,
    title="Validate an artifact against a contract",
    writes=False,
    hints=READ_ONLY,
    acts_for_caller=False,
)
