"""The MCP tools (spec 002's nine, spec 004's three for session memory, and the trust
subsystem's three for preferences): their input schemas, descriptions, argument checks, and
the core call each one makes. Every reply text comes from the same core function as
the CLI's, so the two never disagree."""

from __future__ import annotations

from foundry_tui.core import config
from foundry_tui.core.memory import vocabulary as vocab

TYPE_CHECKING = False  # imported on the first tool call: keep typing and datetime out of it
if TYPE_CHECKING:
    import datetime as _dt
    from collections.abc import Callable
    from typing import Any


class Tool:
    """One tool: its name, the description the model reads, and its input schema."""

    __slots__ = ("description", "name", "schema")

    def __init__(self, name: str, description: str, schema: dict[str, Any]) -> None:
        self.name = name
        self.description = description
        self.schema = schema

    def listing(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "inputSchema": self.schema}


def _obj(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


_STR = {"type": "string"}

TOOLS: list[Tool] = [
    Tool(
        "memory_search",
        "Searches project memory and returns only the matching facts. Use this instead of reading files under "
        ".foundry/memory/ — it is the token-cheap path. Call it before planning, before proposing an architecture, "
        "and whenever the user refers to a past decision. Keyword scoring: synonyms do not match.",
        _obj(
            {
                "query": {"type": "string", "description": "Keywords describing what you need to know", "minLength": 1},
                "type": {"type": "string", "enum": list(vocab.TYPES), "description": "Only facts of this type"},
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": config.MAX_LIMIT,
                    "description": f"Default memoryRetrieval.maxFacts ({config.DEFAULT_MAX_FACTS})",
                },
            },
            ["query"],
        ),
    ),
    Tool(
        "memory_write",
        "Stores one atomic durable fact. Deduplicates against existing facts, assigns the id and maintains supersedes "
        "chains. Never write memory files by hand. Do not use it for transient session state. For decision and risk, "
        "include Why: and How to apply: lines. Restating a fact (same title, new body) keeps the optional fields you "
        "leave out from the fact it replaces.",
        _obj(
            {
                "title": {
                    "type": "string",
                    "maxLength": vocab.MAX_TITLE_CHARS,
                    "description": f"States the fact itself, not the topic. Max {vocab.MAX_TITLE_CHARS} characters",
                },
                "body": {
                    "type": "string",
                    "description": f"Max {vocab.MAX_BODY_WORDS} words. For decision and risk, include Why: and How to apply: lines",
                },
                "type": {"type": "string", "enum": list(vocab.TYPES)},
                "scope": {
                    "type": "string",
                    "description": f"project | module:<name> | vertical:<name>. Defaults to {vocab.DEFAULT_SCOPE}",
                },
                "tags": {
                    "type": "array",
                    "items": {"type": "string", "maxLength": vocab.MAX_TAG_CHARS},
                    "maxItems": vocab.MAX_TAGS,
                    "description": f"Retrieval words: at most {vocab.MAX_TAGS}, each at most {vocab.MAX_TAG_CHARS} characters. "
                    "Defaults to []",
                },
                "confidence": {
                    "type": "string",
                    "enum": list(vocab.CONFIDENCES),
                    "description": f"Defaults to {vocab.DEFAULT_CONFIDENCE}",
                },
                "source": {
                    "type": "string",
                    "description": f"adr-0007 | conversation | code | external:<url>. Defaults to {vocab.DEFAULT_SOURCE}",
                },
                "expires": {
                    "type": "string",
                    "pattern": "^([0-9]{4}-[0-9]{2}-[0-9]{2})?$",
                    "description": 'YYYY-MM-DD after which the fact stops being loaded, or "" for none',
                },
            },
            ["title", "body", "type"],
        ),
    ),
    Tool(
        "memory_index",
        "Rebuilds .foundry/memory/INDEX.md and reports budget usage. Only needed after facts were edited by other means.",
        _obj({}, []),
    ),
    Tool(
        "runbook_list",
        "Lists runbooks with their trigger conditions. Consult this before starting any recurring or error-prone task — "
        "a runbook that exists must be followed rather than improvised.",
        _obj({}, []),
    ),
    Tool(
        "runbook_get",
        "Returns the full markdown of .foundry/runbooks/<slug>.md.",
        _obj({"slug": {"type": "string", "minLength": 1}}, ["slug"]),
    ),
    Tool(
        "contract_validate",
        "Validates a JSON artifact against a Foundry contract schema and returns the list of violations. "
        "Supply exactly one of data or path.",
        _obj(
            {
                "schema": {"type": "string", "description": "Contract id, e.g. finding.v1"},
                "data": {"type": "object", "description": "The artifact to validate"},
                "path": {
                    "type": "string",
                    "description": "Alternatively, a JSON file, resolved against the project root when relative",
                },
            },
            ["schema"],
        ),
    ),
    Tool(
        "blackboard_write",
        "Writes a wave artifact and validates it against its contract in one step; this is how an agent hands work to "
        "the next wave. schema and producedBy are set from schema and agent. On failure nothing is written.",
        _obj(
            {
                "wave": {"type": "string", "description": "Wave id, e.g. analysis"},
                "agent": {"type": "string", "description": "Producing agent name"},
                "schema": {"type": "string", "description": "Contract id the artifact conforms to"},
                "data": {"type": "object", "description": "The artifact"},
            },
            ["wave", "agent", "schema", "data"],
        ),
    ),
    Tool(
        "blackboard_read",
        "Reads artifacts for a wave: metadata and summaries by default. full returns each artifact verbatim; "
        "use it only when you genuinely need it.",
        _obj(
            {
                "wave": {"type": "string"},
                "agent": {"type": "string", "description": "Restrict to one producer"},
                "full": {"type": "boolean", "description": "Return the whole artifact"},
            },
            ["wave"],
        ),
    ),
    Tool(
        "token_report",
        "Reports Foundry token accounting for the project, including the recorded gate events.",
        _obj({}, []),
    ),
    # Session memory (spec 004): this agent session's scratch, not the project's facts.
    Tool(
        "memory",
        "Edits this session's working memory: short facts you are working with, shown at the top of your context "
        "on every prompt and kept across compaction and resume. Commands: add {fact}, remove {fact}, "
        "replace {old, new}. For durable project knowledge use memory_write instead.",
        _obj(
            {
                "command": {"type": "string", "enum": ["add", "remove", "replace"]},
                "fact": {"type": "string", "description": "add, remove: one line, at most 300 characters"},
                "old": {"type": "string", "description": "replace: the fact as it stands"},
                "new": {"type": "string", "description": "replace: the fact that takes its place"},
            },
            ["command"],
        ),
    ),
    Tool(
        "memory_observe",
        "Saves condensed observations of this session's recent work (when a [memory_request] asks for them). "
        "Each entry is one line: what was done, decided or found. Resets the session's rolling token counter.",
        _obj(
            {
                "entries": {"type": "array", "items": {"type": "string"}, "description": "One line each"},
                "token_count": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": 10_000_000,
                    "description": "Tokens of conversation condensed (the request names it). Defaults to the rolling count",
                },
            },
            ["entries"],
        ),
    ),
    Tool(
        "memory_reflect",
        "Replaces this session's reflection with condensed entries over the reflection and observations in your "
        "context (when a [memory_request] asks for it). Resets the session's observation counter.",
        _obj({"entries": {"type": "array", "items": {"type": "string"}, "description": "One line each"}}, ["entries"]),
    ),
    *(
        # The trust subsystem (ADR 0019): the person is the process's principal, never an argument.
        Tool(
            "get_user_preferences",
            "Returns the standing notes of the person this session works for (their preferences: a default "
            "branch, a review style...). Read them before saving: saving replaces the whole text.",
            _obj({}, []),
        ),
        Tool(
            "save_user_preferences",
            "Replaces the person's preferences with content (at most 20,000 characters). Read, merge, rewrite: "
            "get_user_preferences first, then save the whole merged text.",
            _obj({"content": {"type": "string", "description": "The whole new text (markdown)"}}, ["content"]),
        ),
        Tool(
            "clear_user_preferences",
            "Asks to delete the person's preferences. It only parks the request: the person confirms it "
            "(foundry prefs clear --confirm); nothing is deleted by this call.",
            _obj({}, []),
        ),
    ),
]
TOOLS_BY_NAME = {tool.name: tool for tool in TOOLS}

