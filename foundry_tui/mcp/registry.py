"""The MCP tools, one module each under `mcp/tools/` (spec 002's nine, spec 004's three for
session memory, and the trust subsystem's three for preferences): the server's `tools/list`
and its dispatch both read this one list, in this order."""

from __future__ import annotations

import importlib

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as _dt
    from typing import Any

    from foundry_tui.core.json_types import JSONObject
    from foundry_tui.core.memory.project import Project
    from foundry_tui.core.trust.principal import Caller
    from foundry_tui.mcp.tool import Reply, Tool

TOOL_NAMES = (
    "memory_search",
    "memory_write",
    "memory_index",
    "runbook_list",
    "runbook_get",
    "contract_validate",
    "blackboard_write",
    "blackboard_read",
    "token_report",
    # Session memory (spec 004): this agent session's scratch, not the project's facts.
    "memory",
    "memory_observe",
    "memory_reflect",
    # The trust subsystem: the person is the process's principal, never an argument.
    "get_user_preferences",
    "save_user_preferences",
    "clear_user_preferences",
)


def tool_named(name: str) -> Tool:
    """The tool `name` (KeyError for an unknown one); its module is imported on first use."""
    if name not in TOOL_NAMES:
        raise KeyError(name)
    found: Tool = importlib.import_module(f"foundry_tui.mcp.tools.{name}").TOOL
    return found


def all_tools() -> list[Tool]:
    """Every tool, in the listing's order."""
    return [tool_named(name) for name in TOOL_NAMES]


def answer_tool(
    project: Project, name: str, args: dict[str, Any], today: _dt.date, caller: Caller | None = None
) -> tuple[str, dict[str, object], JSONObject | None, list[str]]:
    """Run one tool; return its reply text, the fields to record with its event, its structured
    content (None for a tool without an output schema) and the texts of any further content
    items (ToolCall.more: memory_write's facts close to the new one); `args` are checked against
    the tool's schema already (so Any, as ToolCall.args). Raises FoundryError for the
    caller to turn into an error result. `caller` is the server's principal, fixed when it
    started (resolved from the environment if not given)."""
    from foundry_tui.mcp.tool import ToolCall

    if caller is None:
        from foundry_tui.core.trust.principal import resolve_caller

        caller = resolve_caller()
    call = ToolCall(name, args, project, today, caller)
    text, fields = tool_named(name).handle(call)
    return text, fields, call.structured, call.more


def call_tool(
    project: Project, name: str, args: dict[str, Any], today: _dt.date, caller: Caller | None = None
) -> Reply:
    """answer_tool's reply text and event fields."""
    text, fields, _structured, _more = answer_tool(project, name, args, today, caller)
    return text, fields
