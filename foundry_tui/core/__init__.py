"""The memory engine: facts, writing, search, the index, prune and doctor.

Nothing in this package imports a UI library (textual, rich); a test enforces it.
Heavy imports (yaml, frontmatter, jsonschema) happen lazily, inside the functions
that need them, so the MCP server and the hooks start fast.
"""
