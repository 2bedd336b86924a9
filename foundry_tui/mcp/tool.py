"""What an MCP tool is: its name, title and the description the model reads, its input schema
(and, for a reply a program parses, its output schema), its handler (the one core call it
makes, through the door for a change), whether it writes and acts for the server's principal,
and its behaviour hints (MCP tool annotations). One module per tool under `mcp/tools/` holds
each; `mcp/registry.py` lists them."""

from __future__ import annotations

TYPE_CHECKING = False  # imported on the first tool call: keep typing and datetime out of it
if TYPE_CHECKING:
    import datetime as _dt
    from collections.abc import Callable
    from typing import Any

    from foundry_tui.core.json_types import JSONObject, JSONValue
    from foundry_tui.core.memory.project import Project
    from foundry_tui.core.ops.actor import Actor
    from foundry_tui.core.trust.principal import Caller

    Reply = tuple[str, dict[str, object]]  # the reply text, and the fields of the call's event


# The protocol versions that added what a listing or a result may carry (MCP's changelogs):
# tool annotations came with 2025-03-26; a tool's top-level title, its outputSchema and a
# result's structuredContent with 2025-06-18. An older client is sent neither.
ANNOTATIONS_FROM = "2025-03-26"
STRUCTURED_FROM = "2025-06-18"
LATEST_VERSION = "2025-06-18"


class ToolCall:
    """One call: the tool's name and arguments (checked against its schema), the project, the
    date that decides expiry, and the server's principal (fixed when it started). A handler
    whose tool has an output schema sets `structured` beside the text it returns; one with more
    to say than the spec's reply text adds it to `more`, each a text content item after it."""

    __slots__ = ("args", "caller", "more", "name", "project", "structured", "today")

    def __init__(self, name: str, args: dict[str, Any], project: Project, today: _dt.date, caller: Caller) -> None:
        self.name = name
        # Any: check_arguments held them to the tool's schema, so each handler reads its own as the
        # schema's types (a JSONValue would cost every handler an isinstance per argument).
        self.args = args
        self.project = project
        self.today = today
        self.caller = caller
        self.structured: JSONObject | None = None
        self.more: list[str] = []

    def actor(self) -> Actor:
        """The caller, project and day, as the door's operations take them."""
        from foundry_tui.core.ops.actor import Actor

        return Actor(self.project, self.caller, self.today)


class Hints:
    """What a tool does to its environment, as MCP's tool annotations say it, every one stated
    (the protocol's defaults assume the worst: not read-only, destructive, not idempotent, open
    world). `read_only`: it changes nothing (the events log every call appends to is metrics,
    not the tool's effect); `destructive`: it may replace or remove what is there, rather than
    only add; `idempotent`: the same call again has no further effect; `open_world`: it reaches
    beyond the project (no Foundry tool does: the memory tool is the protocol's own example of
    a closed world)."""

    __slots__ = ("destructive", "idempotent", "open_world", "read_only")

    def __init__(self, *, read_only: bool, destructive: bool, idempotent: bool, open_world: bool) -> None:
        if read_only and (destructive or not idempotent):
            raise ValueError("a read-only tool is neither destructive nor anything but idempotent")
        self.read_only = read_only
        self.destructive = destructive
        self.idempotent = idempotent
        self.open_world = open_world

    def annotations(self, title: str) -> JSONObject:
        return {
            "title": title,
            "readOnlyHint": self.read_only,
            "destructiveHint": self.destructive,
            "idempotentHint": self.idempotent,
            "openWorldHint": self.open_world,
        }


READ_ONLY = Hints(read_only=True, destructive=False, idempotent=True, open_world=False)


def changes(*, destructive: bool, idempotent: bool) -> Hints:
    """The hints of a tool that writes inside the project."""
    return Hints(read_only=False, destructive=destructive, idempotent=idempotent, open_world=False)


