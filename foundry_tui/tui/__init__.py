"""The Foundry terminal application: a curator's view of a repository's memory.

It reads and writes only through `foundry_tui.core`, so it never disagrees with the
CLI or the MCP server.
"""
