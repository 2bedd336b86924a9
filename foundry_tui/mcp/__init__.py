"""The stdio MCP server (`foundry mcp`): newline-delimited JSON-RPC 2.0, zero heavy imports at start."""