class Tool:
    """One tool. `writes`: it changes something on disk (through the door), which its `hints`
    must agree with; `acts_for_caller`: it acts as the server's principal, so arguments naming
    someone else are dropped; `output_schema`: the JSON Schema of the structured content its
    handler gives beside the text (ToolCall.structured), for a reply a program parses."""

    __slots__ = (
        "acts_for_caller",
        "description",
        "handle",
        "hints",
        "name",
        "output_schema",
        "schema",
        "title",
        "writes",
    )

    def __init__(
        self,
        name: str,
        description: str,
        schema: dict[str, Any],  # a JSON Schema, read by its known keys (check_arguments): Any
        handle: Callable[[ToolCall], Reply],
        *,
        title: str,
        writes: bool,
        hints: Hints,
        acts_for_caller: bool,
        output_schema: dict[str, Any] | None = None,
    ) -> None:
        if hints.read_only == writes:
            raise ValueError(f"{name}: writes={writes} but readOnlyHint={hints.read_only}")
        self.name = name
        self.title = title
        self.description = description
        self.schema = schema
        self.handle = handle
        self.writes = writes
        self.hints = hints
        self.acts_for_caller = acts_for_caller
        self.output_schema = output_schema

    def listing(self, protocol_version: str = LATEST_VERSION) -> JSONObject:
        """The tool as `tools/list` gives it to a client of `protocol_version`."""
        entry: JSONObject = {"name": self.name}
        if protocol_version >= STRUCTURED_FROM:
            entry["title"] = self.title
        entry["description"] = self.description
        entry["inputSchema"] = self.schema
        if protocol_version >= STRUCTURED_FROM and self.output_schema is not None:
            entry["outputSchema"] = self.output_schema
        if protocol_version >= ANNOTATIONS_FROM:
            entry["annotations"] = self.hints.annotations(self.title)
        return entry


# JSON Schemas stay dict[str, Any]: check_arguments walks them by keys the schema language fixes.
def schema_object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


STRING = {"type": "string"}

_JSON_TYPES: dict[str, Callable[[object], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
}


def check_arguments(tool: Tool, args: object) -> str | None:
    """The first way `args` breaks the tool's input schema, or None. Nothing is coerced."""
    import re

    if not isinstance(args, dict):
        return "arguments must be an object"
    schema = tool.schema
    for name in schema["required"]:
        if name not in args:
            return f"missing required argument '{name}'"
    for name, value in args.items():
        spec = schema["properties"].get(name)
        if spec is None:
            allowed = ", ".join(schema["properties"]) or "none"
            return f"unknown argument '{name}' (allowed: {allowed})"
        kind = spec["type"]
        if not _JSON_TYPES[kind](value):
            return f"argument '{name}' must be {'an' if kind[0] in 'aeiou' else 'a'} {kind}"
        if "enum" in spec and value not in spec["enum"]:
            return f"argument '{name}' must be one of {', '.join(spec['enum'])}"
        if kind == "integer" and not spec.get("minimum", value) <= value <= spec.get("maximum", value):
            return f"argument '{name}' must be from {spec['minimum']} to {spec['maximum']}"
        if kind == "string" and len(value) < spec.get("minLength", 0):
            return f"argument '{name}' must not be empty"
        if kind == "string" and "pattern" in spec and not re.fullmatch(spec["pattern"], value):
            return f"argument '{name}' must be {spec.get('description', 'well formed')}"
        if kind == "array" and not all(_JSON_TYPES[spec["items"]["type"]](v) for v in value):
            return f"argument '{name}' must be a list of {spec['items']['type']}s"
    return None


# Arguments that try to say who is calling. The trust tools ignore them (and say so) rather
# than fail: identity comes from the server's environment alone (ADR 0019).
IDENTITY_ARGUMENTS = ("principal", "author", "user", "as")


def drop_identity_arguments(tool: Tool, args: dict[str, JSONValue]) -> tuple[dict[str, JSONValue], list[str]]:
    """`args` without identity arguments for a tool that acts for the caller, and the names dropped."""
    if not tool.acts_for_caller:
        return args, []
    ignored = [key for key in IDENTITY_ARGUMENTS if key in args]
    return ({k: v for k, v in args.items() if k not in ignored} if ignored else args), ignored
