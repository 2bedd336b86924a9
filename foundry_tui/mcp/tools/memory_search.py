"""`memory_search`: searches project memory and returns only the matching facts."""

from __future__ import annotations

from foundry_tui.core import config
from foundry_tui.core.memory.model import vocabulary as vocab
from foundry_tui.mcp.tool import READ_ONLY, Tool, schema_object

TYPE_CHECKING = False
if TYPE_CHECKING:
    from foundry_tui.mcp.tool import Reply, ToolCall

DESCRIPTION = (
    "Searches project memory and returns only the matching facts. Use this instead of reading files under "
    ".foundry/memory/ — it is the token-cheap path. Call it before planning, before proposing an architecture, "
    "and whenever the user refers to a past decision. Keyword scoring: synonyms do not match. To keep a reply "
    "small, give max_tokens; when more facts match, the reply ends with a cursor: pass it (with the same query) "
    "for the next page rather than asking again with a bigger limit."
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
        "max_tokens": {
            "type": "integer",
            "minimum": 1,
            "maximum": config.MAX_TOKENS,
            "description": "Token budget of the reply: only the facts that fit (always one); the rest are "
            "a cursor away",
        },
        "cursor": {
            "type": "string",
            "maxLength": config.MAX_CURSOR_CHARS,
            "description": "The cursor the last page ended with: the next page of the same search (its type, "
            "limit and max_tokens unless given again)",
        },
    },
    ["query"],
)
HIT = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "description": "The fact's id, e.g. fact-0004"},
        "type": {"type": "string", "enum": list(vocab.TYPES)},
        "confidence": {"type": "string", "enum": list(vocab.CONFIDENCES)},
        "title": {"type": "string"},
        "body": {"type": "string", "description": "As the text serves it (a body far over the limit is cut)"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "scope": {"type": "string"},
        "source": {"type": "string"},
        "score": {"type": "number", "description": "The ranker's score, rounded to 4 places"},
    },
    "required": ["id", "type", "confidence", "title", "body", "tags", "scope", "source", "score"],
    "additionalProperties": False,
}
OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "The query as given"},
        # The ranker's name, not an enum of the registry's: importing the registry here would put
        # the rankers (and typing) on tools/list's path, ~25 ms (benchmarks/bench_speed_ab.py --what mcp-init).
        "ranker": {"type": "string", "description": "memoryRetrieval.ranker: the ranker that ranked the hits"},
        "offset": {"type": "integer", "minimum": 0, "description": "The rank of the page's first hit (0: the best)"},
        "hits": {"type": "array", "items": HIT, "description": "The page's hits, best first, as the text shows them"},
        "next_cursor": {
            "type": ["string", "null"],
            "description": "Pass it as cursor for the next page; null when no more facts match",
        },
    },
    "required": ["query", "ranker", "offset", "hits", "next_cursor"],
    "additionalProperties": False,
}


def handle(call: ToolCall) -> Reply:
    from foundry_tui.core.memory.search.reply import search_page, served_body

    query = call.args["query"]
    page = search_page(
        call.project,
        query,
        call.today,
        type=call.args.get("type"),
        limit=call.args.get("limit"),
        max_tokens=call.args.get("max_tokens"),
        cursor=call.args.get("cursor"),
    )
    call.structured = {
        "query": query,
        "ranker": page.ranker,
        "offset": page.offset,
        "hits": [
            {
                "id": hit.fact.id,
                "type": hit.fact.type,
                "confidence": hit.fact.confidence,
                "title": hit.fact.title,
                "body": served_body(hit.fact.body),
                "tags": list(hit.fact.tags),
                "scope": hit.fact.scope,
                "source": hit.fact.source,
                "score": round(hit.score, 4),
            }
            for hit in page.hits
        ],
        "next_cursor": page.next_cursor,
    }
    fields: dict[str, object] = {"query": query, "hits": len(page.hits)}
    if page.offset:  # a next page: not a new search (nor, when empty, a missed one)
        fields["offset"] = page.offset
    return page.text, fields


TOOL = Tool(
    "memory_search",
    DESCRIPTION,
    SCHEMA,
    handle,
    title="Search project memory",
    output_schema=OUTPUT_SCHEMA,
    writes=False,
    hints=READ_ONLY,
    acts_for_caller=False,
)
