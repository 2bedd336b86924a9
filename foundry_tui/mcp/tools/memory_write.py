"""`memory_write`: stores one atomic durable fact."""

from __future__ import annotations

from foundry_tui.core.config import MAX_REF_CHARS, MAX_REFS
from foundry_tui.core.memory.model import vocabulary as vocab
from foundry_tui.mcp.tool import Tool, changes, schema_object

TYPE_CHECKING = False
if TYPE_CHECKING:
    from foundry_tui.mcp.tool import Reply, ToolCall

DESCRIPTION = (
    "Stores one atomic durable fact. Deduplicates against existing facts, assigns the id and maintains supersedes "
    "chains. Never write memory files by hand. Do not use it for transient session state. For decision and risk, "
    "include Why: and How to apply: lines. Restating a fact (same title, new body) keeps the optional fields you "
    "leave out from the fact it replaces."
)
SCHEMA = schema_object(
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
        "refs": {
            "type": "array",
            "items": {"type": "string", "maxLength": MAX_REF_CHARS},
            "maxItems": MAX_REFS,
            "description": "Repository paths the fact is about: files, folders, globs, or path::Name for a symbol. "
            "Backticked paths in the body are added. Left out on a restatement: the replaced fact's refs",
        },
    },
    ["title", "body", "type"],
)


def handle(call: ToolCall) -> Reply:
    from foundry_tui.core.memory.model.request import WriteRequest
    from foundry_tui.core.ops.facts import write_fact

    req = WriteRequest(
        title=call.args["title"],
        body=call.args["body"],
        type=call.args["type"],
        # A field left out stays None: an update carries it over from the fact it replaces.
        scope=call.args.get("scope"),
        tags=call.args.get("tags"),
        confidence=call.args.get("confidence"),
        source=call.args.get("source"),
        expires=call.args.get("expires"),
        refs=call.args.get("refs"),
    )
    gate = write_fact(call.actor(), req)
    if gate.applied is not None and gate.applied.fact_id and gate.applied.action != "unchanged":
        from foundry_tui.core.ops.facts import close_to_written

        # A second content item (the spec's reply text stays exact): the active facts close in
        # meaning to the new one, only when this server's model is warm (issue 29).
        close = close_to_written(call.actor(), gate.applied.fact_id)
        if close:
            call.more.append(close)
    return gate.text, gate.event_fields()


# Only additive: a new file, the fact it supersedes left as it is. Not idempotent: the same fact
# again is `unchanged` for a trusted caller, but parks one more proposal for an untrusted one.
TOOL = Tool(
    "memory_write",
    DESCRIPTION,
    SCHEMA,
    handle,
    title="Store a fact",
    writes=True,
    hints=changes(destructive=False, idempotent=False),
    acts_for_caller=True,
)
