"""Every MCP tool says what it does to its environment (MCP tool annotations), and a tool
that says it is read-only changes nothing: the hints are checked against what the tools do."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from mcp import Client

from foundry_tui.core.memory.project import Project
from foundry_tui.core.trust.principal import resolve_caller
from foundry_tui.mcp.registry import all_tools, answer_tool, tool_named
from foundry_tui.mcp.server import FoundryServer

if TYPE_CHECKING:
    from foundry_tui.core.json_types import JSONObject
from foundry_tui.mcp.tool import READ_ONLY, Hints, Tool, changes, schema_object
from tests.helpers import TODAY
from tests.mcp.test_mcp_sdk import _params

HINT_KEYS = ["title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]

# What each tool is, as a table a reviewer reads: (readOnly, destructive, idempotent, openWorld).
EXPECTED = {
    "memory_search": (True, False, True, False),
    "memory_write": (False, False, False, False),
    "memory_index": (False, False, True, False),
    "runbook_list": (True, False, True, False),
    "runbook_get": (True, False, True, False),
    "contract_validate": (True, False, True, False),
    "blackboard_write": (False, True, True, False),
    "blackboard_read": (True, False, True, False),
    "token_report": (True, False, True, False),
    "memory": (False, True, True, False),
    "memory_observe": (False, False, False, False),
    "memory_reflect": (False, True, True, False),
    "get_user_preferences": (True, False, True, False),
    "save_user_preferences": (False, True, True, False),
    "clear_user_preferences": (False, False, True, False),
}


def _server_listing(root: Path, version: str) -> list[dict[str, Any]]:  # read deep: the test asserts the shape
    server = FoundryServer(root)
    init: JSONObject = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    server.handle({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
    answer = server.handle({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    assert isinstance(answer, dict)
    result = answer["result"]
    assert isinstance(result, dict)
    tools = result["tools"]
    assert isinstance(tools, list) and all(isinstance(tool, dict) for tool in tools)
    return [tool for tool in tools if isinstance(tool, dict)]


def test_every_listed_tool_states_all_four_hints_as_its_writes_says(demo_root: Path) -> None:
    listed = _server_listing(demo_root, "2025-06-18")
    assert [t["name"] for t in listed] == list(EXPECTED)
    for entry in listed:
        tool = tool_named(entry["name"])
        annotations = entry["annotations"]
        assert list(annotations) == HINT_KEYS, entry["name"]
        assert all(isinstance(annotations[key], bool) for key in HINT_KEYS[1:]), entry["name"]
        assert annotations["readOnlyHint"] is (not tool.writes), entry["name"]
        if annotations["readOnlyHint"]:
            assert (annotations["destructiveHint"], annotations["idempotentHint"]) == (False, True), entry["name"]
        hints = tuple(annotations[key] for key in HINT_KEYS[1:])
        assert hints == EXPECTED[entry["name"]], entry["name"]
        assert entry["title"] == annotations["title"] and entry["title"], entry["name"]


async def test_the_sdk_client_reads_the_hints(demo_root: Path) -> None:
    async with Client(_params(demo_root)) as client:
        tools = (await client.list_tools()).tools
    for tool in tools:
        hints = tool.annotations
        assert hints is not None, tool.name
        read = (hints.read_only_hint, hints.destructive_hint, hints.idempotent_hint, hints.open_world_hint)
        assert read == EXPECTED[tool.name], tool.name
        assert tool.title == hints.title == tool_named(tool.name).title
    with_output = {tool.name for tool in tools if tool.output_schema is not None}
    assert with_output == {"memory_search", "contract_validate", "blackboard_read"}


def _handler(call: Any) -> tuple[str, dict[str, Any]]:
    return "", {}


def test_a_writing_tool_cannot_claim_to_be_read_only() -> None:
    with pytest.raises(ValueError, match="writes=True but readOnlyHint=True"):
        Tool("x", "d", schema_object({}, []), _handler, title="X", writes=True, hints=READ_ONLY, acts_for_caller=False)
    with pytest.raises(ValueError, match="writes=False but readOnlyHint=False"):
        Tool(
            "x",
            "d",
            schema_object({}, []),
            _handler,
            title="X",
            writes=False,
            hints=changes(destructive=False, idempotent=True),
            acts_for_caller=False,
        )
    with pytest.raises(ValueError):
        Hints(read_only=True, destructive=True, idempotent=True, open_world=False)
    with pytest.raises(ValueError):
        Hints(read_only=True, destructive=False, idempotent=False, open_world=False)


def test_older_clients_get_only_the_fields_their_version_has(demo_root: Path) -> None:
    oldest = _server_listing(demo_root, "2024-11-05")
    assert {tuple(entry) for entry in oldest} == {("name", "description", "inputSchema")}
    middle = _server_listing(demo_root, "2025-03-26")
    assert {tuple(entry) for entry in middle} == {("name", "description", "inputSchema", "annotations")}
    latest = {entry["name"]: tuple(entry) for entry in _server_listing(demo_root, "2025-06-18")}
    assert latest["memory_search"] == ("name", "title", "description", "inputSchema", "outputSchema", "annotations")
    assert latest["memory_write"] == ("name", "title", "description", "inputSchema", "annotations")


def test_older_clients_get_no_structured_content(demo_root: Path) -> None:
    for version, structured in (("2025-03-26", False), ("2025-06-18", True)):
        server = FoundryServer(demo_root, caller=resolve_caller())
        init: JSONObject = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
        server.handle({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
        params: JSONObject = {"name": "memory_search", "arguments": {"query": "postgres"}}
        answer = server.handle({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params})
        assert isinstance(answer, dict)
        result = answer["result"]
        assert isinstance(result, dict)
        assert ("structuredContent" in result) is structured, version


# Calls each read-only tool makes on the demo, all of which succeed (a failed call proves nothing).
READ_CALLS: dict[str, dict[str, Any]] = {
    "memory_search": {"query": "postgres migrations", "max_tokens": 200},
    "runbook_list": {},
    "runbook_get": {"slug": "deploy-production"},
    "contract_validate": {"schema": "finding.v1", "data": {"title": "t"}},
    "blackboard_read": {"wave": "audit", "full": True},
    "token_report": {},
    "get_user_preferences": {},
}


def _tree(root: Path) -> dict[str, str]:
    """Every file under the root by its hash, but the events log (every call appends to it)."""
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file() and path != root / ".foundry/metrics/events.jsonl"
    }


def test_a_tool_that_says_it_is_read_only_changes_nothing(demo_root: Path) -> None:
    assert set(READ_CALLS) == {tool.name for tool in all_tools() if tool.hints.read_only}
    caller = resolve_caller()
    before = _tree(demo_root)
    for name, args in READ_CALLS.items():
        text, _fields, _structured, _more = answer_tool(Project(demo_root), name, args, TODAY, caller)
        assert text and "failed" not in text, (name, text)
        assert _tree(demo_root) == before, f"{name} says it is read-only but changed the project"
