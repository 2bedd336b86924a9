"""The fact vocabulary: types, confidences, defaults and limits (spec 000, "The fact schema";
spec 002, memory_write). The one place these live: the fact parser and the write checks
(facts.py), the MCP tool schemas (mcp/tools/), the CLI's help (commands/memory.py) and the TUI's
choices all read them from here. It imports nothing, so anything may import it for free."""

# Every fact type, in the spec's order of the schema.
TYPES: tuple[str, ...] = ("decision", "constraint", "convention", "domain", "risk", "metric", "glossary")
# The index's order (spec: decision → constraint → convention → risk → domain → metric → glossary).
TYPE_ORDER: tuple[str, ...] = ("decision", "constraint", "convention", "risk", "domain", "metric", "glossary")
TYPE_RANK: dict[str, int] = {name: rank for rank, name in enumerate(TYPE_ORDER)}
# The types whose body must carry the literal **Why:** line (doctor fails without it).
REASONED_TYPES: frozenset[str] = frozenset({"decision", "risk"})

# Strongest first.
CONFIDENCES: tuple[str, ...] = ("high", "medium", "low")

# What a fact gets when the writer leaves a field out.
DEFAULT_CONFIDENCE = "medium"
DEFAULT_SCOPE = "project"
DEFAULT_SOURCE = "conversation"

# Size limits: memory_write refuses beyond them, doctor warns about files already beyond them.
MAX_TITLE_CHARS = 80
MAX_BODY_WORDS = 120

# Tags are retrieval words printed on the fact's index line: a few short ones. Without a
# cap, one fact's tags could push every other fact out of the index budget.
MAX_TAGS = 12
MAX_TAG_CHARS = 40
# Scope and source are printed with every search hit (and the prompt hook's): one short line each.
MAX_LINE_FIELD_CHARS = 200

# A tag is plain words: INDEX.md shows each tag in backticks on the fact's one line, so a
# backtick would break that line (line breaks and other control characters are refused in
# every field). Blank tags are dropped, repeats kept once.
TAG_FORBIDDEN_CHARS: tuple[str, ...] = ("`",)
