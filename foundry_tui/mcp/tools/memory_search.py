"""`memory_search`: searches project memory and returns only the matching facts."""

from __future__ import annotations

from foundry_tui.core import config
from foundry_tui.core.memory.model import vocabulary as vocab
from foundry_tui.mcp.tool import Tool, schema_object

TYPE_CHECKING = False
if TYPE_CHECKING:
    from foundry_tui.mcp.tool import Reply, ToolCall

DESCRIPTION = (
    "Searches project memory and returns only the matching facts. Use this instead of reading files under "
    ".foundry/memory/ — it is the token-cheap path. Call it before planning, before proposing an architecture, "
    "and whenever the user refers to a past decision. Keyword scoring: synonyms do not match."
)
SCHEMA = schema_object(
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
)


def handle(call: ToolCall) -> Reply:
    from foundry_tui.core.memory.search.reply import memory_search

    text, hits = memory_search(
        call.project, call.args["query"], call.today, type=call.args.get("type"), limit=call.args.get("limit")
    )
    return text, {"query": call.args["query"], "hits": len(hits)}


TOOL = Tool("memory_search", DESCRIPTION, SCHEMA, handle, writes=False, acts_for_caller=False)
