"""Hostile request lines against a running MCP server (issue 9, High 1): each gets a
JSON-RPC error reply, and the same process answers the next request."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.test_mcp_raw import INIT, RawServer, running_server

PING = {"jsonrpc": "2.0", "id": 77, "method": "ping"}


@pytest.fixture
def server(demo_root: Path) -> Iterator[RawServer]:
    yield from running_server(demo_root)


def _tool_line(name: str, arguments: str) -> bytes:
    return (
        '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"' + name + '","arguments":' + arguments + "}}"
    ).encode()


HOSTILE: dict[str, bytes] = {
    "lone surrogate in the method": b'{"jsonrpc":"2.0","id":1,"method":"\\ud800"}',
    "lone surrogate in the id": b'{"jsonrpc":"2.0","id":"\\udc00","method":"ping"}',
    "lone surrogate in a tool name": _tool_line("\\ud83d", "{}"),
    "lone surrogate in an argument": _tool_line("memory_search", '{"query":"emoji \\ud83d cut"}'),
    "100,000 [": b"[" * 100_000,
    "100,000 {": b'{"a":' * 100_000,
    "arguments nested 5,000 deep": _tool_line(
        "contract_validate", '{"schema":"finding.v1","data":{"x":' + "[" * 5000 + "]" * 5000 + "}}"
    ),
    "an id of 5,000 digits": b'{"jsonrpc":"2.0","id":' + b"9" * 5000 + b',"method":"ping"}',
    "invalid UTF-8": b'{"jsonrpc":"2.0","id":1,"method":"\xff\xfe"}',
    "a NUL byte first": b'\x00{"jsonrpc":"2.0","id":1,"method":"ping"}',
    "UTF-16 looking bytes": b'{\x00"\x00a\x00"\x00:\x001\x00}\x00',
    "a truncated emoji in raw bytes": b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"q":"\xf0\x9f"}}',
}


@pytest.mark.parametrize("label", sorted(HOSTILE))
def test_a_hostile_line_gets_an_error_and_the_server_keeps_serving(server: RawServer, label: str) -> None:
    answer = server.ask(HOSTILE[label])
    assert answer["jsonrpc"] == "2.0"
    assert answer["error"]["code"] in (-32700, -32600, -32602)
    assert "\n" not in answer["error"]["message"]
    assert server.ask(PING) == {"jsonrpc": "2.0", "id": 77, "result": {}}
    assert server.proc.poll() is None


def test_the_surrogate_error_names_the_problem_and_keeps_a_good_id(server: RawServer) -> None:
    answer = server.ask(b'{"jsonrpc":"2.0","id":9,"method":"\\ud800"}')
    assert answer["id"] == 9
    assert answer["error"] == {
        "code": -32600,
        "message": "Invalid Request: a string holds a lone UTF-16 surrogate (half of an emoji?): send valid Unicode",
    }
    assert server.ask(b'{"jsonrpc":"2.0","id":"\\udc00","method":"ping"}')["id"] is None


def test_a_paired_surrogate_escape_is_fine(server: RawServer) -> None:
    line = _tool_line("memory_search", '{"query":"postgres \\ud83d\\ude00"}')
    answer = server.ask(line)
    assert answer["result"]["isError"] is False


def test_nesting_is_refused_with_its_limit(server: RawServer) -> None:
    answer = server.ask(b"[" * 100_000)
    assert answer == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": "Parse error: JSON nested deeper than 100 levels"},
    }
    deep = _tool_line("contract_validate", '{"schema":"finding.v1","data":{"x":' + "[" * 150 + "]" * 150 + "}}")
    answer = server.ask(deep)
    assert answer["id"] == 5
    assert answer["error"] == {"code": -32602, "message": "Invalid params: JSON nested deeper than 100 levels"}


def test_the_big_id_error_says_what_is_wrong(server: RawServer) -> None:
    answer = server.ask(HOSTILE["an id of 5,000 digits"])
    assert answer["id"] is None
    assert answer["error"]["code"] == -32700
    assert "digits" in answer["error"]["message"]


# ---- issue 17, "MCP odds and ends" -----------------------------------------------------------


def test_resource_templates_list_is_empty(server: RawServer) -> None:
    answer = server.ask({"jsonrpc": "2.0", "id": 4, "method": "resources/templates/list"})
    assert answer == {"jsonrpc": "2.0", "id": 4, "result": {"resourceTemplates": []}}


@pytest.mark.parametrize(
    ("asked", "answered"),
    [
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        ("2024-11-05", "2024-11-05"),
        ("2025-11-25", "2025-06-18"),  # newer than this server: its latest
        ("1999-01-01", "2025-06-18"),
        (42, "2025-06-18"),
    ],
)
def test_the_protocol_version_is_negotiated(demo_root: Path, asked: object, answered: str) -> None:
    srv = RawServer(demo_root)
    try:
        init = {**INIT, "params": {**INIT["params"], "protocolVersion": asked}}  # type: ignore[dict-item]
        assert srv.ask(init)["result"]["protocolVersion"] == answered
    finally:
        srv.proc.kill()
        srv.proc.wait()


def test_batches_are_answered_only_under_2025_03_26(demo_root: Path) -> None:
    srv = RawServer(demo_root)
    try:
        srv.ask({**INIT, "params": {**INIT["params"], "protocolVersion": "2025-03-26"}})  # type: ignore[dict-item]
        batch = [
            {"jsonrpc": "2.0", "id": 5, "method": "ping"},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 6, "method": "nope"},
        ]
        srv.send(batch)
        answer: Any = srv.receive()  # an array: RawServer.receive is typed for single answers
        assert answer == [
            {"jsonrpc": "2.0", "id": 5, "result": {}},
            {"jsonrpc": "2.0", "id": 6, "error": {"code": -32601, "message": "Method not found: nope"}},
        ]
        assert srv.ask([])["error"]["code"] == -32600
    finally:
        srv.proc.kill()
        srv.proc.wait()


def test_the_raw_bytes_of_a_lone_surrogate_are_not_utf8(server: RawServer) -> None:
    """Found by the fuzzer: json.loads decodes UTF-8 with 'surrogatepass', so these bytes
    reached a tool as a lone surrogate and the reply could not be encoded."""
    line = b'{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"\xed\xa0\x80"}}}'
    answer = server.ask(line)
    assert answer["error"] == {"code": -32700, "message": "Parse error: the line is not UTF-8 text"}
    assert server.ask(PING)["result"] == {}
