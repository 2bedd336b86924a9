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
OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {
        "schema": {"type": "string", "description": "The contract id"},
        "valid": {"type": "boolean"},
        "violations": {
            "type": "array",
            "description": "In the order the text lists them; empty when valid",
            "items": {
                "type": "object",
                "properties": {
                    "message": {"type": "string", "description": "The text's line, without its dash"},
                    "path": {
                        "type": "string",
                        "description": 'JSON pointer (RFC 6901) of the value it is about; "" for the whole artifact',
                    },
                },
                "required": ["message", "path"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["schema", "valid", "violations"],
    "additionalProperties": False,
}


def handle(call: ToolCall) -> Reply:
    from foundry_tui.core.artefacts.contracts import contract_findings, validation_text
    from foundry_tui.core.artefacts.json_places import pointer

    schema_id = call.args["schema"]
    found = contract_findings(
        call.project.layout, schema_id, call.args.get("data"), call.args.get("path"), has_data="data" in call.args
    )
    call.structured = {
        "schema": schema_id,
        "valid": not found,
        "violations": [{"message": f.message, "path": pointer(f.path)} for f in found],
    }
    return validation_text(schema_id, found), {"schema": schema_id, "valid": not found}


TOOL = Tool(
    "contract_validate",
    DESCRIPTION,
    SCHEMA,
    handle,
    title="Validate an artifact against a contract",
    output_schema=OUTPUT_SCHEMA,
    writes=False,
    hints=READ_ONLY,
    acts_for_caller=False,
)
