"""`blackboard_read`: reads artifacts for a wave: metadata and summaries by default."""

from __future__ import annotations

from foundry_tui.mcp.tool import READ_ONLY, Tool, schema_object

TYPE_CHECKING = False
if TYPE_CHECKING:
    from foundry_tui.core.json_types import JSONObject, JSONValue
    from foundry_tui.mcp.tool import Reply, ToolCall

DESCRIPTION = (
    "Reads artifacts for a wave: metadata and summaries by default. full returns each artifact verbatim; "
    "use it only when you genuinely need it."
)
SCHEMA = schema_object(
    {
        "wave": {"type": "string"},
        "agent": {"type": "string", "description": "Restrict to one producer"},
        "full": {"type": "boolean", "description": "Return the whole artifact"},
    },
    ["wave"],
)
NULLABLE_STRING = {"type": ["string", "null"]}
ARTIFACT = {
    "type": "object",
    "properties": {
        "file": {"type": "string", "description": "The artifact's file name in the wave's folder"},
        "path": {"type": "string", "description": "Its path from the project root"},
        "schema": {**NULLABLE_STRING, "description": "Its schema field; null when it has none"},
        "producedBy": {**NULLABLE_STRING, "description": "Its producedBy field; null when it has none"},
        "tokens": {"type": "integer", "minimum": 0, "description": "Estimated tokens of the file"},
        "summary": {**NULLABLE_STRING, "description": "Its summary, else title, else goal (400 characters)"},
        "problem": {**NULLABLE_STRING, "description": "Why it cannot be read; null when it can"},
        "data": {"description": "With full: the artifact itself (absent otherwise, or when unreadable)"},
    },
    "required": ["file", "path", "schema", "producedBy", "tokens", "summary", "problem"],
    "additionalProperties": False,
}
OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {
        "wave": {"type": "string", "description": "The wave, as its folder is named"},
        "artifacts": {"type": "array", "items": ARTIFACT, "description": "In the text's order"},
    },
    "required": ["wave", "artifacts"],
    "additionalProperties": False,
}


def _field(data: object, key: str) -> str | None:
    return str(data[key]) if isinstance(data, dict) and key in data else None


def handle(call: ToolCall) -> Reply:
    from foundry_tui.core.artefacts.blackboard import read_artifacts, render_read
    from foundry_tui.core.names import sanitise

    layout = call.project.layout
    wave, agent, full = call.args["wave"], call.args.get("agent"), bool(call.args.get("full", False))
    artifacts = read_artifacts(layout, wave, agent)
    entries: list[JSONValue] = []
    for art in artifacts:
        entry: JSONObject = {
            "file": art.name,
            "path": art.path.relative_to(layout.root).as_posix(),
            "schema": _field(art.data, "schema"),
            "producedBy": _field(art.data, "producedBy"),
            "tokens": art.tokens,
            "summary": None if art.problem else art.summary_field(),
            "problem": art.problem,
        }
        if full and not art.problem:
            entry["data"] = art.data
        entries.append(entry)
    call.structured = {"wave": sanitise(wave, "wave"), "artifacts": entries}
    return render_read(artifacts, wave, agent, full), {}


TOOL = Tool(
    "blackboard_read",
    DESCRIPTION,
    SCHEMA,
    handle,
    title="Read a wave's artifacts",
    output_schema=OUTPUT_SCHEMA,
    writes=False,
    hints=READ_ONLY,
    acts_for_caller=False,
)