_JSON_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
}


def check_arguments(tool: Tool, args: Any) -> str | None:
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


def call_tool(
    project: Any, name: str, args: dict[str, Any], today: _dt.date, caller: Any = None
) -> tuple[str, dict[str, Any]]:
    """Run one tool; return its reply text and the fields to record with its event.
    Raises FoundryError for the caller to turn into an error result. `caller` is the
    server's principal, fixed when it started (resolved from the environment if not given)."""
    if caller is None and name in _TRUST_TOOLS:
        from foundry_tui.core.trust.principal import resolve_caller

        caller = resolve_caller()
    # Each branch imports only what it uses: the first call of a session should not pay
    # for the blackboard's or the contracts' modules to answer a search.
    layout = project.layout
    if name == "memory_search":
        from foundry_tui.core.memory.search import memory_search

        text, hits = memory_search(project, args["query"], today, type=args.get("type"), limit=args.get("limit"))
        return text, {"query": args["query"], "hits": len(hits)}
    if name == "memory_write":
        from foundry_tui.core.memory.write import WriteRequest
        from foundry_tui.core.trust.policy import guarded_memory_write

        req = WriteRequest(
            title=args["title"],
            body=args["body"],
            type=args["type"],
            # A field left out stays None: an update carries it over from the fact it replaces.
            scope=args.get("scope"),
            tags=args.get("tags"),
            confidence=args.get("confidence"),
            source=args.get("source"),
            expires=args.get("expires"),
        )
        gate = guarded_memory_write(project, caller, req, today)
        return gate.text, gate.event_fields()
    if name == "memory_index":
        from foundry_tui.core.memory.write import memory_index

        return memory_index(project, today).rebuild_text(), {}
    if name == "runbook_list":
        from foundry_tui.core.artefacts.runbooks import list_runbooks, render_runbook_list

        return render_runbook_list(list_runbooks(layout)), {}
    if name == "runbook_get":
        from foundry_tui.core.artefacts.runbooks import get_runbook

        return get_runbook(layout, args["slug"]), {"slug": args["slug"]}
    if name == "contract_validate":
        from foundry_tui.core.artefacts.contracts import contract_validate

        valid, text = contract_validate(
            layout, args["schema"], args.get("data"), args.get("path"), has_data="data" in args
        )
        return text, {"schema": args["schema"], "valid": valid}
    if name == "blackboard_write":
        from foundry_tui.core.artefacts.blackboard import blackboard_write

        outcome = blackboard_write(layout, args["wave"], args["agent"], args["schema"], args["data"])
        return outcome.text, {"schema": args["schema"], "written": outcome.written}
    if name == "blackboard_read":
        from foundry_tui.core.artefacts.blackboard import blackboard_read

        return blackboard_read(layout, args["wave"], args.get("agent"), bool(args.get("full", False))), {}
    if name in ("memory", "memory_observe", "memory_reflect"):
        from foundry_tui.core.sessions.tools import call_session_tool

        return call_session_tool(layout, name, args)
    if name == "token_report":
        from foundry_tui.core.artefacts.token_report import token_report

        return token_report(project, today), {}
    if name == "get_user_preferences":
        from foundry_tui.core.trust.preferences import get_preferences

        return get_preferences(caller), {}
    if name == "save_user_preferences":
        from foundry_tui.core.trust.preferences import save_preferences

        return save_preferences(caller, args["content"]), {"chars": len(args["content"])}
    if name == "clear_user_preferences":
        from foundry_tui.core.trust.preferences import request_clear

        return request_clear(caller), {}
    raise KeyError(name)


# Arguments that try to say who is calling. The trust tools ignore them (and say so) rather
# than fail: identity comes from the server's environment alone (ADR 0019).
IDENTITY_ARGUMENTS = ("principal", "author", "user", "as")


def drop_identity_arguments(name: str, args: Any) -> tuple[Any, list[str]]:
    """`args` without identity arguments for a trust tool, and the names dropped."""
    if name not in _TRUST_TOOLS or not isinstance(args, dict):
        return args, []
    ignored = [key for key in IDENTITY_ARGUMENTS if key in args]
    return ({k: v for k, v in args.items() if k not in ignored} if ignored else args), ignored


_TRUST_TOOLS = {"memory_write", "get_user_preferences", "save_user_preferences", "clear_user_preferences"}
